"""The league pages: a director creates a league (correspondence days or a live clock),
enrols players by user name (every bad name said, nobody enrolled then), starts the first
season, and a player sees their division; every refusal is a message, never an error page.
The desk and the ladder form take days per move too."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.contrib.auth.models import Permission
from django.test import Client

from matches.models import Player
from seasons.models import Ladder, League
from tournaments.models import Tournament

pytestmark = pytest.mark.django_db

LEAGUE = {"name": "Thursday league", "divisions": 2, "division_size": 4, "match_length": 3,
          "clock": "correspondence", "days": 2, "round_days": 7, "move": 1}


def client_of(player: Player) -> Client:
    client = Client()
    client.force_login(player.user)
    return client


def messages_of(response: Any) -> list[str]:
    return [str(m) for m in response.context["messages"]]


@pytest.fixture
def director(make_player: Callable[..., Player]) -> Player:
    player = make_player("director")
    player.user.is_superuser = player.user.is_staff = True
    player.user.save()
    return player


def test_a_league_from_its_pages(director: Player,
                                 make_player: Callable[..., Player]) -> None:
    outsider = make_player("outsider")
    assert client_of(outsider).get("/leagues/new/").status_code in (302, 403)
    assert client_of(outsider).post("/leagues/new/", LEAGUE).status_code in (302, 403)
    assert not League.objects.exists()
    client = client_of(director)
    assert "New league" in client.get("/leagues/").content.decode()
    for bad in ({"divisions": 0}, {"days": ""}, {"days": 8}, {"clock": "sundial"},
                {"name": ""}, {"move": "x"}):
        page = client.post("/leagues/new/", {**LEAGUE, **bad})
        assert page.status_code == 200 and page.context["form"].errors, bad
        assert not League.objects.exists()
    made = client.post("/leagues/new/", LEAGUE)
    league = League.objects.get()
    assert made.url == f"/leagues/{league.pk}/"
    assert (league.correspondence_days, league.divisions, league.division_size) == (2, 2, 4)

    players = [make_player(f"p{i}", rating=1700 - i) for i in range(6)]
    refused = client.post(f"/leagues/{league.pk}/enrol/",
                          {"enrol-usernames": "p0, p1\nnobody\nghost"}, follow=True)
    words = " ".join(messages_of(refused))
    assert "nobody" in words and "ghost" in words and not league.members.exists()
    early = client.post(f"/leagues/{league.pk}/start/", follow=True)
    assert "at least 4 players" in " ".join(messages_of(early))
    assert not league.seasons.exists()
    enrolled = client.post(f"/leagues/{league.pk}/enrol/",
                           {"enrol-usernames": "\n".join(p.user.username for p in players)},
                           follow=True)
    assert "6 players enrolled." in messages_of(enrolled)
    started = client.post(f"/leagues/{league.pk}/start/", follow=True)
    assert "Season 1 has started." in messages_of(started)
    season = league.seasons.get()
    divisions = list(season.event.divisions.order_by("division_order"))
    assert all(d.correspondence_days == 2 for d in divisions)
    # Not finished: closing is refused, with a message.
    again = client.post(f"/leagues/{league.pk}/start/", follow=True)
    assert "finished" in " ".join(messages_of(again)) and league.seasons.count() == 1

    refused = client.post(f"/leagues/{league.pk}/withdraw/",
                          {"withdraw-usernames": "p4, nobody"}, follow=True)
    assert "nobody is not enrolled" in " ".join(messages_of(refused))
    withdrawn = client.post(f"/leagues/{league.pk}/withdraw/",
                            {"withdraw-usernames": "p4"}, follow=True)
    assert "1 player withdrawn: out of the next season." in messages_of(withdrawn)
    assert "Withdrawn, out of the next season: p4" in withdrawn.content.decode()

    page = client_of(players[5]).get(f"/leagues/{league.pk}/")
    html = page.content.decode()
    assert page.context["my_division"]["division"] == divisions[1]
    assert "You play in division 2." in html
    assert f'/tournaments/{divisions[1].pk}/' in html
    assert "/enrol/" not in html and "/start/" not in html  # no director's buttons
    assert "sit down at your table by" in html


def test_posts_without_the_right_or_with_garbage_change_nothing(
        director: Player, make_player: Callable[..., Player]) -> None:
    client = client_of(director)
    client.post("/leagues/new/", LEAGUE)
    league = League.objects.get()
    make_player("p0")
    player = make_player("p1")
    for url in (f"/leagues/{league.pk}/enrol/", f"/leagues/{league.pk}/start/"):
        assert client_of(player).post(url, {"enrol-usernames": "p0"}).status_code in (302, 403)
        assert client.get(url).status_code == 405
    assert client.post("/leagues/999/enrol/", {"enrol-usernames": "p0"}).status_code == 404
    empty = client.post(f"/leagues/{league.pk}/enrol/", {"enrol-usernames": ""}, follow=True)
    assert messages_of(empty) and not league.members.exists()
    assert not league.seasons.exists()


def test_the_ladder_form_and_the_desk_take_days_per_move(
        director: Player) -> None:
    client = client_of(director)
    ladder = {"name": "Slow", "reach": 2, "accept_days": 3, "play_days": 30,
              "inactivity_days": 40, "drop_places": 1, "match_length": 5,
              "clock": "correspondence", "days": 4}
    assert client.post("/ladders/new/", {**ladder, "days": 9}).status_code == 200
    assert not Ladder.objects.exists()
    client.post("/ladders/new/", ladder)
    made = Ladder.objects.get()
    assert made.correspondence_days == 4 and made.clock_enabled
    assert "correspondence: 4 days per move" in client.get(
        f"/ladders/{made.pk}/").content.decode()
    assert "sundial" not in client.get("/arenas/new/").content.decode()
    arena_form = client.get("/arenas/new/").context["form"]
    assert "correspondence" not in dict(arena_form.fields["clock"].choices)

    refused = client.post("/tournaments/desk/create/", {
        "template": "round_robin", "name": "Letters", "correspondence_days": 8}, follow=True)
    assert messages_of(refused) and not Tournament.objects.exists()
    client.post("/tournaments/desk/create/", {"template": "round_robin", "name": "Letters",
                                              "correspondence_days": 3})
    tournament = Tournament.objects.get()
    assert tournament.correspondence_days == 3 and tournament.clock_enabled
    assert Permission.objects.filter(codename="add_league").exists()
