"""The tournaments REST API and the live socket."""

from __future__ import annotations

import pytest
from asgiref.sync import sync_to_async
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.db import connections
from rest_framework.test import APIClient

from tests.api_clients import token_client
from tests.tournaments.conftest import open_pairings, play_match
from tournaments.models import Entry, EntryStatus

pytestmark = pytest.mark.django_db


def api_as(player=None) -> APIClient:
    return token_client(player.user if player is not None else None)


def test_anyone_reads_tournaments_entries_standings_and_the_bracket(make_tournament):
    tournament = make_tournament(5, start=True)
    client = api_as()
    listing = client.get("/api/tournaments/").json()
    assert [t["id"] for t in listing] == [tournament.pk]
    detail = client.get(f"/api/tournaments/{tournament.pk}/").json()
    assert detail["status"] == "running" and detail["entries"] == 5
    assert detail["format"] == "single_elimination"
    entries = client.get(f"/api/tournaments/{tournament.pk}/entries/").json()
    assert [e["seed"] for e in entries] == [1, 2, 3, 4, 5]
    row = open_pairings(tournament)[0]
    play_match(row, row.entry_b)
    standings = client.get(f"/api/tournaments/{tournament.pk}/standings/").json()
    assert len(standings) == 5 and standings[0]["rank"] == 1
    loser = next(line for line in standings if line["id"] == row.entry_b_id)
    assert loser["losses"] == 1
    bracket = client.get(f"/api/tournaments/{tournament.pk}/bracket/").json()
    (main,) = bracket["brackets"]
    assert [r["label"] for r in main["rounds"]] == ["Quarter-finals", "Semi-finals", "Final"]
    first = next(p for p in main["rounds"][0]["pairings"] if p["slot"] == row.slot)
    assert first["status"] == "decided" and first["a"]["winner"] is True
    assert first["watch_url"] == f"/tables/{first['table_id']}/"
    assert client.get("/api/tournaments/999999/").status_code == 404


def test_register_check_in_and_withdraw_over_the_api(make_tournament, make_player,
                                                     director):
    tournament = make_tournament(2)
    player = make_player()
    assert api_as().post(f"/api/tournaments/{tournament.pk}/register/").status_code == 401
    client = api_as(player)
    response = client.post(f"/api/tournaments/{tournament.pk}/register/")
    assert response.status_code == 200 and response.json()["status"] == "active"
    again = client.post(f"/api/tournaments/{tournament.pk}/register/")
    assert again.status_code == 409 and again.json()["error"] == "already_registered"
    from tournaments import services

    services.tournament_open_check_in(tournament_id=tournament.pk, actor=director)
    checked = client.post(f"/api/tournaments/{tournament.pk}/check-in/").json()
    assert checked["checked_in"] is True
    client.post(f"/api/tournaments/{tournament.pk}/withdraw/")
    assert Entry.objects.get(player=player).status == EntryStatus.WITHDRAWN


def test_report_and_confirm_over_the_api(make_tournament):
    tournament = make_tournament(2, start=True, over_the_board=True)
    (row,) = open_pairings(tournament)
    assert row.entry_a and row.entry_b
    base = f"/api/tournaments/{tournament.pk}/pairings/{row.pk}"
    wrong = api_as(row.entry_b.player).post(f"{base}/report/", {"winner": row.entry_a_id})
    assert wrong.status_code == 403 and wrong.json()["error"] == "not_the_winner"
    winner = api_as(row.entry_a.player)
    reported = winner.post(f"{base}/report/", {"winner": row.entry_a_id, "winner_points": 1,
                                               "loser_points": 0}, format="json")
    assert reported.status_code == 200 and reported.json()["reported"] is True
    own = winner.post(f"{base}/confirm/")
    assert own.status_code == 403 and own.json()["error"] == "own_report"
    confirmed = api_as(row.entry_b.player).post(f"{base}/confirm/")
    assert confirmed.status_code == 200 and confirmed.json()["status"] == "decided"
    assert confirmed.json()["a"]["points"] == 1


@pytest.fixture
async def close_consumer_connections():
    """The consumer queries from asgiref's shared thread: close that thread's connection so
    the test database can be dropped (PostgreSQL refuses while one is open)."""
    yield
    await database_sync_to_async(connections.close_all)()


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("close_consumer_connections")
async def test_the_socket_announces_changes(make_tournament, director):
    from tavla.site.asgi import application
    from tournaments import services

    tournament = await sync_to_async(make_tournament)(2)
    communicator = WebsocketCommunicator(application, f"/ws/tournaments/{tournament.pk}/",
                                         headers=[(b"origin", b"http://localhost")])
    connected, _ = await communicator.connect()
    assert connected
    await communicator.send_json_to({"type": "ping"})
    assert await communicator.receive_json_from() == {"type": "pong"}
    await sync_to_async(services.tournament_start)(tournament_id=tournament.pk, actor=director)
    message = await communicator.receive_json_from(timeout=5)
    assert message == {"type": "tournament.changed", "tournament_id": tournament.pk}
    await communicator.disconnect()
    missing = WebsocketCommunicator(application, "/ws/tournaments/999999/",
                                    headers=[(b"origin", b"http://localhost")])
    connected, _ = await missing.connect()
    assert connected  # accepted, then closed with the code (a refused handshake hides it)
    assert await missing.receive_output(timeout=5) == {"type": "websocket.close", "code": 4404}


def test_the_api_shows_the_no_show_limit_and_the_late_penalty(client, make_tournament):
    tournament = make_tournament(2, start=True, late_penalty_points=1,
                                 late_penalty_minutes=5)
    data = client.get(f"/api/tournaments/{tournament.pk}/").json()
    assert data["no_show_minutes"] == 15
    assert data["late_penalty"] == {"points": 1, "per_minutes": 5}
