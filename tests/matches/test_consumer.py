"""The table WebSocket end to end through the real ASGI stack and the real Redis channel layer.

Each board is a :class:`WebsocketCommunicator` on ``tavla.site.asgi.application`` (origin check,
session authentication, routing), so these tests see what a browser sees.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.db import connections
from django.test import Client

from matches.live import socket_db
from matches.models import Match, Player
from matches.services import presence
from tavla.site.asgi import application

pytestmark = [pytest.mark.django_db(transaction=True)]

ORIGIN = (b"origin", b"http://localhost")


def session_cookie(player: Player | None) -> list[tuple[bytes, bytes]]:
    if player is None:
        return []
    client = Client()
    client.force_login(player.user)
    return [(b"cookie", f"sessionid={client.cookies['sessionid'].value}".encode())]


def close_db_connections() -> None:
    """Close the database connection of every thread of the consumers' pool (before the
    test database is dropped). Blocks until each thread has run once."""
    barrier = threading.Barrier(socket_db.DB_THREADS)

    def close() -> None:
        barrier.wait(timeout=10)
        connections.close_all()

    pool = socket_db._db_pool
    for future in [pool.submit(close) for _ in range(socket_db.DB_THREADS)]:
        future.result(timeout=15)


@pytest.fixture(autouse=True)
async def _close_consumer_connections() -> AsyncIterator[None]:
    """Consumers query from their own thread pool; close those threads' connections so the
    test database can be dropped at the end (PostgreSQL refuses while one is open)."""
    yield
    await database_sync_to_async(connections.close_all)()
    await asyncio.get_running_loop().run_in_executor(None, close_db_connections)


@asynccontextmanager
async def board(table_id: int, player: Player | None = None,
                path: str | None = None) -> AsyncIterator[WebsocketCommunicator]:
    headers = [ORIGIN, *(await sync_to_async(session_cookie)(player))]
    communicator = WebsocketCommunicator(application, path or f"/ws/tables/{table_id}/",
                                         headers=headers)
    connected, _ = await communicator.connect(timeout=5)
    assert connected
    try:
        yield communicator
    finally:
        await communicator.disconnect()


async def receive(communicator: WebsocketCommunicator, type_: str = "state",
                  timeout: float = 5) -> dict[str, Any]:
    """The next message of ``type_`` (skipping others, e.g. a state sent while waiting)."""
    deadline = asyncio.get_running_loop().time() + timeout
    while True:
        left = deadline - asyncio.get_running_loop().time()
        message: dict[str, Any] = await communicator.receive_json_from(timeout=max(left, 0.01))
        if message["type"] == type_:
            return message


async def receive_version(communicator: WebsocketCommunicator, version: int) -> dict[str, Any]:
    while True:
        state = await receive(communicator)
        if state["version"] >= version:
            return state


@pytest.fixture
def opening_match(start_match: Callable[..., Match]) -> Match:
    # Player 0 wins the opening roll with 3-1; player 1's next roll is 6-4.
    match = start_match(dice=[[3, 1], [6, 4], [5, 2]], match_length=3, cube_enabled=False)
    # Loaded here, in sync code: the async tests only read attributes.
    return Match.objects.select_related("player0__user", "player1__user").get(pk=match.pk)


async def test_connect_sends_the_full_state_with_legal_plays_only_to_the_player_on_roll(
        opening_match: Match) -> None:
    match = opening_match
    async with board(match.table_id, match.player0) as mover, \
            board(match.table_id, match.player1) as waiting, board(match.table_id) as watcher:
        mine, theirs, public = (await receive(mover), await receive(waiting),
                                await receive(watcher))
    assert mine["match_id"] == match.pk and mine["version"] == match.version
    assert mine["your_seat"] == 0 and theirs["your_seat"] == 1 and public["your_seat"] is None
    assert mine["dice"] == [3, 1] and mine["player_to_act"] == 0
    assert "8/5 6/5" in {play["notation"] for play in mine["legal_plays"]}
    assert theirs["legal_plays"] is None and public["legal_plays"] is None
    assert mine["board"] == public["board"] and mine["table"]["seats"][0]["id"] == match.player0_id
    assert mine["table"]["rules"]["match_length"] == 3


async def test_a_play_reaches_the_opponent_and_a_spectator(opening_match: Match) -> None:
    match = opening_match
    async with board(match.table_id, match.player0) as mover, \
            board(match.table_id, match.player1) as opponent, \
            board(match.table_id) as watcher:
        first = await receive(mover)
        await receive(opponent)
        await receive(watcher)
        await mover.send_json_to({"type": "action", "action": "play", "play": "8/5 6/5",
                                  "expected_version": first["version"]})
        theirs = await receive_version(opponent, first["version"] + 1)
        public = await receive_version(watcher, first["version"] + 1)
        mine = await receive_version(mover, first["version"] + 1)
    # Player 1 rolled 6-4 automatically (no cube at this table) and must now play it.
    assert theirs["player_to_act"] == 1 and theirs["dice"] == [6, 4]
    assert theirs["legal_plays"] and mine["legal_plays"] is None
    assert public["legal_plays"] is None and public["board"] == theirs["board"]
    assert public["board"]["points"][4] == 2  # player 0's new point on their 5
    assert public["games"][0]["events"][-2] == {"type": "play", "player": 0, "dice": [3, 1],
                                                "play": "8/5 6/5"}


async def test_a_spectator_can_do_nothing(opening_match: Match,
                                          make_player: Callable[..., Player]) -> None:
    match = opening_match
    stranger = await sync_to_async(make_player)()
    async with board(match.table_id, stranger) as member, board(match.table_id) as anonymous:
        state = await receive(member)
        await receive(anonymous)
        for watcher, code in ((member, "not_a_player"), (anonymous, "not_authenticated")):
            await watcher.send_json_to({"type": "action", "action": "play", "play": "8/5 6/5",
                                        "expected_version": state["version"], "ref": 7})
            error = await receive(watcher, "error")
            assert error["error"] == code and error["ref"] == 7 and error["detail"]
        await anonymous.send_json_to({"type": "sit"})
        assert (await receive(anonymous, "error"))["error"] == "not_authenticated"
        await member.send_json_to({"type": "sit"})
        assert (await receive(member, "error"))["error"] == "table_full"
    refreshed = await sync_to_async(Match.objects.get)(pk=match.pk)
    assert refreshed.version == match.version and refreshed.snapshot == match.snapshot


async def test_a_stale_version_and_malformed_messages_are_refused(opening_match: Match) -> None:
    match = opening_match
    async with board(match.table_id, match.player0) as mover:
        state = await receive(mover)
        await mover.send_json_to({"type": "action", "action": "play", "play": "8/5 6/5",
                                  "expected_version": state["version"] - 1})
        assert (await receive(mover, "error"))["error"] == "stale_version"
        await mover.send_json_to({"type": "action", "action": "play", "play": "24/18",
                                  "expected_version": state["version"]})
        assert (await receive(mover, "error"))["error"] == "illegal_action"
        await mover.send_json_to({"type": "action", "action": "play", "play": "8/5 6/5"})
        assert (await receive(mover, "error"))["error"] == "bad_request"
        await mover.send_json_to({"type": "dance"})
        assert (await receive(mover, "error"))["error"] == "unknown_type"
        await mover.send_to(text_data="not json")
        assert (await receive(mover, "error"))["error"] == "bad_request"
        assert await mover.receive_nothing(timeout=0.2)
    refreshed = await sync_to_async(Match.objects.get)(pk=match.pk)
    assert refreshed.version == match.version and refreshed.snapshot == match.snapshot


async def test_reconnecting_gives_the_same_state_and_sync_resends_it(opening_match: Match) -> None:
    match = opening_match
    async with board(match.table_id, match.player0) as mover:
        before = await receive(mover)
        await mover.send_json_to({"type": "action", "action": "play", "play": "8/5 6/5",
                                  "expected_version": before["version"]})
        after = await receive_version(mover, before["version"] + 1)
    async with board(match.table_id, match.player0) as again:
        reloaded = await receive(again)
        await again.send_json_to({"type": "sync"})
        synced = await receive(again)
    for state in (after, reloaded, synced):
        state.pop("server_time")
        for player in state["players"]:
            player.pop("reserve")
    assert reloaded == after == synced


async def test_a_ping_is_answered_with_a_pong_and_changes_nothing(opening_match: Match) -> None:
    match = opening_match
    async with board(match.table_id, match.player0) as mover, \
            board(match.table_id) as spectator:
        state = await receive(mover)
        await receive(spectator)
        for board_ in (mover, spectator):  # after the state, a board gets the chat so far
            await receive(board_, "chat_history")
        await mover.send_json_to({"type": "ping"})
        assert await mover.receive_json_from(timeout=5) == {"type": "pong"}
        await spectator.send_json_to({"type": "ping", "ref": 7})
        assert await spectator.receive_json_from(timeout=5) == {"type": "pong", "ref": 7}
        # nothing else was sent, and the match did not move
        assert await mover.receive_nothing(timeout=0.3)
        await mover.send_json_to({"type": "sync"})
        assert (await receive(mover))["version"] == state["version"]


async def test_sitting_down_over_the_socket_starts_the_match(
        make_player: Callable[..., Player]) -> None:
    from matches import services

    first, second = await sync_to_async(make_player)(), await sync_to_async(make_player)()
    table = await sync_to_async(services.table_create)(name="Live", match_length=1)
    async with board(table.pk, first) as one, board(table.pk, second) as two:
        empty = await receive(one, "table")
        assert empty["table"]["seats"] == [None, None] and empty["match_id"] is None
        await receive(two, "table")
        await one.send_json_to({"type": "sit"})
        seated = await receive(two, "table")
        assert seated["table"]["seats"][0]["id"] == first.pk
        assert await sync_to_async(presence.is_connected)(table_id=table.pk, player_id=first.pk)
        await two.send_json_to({"type": "sit"})
        started = await receive(one)
        assert started["status"] == "playing" and started["your_seat"] == 0
        assert started["table"]["playing"] is True
    assert not await sync_to_async(presence.is_connected)(table_id=table.pk, player_id=first.pk)


async def test_an_unknown_table_closes_the_socket() -> None:
    communicator = WebsocketCommunicator(application, "/ws/tables/999999/", headers=[ORIGIN])
    connected, _ = await communicator.connect(timeout=5)
    assert connected
    error = await communicator.receive_json_from(timeout=5)
    assert error["type"] == "error" and error["error"] == "not_found"  # REST's 404
    output = await communicator.receive_output(timeout=5)
    assert output == {"type": "websocket.close", "code": 4404}


async def test_a_foreign_origin_is_refused(opening_match: Match) -> None:
    communicator = WebsocketCommunicator(application, f"/ws/tables/{opening_match.table_id}/",
                                         headers=[(b"origin", b"http://evil.example")])
    connected, _ = await communicator.connect(timeout=5)
    assert not connected
    await communicator.wait(timeout=0.1)  # the refusing app waits for nothing more


async def test_the_lobby_hears_about_new_tables_and_seats(
        make_player: Callable[..., Player]) -> None:
    from matches import services

    player = await sync_to_async(make_player)()
    async with board(0, path="/ws/lobby/") as lobby:
        first = await receive(lobby, "lobby")
        table = await sync_to_async(services.table_create)(name="Fresh", match_length=5)
        listed = await receive(lobby, "lobby")
        assert listed["tables"][0]["name"] == "Fresh"
        assert len(listed["tables"]) == len(first["tables"]) + 1
        await sync_to_async(services.table_sit)(table_id=table.pk, player=player)
        seated = await receive(lobby, "lobby")
        assert seated["tables"][0]["seats"][0]["name"] == player.display_name
        assert seated["tables"][0]["rules"]["match_length"] == 5
        # The heartbeat every client sends (docs/protocol.md) is answered here too.
        await lobby.send_json_to({"type": "ping", "ref": 3})
        assert await receive(lobby, "pong") == {"type": "pong", "ref": 3}
        await lobby.send_json_to({"type": "castle"})
        assert (await receive(lobby, "error"))["error"] == "unknown_type"


async def test_a_bot_can_use_its_api_token_instead_of_a_session(opening_match: Match) -> None:
    from rest_framework.authtoken.models import Token

    token = await sync_to_async(Token.objects.create)(user=opening_match.player0.user)
    communicator = WebsocketCommunicator(
        application, f"/ws/tables/{opening_match.table_id}/",
        headers=[ORIGIN, (b"authorization", f"Token {token.key}".encode())])
    connected, _ = await communicator.connect(timeout=5)
    assert connected
    state = await receive(communicator)
    assert state["your_seat"] == 0 and state["legal_plays"]
    await communicator.send_json_to({"type": "action", "action": "play", "play": "8/5 6/5",
                                     "expected_version": state["version"]})
    assert (await receive_version(communicator, state["version"] + 1))["player_to_act"] == 1
    await communicator.disconnect()


async def test_an_unknown_change_sent_to_the_table_resends_the_state(opening_match: Match) -> None:
    from channels.layers import get_channel_layer

    from matches.services.broadcast import table_group

    async with board(opening_match.table_id, opening_match.player0) as mover:
        first = await receive(mover)
        layer = get_channel_layer()
        await layer.group_send(table_group(opening_match.table_id), {"type": "clock.changed"})
        again = await receive(mover)
        await layer.group_send(table_group(opening_match.table_id), {"type": "mystery"})
        assert await mover.receive_nothing(timeout=0.3)
    assert again["version"] == first["version"] and again["legal_plays"]


async def test_check_clock_flags_only_a_deadline_that_has_passed(
        start_match: Callable[..., Match]) -> None:
    match = await sync_to_async(start_match)(
        dice=[[3, 1], [6, 4], [5, 2], [4, 2]], match_length=3, cube_enabled=False,
        clock_enabled=True, clock_delay=5, clock_reserve_per_point=60)
    async with board(match.table_id) as watcher:
        first = await receive(watcher)
        # The deadline is still a few minutes away: asking changes nothing.
        await watcher.send_json_to({"type": "check_clock"})
        await asyncio.sleep(0.3)
        assert (await sync_to_async(Match.objects.get)(pk=match.pk)).version == first["version"]
        # Push the deadline into the past, as if the player had walked away.
        await sync_to_async(Match.objects.filter(pk=match.pk).update)(
            deadline=await sync_to_async(_past)())
        await watcher.send_json_to({"type": "check_clock"})
        flagged = await receive_version(watcher, first["version"] + 1)
    assert flagged["score"] == [0, 1]  # player 0's flag fell: game lost, single × cube 1
    assert flagged["games"][0]["result"]["reason"] == "timeout"


def _past() -> Any:
    from datetime import timedelta

    from django.utils import timezone

    return timezone.now() - timedelta(seconds=1)
