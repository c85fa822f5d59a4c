"""The ladder and league pages: creating a ladder (organisers only), joining, a challenge
button only within reach, the defender's accept (to the table) and decline, the history."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator
from django.contrib.auth.models import Permission, User
from django.test import Client

from matches.models import Player
from seasons import services
from seasons.models import Ladder, LadderChallenge
from tavla.site.asgi import application
from tests.matches.test_consumer import (  # noqa: F401 - the autouse fixture closes connections
    ORIGIN,
    _close_consumer_connections,
)

pytestmark = pytest.mark.django_db


def client_of(player: Player) -> Client:
    client = Client()
    client.force_login(player.user)
    return client


def test_a_ladder_from_its_pages(make_player: Callable[..., Player]) -> None:
    organiser = make_player("organiser")
    assert client_of(organiser).get("/ladders/new/").status_code in (302, 403)
    organiser.user.user_permissions.add(Permission.objects.get(codename="add_ladder"))
    client = client_of(organiser)
    bad = client.post("/ladders/new/", {"name": "Club", "reach": 0, "accept_days": 3,
                                        "play_days": 7, "inactivity_days": 14,
                                        "drop_places": 2, "match_length": 5, "clock": "normal"})
    assert bad.status_code == 200 and not Ladder.objects.exists()
    made = client.post("/ladders/new/", {"name": "Club", "reach": 1, "accept_days": 3,
                                         "play_days": 7, "inactivity_days": 14,
                                         "drop_places": 2, "match_length": 3,
                                         "clock": "normal"})
    ladder = Ladder.objects.get()
    assert made.url == f"/ladders/{ladder.pk}/"
    assert "Club" in Client().get("/ladders/").content.decode()

    a, b, c = (make_player(name) for name in ("anna", "bora", "cem"))
    for player in (a, b, c):
        assert client_of(player).post(f"/ladders/{ladder.pk}/join/").status_code == 302
    page = client_of(c).get(f"/ladders/{ladder.pk}/").content.decode()
    # Reach 1: cem (3rd) may challenge bora (2nd) only.
    assert f'name="defender" value="{b.pk}"' in page
    assert f'name="defender" value="{a.pk}"' not in page
    refused = client_of(c).post(f"/ladders/{ladder.pk}/challenge/", {"defender": a.pk},
                                follow=True)
    assert "out of your reach" in refused.content.decode()
    assert not LadderChallenge.objects.exists()
    client_of(c).post(f"/ladders/{ladder.pk}/challenge/", {"defender": b.pk})
    challenge = LadderChallenge.objects.get()
    page = client_of(b).get(f"/ladders/{ladder.pk}/live/").content.decode()
    assert f"/ladders/challenges/{challenge.pk}/accept/" in page
    # Only the defender answers.
    client_of(a).post(f"/ladders/challenges/{challenge.pk}/decline/")
    challenge.refresh_from_db()
    assert challenge.status == "open"
    client_of(b).post(f"/ladders/challenges/{challenge.pk}/decline/")
    challenge.refresh_from_db()
    assert challenge.status == "declined"
    page = Client().get(f"/ladders/{ladder.pk}/").content.decode()
    assert "cem challenged bora: cem won by forfeit." in page
    assert services.ladder_check(ladder) == []
    # A second challenge, accepted: the defender is taken to the table.
    client_of(b).post(f"/ladders/{ladder.pk}/challenge/", {"defender": c.pk})
    second = LadderChallenge.objects.get(status="open")
    answer = client_of(c).post(f"/ladders/challenges/{second.pk}/accept/")
    second.refresh_from_db()
    assert second.match is not None
    assert answer.url == f"/tables/{second.match.table_id}/"


def test_leagues_page_lists_seasons_and_divisions(make_player: Callable[..., Player]) -> None:
    director = User.objects.create_user(username="dir", password="x", is_staff=True,
                                        is_superuser=True)
    players = [make_player(f"l{i}") for i in range(4)]
    league = services.league_create(name="Winter league")
    season = services.league_first_season(league_id=league.pk,
                                          divisions=[players[:2], players[2:]], actor=director)
    page = Client().get("/leagues/").content.decode()
    assert "Winter league" in page
    assert f'href="/tournaments/{season.event.pk}/"' in page
    for division in season.event.divisions.all():
        assert f'href="/tournaments/{division.pk}/"' in page


@pytest.mark.django_db(transaction=True)  # the change is announced when the join commits
async def test_the_ladder_socket_announces_a_change(
        make_player: Callable[..., Player]) -> None:
    ladder = await sync_to_async(services.ladder_create)(name="Live")
    player = await sync_to_async(make_player)("joiner")
    socket = WebsocketCommunicator(application, f"/ws/ladders/{ladder.pk}/", headers=[ORIGIN])
    connected, _ = await socket.connect(timeout=5)
    assert connected
    await sync_to_async(services.ladder_join)(ladder_id=ladder.pk, player=player)
    assert await socket.receive_json_from(timeout=5) == {"type": "ladder.changed",
                                                         "ladder_id": ladder.pk}
    await socket.send_json_to({"type": "ping"})
    assert (await socket.receive_json_from(timeout=5))["type"] == "pong"
    await socket.disconnect()
    unknown = WebsocketCommunicator(application, "/ws/ladders/999999/", headers=[ORIGIN])
    connected, _ = await unknown.connect(timeout=5)
    assert connected
    assert await unknown.receive_output(timeout=5) == {"type": "websocket.close", "code": 4404}
