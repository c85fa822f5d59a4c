"""Players learn of their pairings at once: live over /ws/notices/, on the home page and in
the lobby ("Your match ... against X"), whose reserved table offers them "Sit"; and the
bracket marks a player who sat down."""

from __future__ import annotations

import json

import pytest
from asgiref.sync import sync_to_async
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.db import connections
from django.test import Client
from rest_framework.authtoken.models import Token

from matches import services as match_services
from matches.selectors import lobby_tables
from tests.tournaments.conftest import open_pairings, play_match
from tournaments import selectors

pytestmark = pytest.mark.django_db


@pytest.fixture
async def close_consumer_connections():
    yield
    await database_sync_to_async(connections.close_all)()


def socket(path: str, token: str | None = None) -> WebsocketCommunicator:
    from tavla.site.asgi import application

    headers = [(b"origin", b"http://localhost")]
    if token:
        headers.append((b"authorization", f"Token {token}".encode()))
    return WebsocketCommunicator(application, path, headers=headers)


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("close_consumer_connections")
async def test_both_players_hear_of_their_pairing_the_moment_it_is_made(
    make_tournament, make_player, director
):
    from tournaments import services

    alice, bob, carol = [await sync_to_async(make_player)(name) for name in ("alice", "bob",
                                                                              "carol")]
    tournament = await sync_to_async(make_tournament)([alice, bob])
    tokens = {p.display_name: (await sync_to_async(Token.objects.create)(user_id=p.user_id)).key
              for p in (alice, bob, carol)}
    sockets = {}
    for name, key in tokens.items():
        sockets[name] = socket("/ws/notices/", key)
        connected, _ = await sockets[name].connect()
        assert connected
        assert await sockets[name].receive_json_from() == {"type": "notices", "notices": []}
    anonymous = socket("/ws/notices/")
    connected, _ = await anonymous.connect()
    assert connected  # accepted, then closed with the code (a refused handshake hides it)
    assert await anonymous.receive_output(timeout=5) == {"type": "websocket.close", "code": 4401}

    await sync_to_async(services.tournament_start)(tournament_id=tournament.pk, actor=director)
    for me, opponent in (("alice", "bob"), ("bob", "alice")):
        message = await sockets[me].receive_json_from(timeout=5)
        while not message["notices"]:  # a save before the players were known
            message = await sockets[me].receive_json_from(timeout=5)
        (notice,) = message["notices"]
        assert notice["opponent"] == opponent
        assert notice["tournament"] == tournament.name
        assert notice["table_url"] == f"/tables/{notice['table_id']}/"
    assert await sockets["carol"].receive_nothing(timeout=0.3)

    # The match ends: the notice goes.
    (row,) = await sync_to_async(open_pairings)(tournament)
    await sync_to_async(play_match)(row, row.entry_b)
    for me in ("alice", "bob"):
        last = None
        while not await sockets[me].receive_nothing(timeout=0.5):
            last = await sockets[me].receive_json_from()
        assert last is not None and last["notices"] == []
    for communicator in sockets.values():
        await communicator.disconnect()


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("close_consumer_connections")
async def test_a_player_sitting_down_tells_the_tournament_page(make_tournament):
    tournament = await sync_to_async(make_tournament)(2, start=True)
    (row,) = await sync_to_async(open_pairings)(tournament)
    page = socket(f"/ws/tournaments/{tournament.pk}/")
    assert (await page.connect())[0]
    await sync_to_async(match_services.table_sit)(table_id=row.table_id,
                                                  player=row.entry_a.player)
    assert await page.receive_json_from(timeout=5) == {
        "type": "tournament.changed", "tournament_id": tournament.pk}
    await page.disconnect()
    bracket = await sync_to_async(selectors.bracket)(tournament)
    (pairing,) = bracket["brackets"][0]["rounds"][0]["pairings"]
    seated = {side["name"]: side["seated"] for side in (pairing["a"], pairing["b"])}
    assert seated == {row.entry_a.player.display_name: True,
                      row.entry_b.player.display_name: False}


def test_home_and_lobby_show_the_pairing_and_the_lobby_offers_its_players_a_seat(
    make_tournament, make_player
):
    alice, bob, carol = (make_player(name) for name in ("alice", "bob", "carol"))
    tournament = make_tournament([alice, bob], start=True)
    (row,) = open_pairings(tournament)
    for me, opponent in ((alice, "bob"), (bob, "alice")):
        client = Client()
        client.force_login(me.user)
        for url in ("/", "/lobby/"):
            page = client.get(url).content.decode()
            assert f"against {opponent}" in page, url
            assert f'href="/tables/{row.table_id}/"' in page
            assert "/ws/notices/" in page
    client = Client()
    client.force_login(carol.user)
    assert 'class="pairing-notice"' not in client.get("/").content.decode()
    assert "/ws/notices/" not in Client().get("/").content.decode()
    # The lobby's data says whom the table is kept for; lobby.js offers them "Sit".
    (listed,) = [t for t in lobby_tables() if t["id"] == row.table_id]
    assert listed["reserved"] and sorted(listed["reserved_for"]) == sorted([alice.pk, bob.pk])
    page = Client()
    page.force_login(alice.user)
    html = page.get("/lobby/").content.decode()
    assert f'data-player-id="{alice.pk}"' in html
    data = json.loads(html.split('id="lobby-data" type="application/json">')[1]
                      .split("</script>")[0])
    assert any(t["id"] == row.table_id and alice.pk in t["reserved_for"] for t in data)
