"""Casual play over the table socket, through the real ASGI stack: a takeback asked and
accepted (refused on a rated table), the play settings, quick chat phrases, and a board's
chat rooms following the seats."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from asgiref.sync import sync_to_async

from matches import services
from matches.models import ChatMessage, Match, Player
from tests.matches.test_consumer import (  # noqa: F401 - the autouse fixture closes connections
    _close_consumer_connections,
    board,
    receive,
    receive_version,
)

pytestmark = [pytest.mark.django_db(transaction=True)]


def opened(start_match: Callable[..., Match], **rules: object) -> Match:
    """Seat 0 opens 3-1; the server rolls 6-4 for seat 1 after seat 0's play (no cube)."""
    match = start_match(dice=[[3, 1], [6, 4], [5, 2]], cube_enabled=False, **rules)
    return Match.objects.select_related("player0__user", "player1__user").get(pk=match.pk)


async def test_a_takeback_is_asked_and_accepted_over_the_socket(
        start_match: Callable[..., Match]) -> None:
    match = await sync_to_async(opened)(start_match, is_rated=False)
    async with board(match.table_id, match.player0) as asker, \
            board(match.table_id, match.player1) as answerer:
        first = await receive(asker)
        await receive(answerer)
        await asker.send_json_to({"type": "action", "action": "play", "play": "8/5 6/5",
                                  "expected_version": first["version"]})
        played = await receive_version(answerer, first["version"] + 1)
        assert played["dice"] == [6, 4] and played["takeback"] is None
        await asker.send_json_to({"type": "takeback", "answer": "request"})
        asked = await receive_version(answerer, played["version"] + 1)
        assert asked["takeback"] == {"asked_by": 0}
        await answerer.send_json_to({"type": "takeback", "answer": "accept"})
        back = await receive_version(asker, asked["version"] + 1)
        assert back["takeback"] is None and back["player_to_act"] == 0
        assert back["dice"] == [3, 1] and back["legal_plays"]
        assert back["board"] == first["board"]
        # Answering again: nothing to answer, nothing changes.
        await answerer.send_json_to({"type": "takeback", "answer": "accept", "ref": 7})
        error = await receive(answerer, "error")
        assert error["error"] == "no_takeback" and error["ref"] == 7


async def test_a_takeback_on_a_rated_table_is_refused(start_match: Callable[..., Match]) -> None:
    match = await sync_to_async(opened)(start_match, is_rated=True)
    async with board(match.table_id, match.player0) as asker:
        first = await receive(asker)
        await asker.send_json_to({"type": "action", "action": "play", "play": "8/5 6/5",
                                  "expected_version": first["version"]})
        played = await receive_version(asker, first["version"] + 1)
        await asker.send_json_to({"type": "takeback", "answer": "request"})
        assert (await receive(asker, "error"))["error"] == "takeback_rated"
        await asker.send_json_to({"type": "sync"})
        assert (await receive(asker))["version"] == played["version"]


async def test_preferences_over_the_socket(start_match: Callable[..., Match]) -> None:
    match = await sync_to_async(opened)(start_match, is_rated=False)
    async with board(match.table_id, match.player1) as player:
        first = await receive(player)
        await player.send_json_to({"type": "preferences", "auto_roll": True, "ref": "p"})
        assert await receive(player, "preferences") == {"type": "preferences", "ref": "p",
                                                         "auto_roll": True}
        await player.send_json_to({"type": "never_double", "on": True})
        state = await receive_version(player, first["version"] + 1)
        assert state["never_double"] == [1]
        assert state["players"][1]["auto_roll"] is True
        await player.send_json_to({"type": "never_double", "on": "yes"})
        assert (await receive(player, "error"))["error"] == "bad_request"
    async with board(match.table_id) as watcher:
        await receive(watcher)
        await watcher.send_json_to({"type": "preferences", "auto_roll": True})
        assert (await receive(watcher, "error"))["error"] == "not_authenticated"


async def test_a_quick_phrase_goes_by_its_code(start_match: Callable[..., Match]) -> None:
    match = await sync_to_async(opened)(start_match, is_rated=False)
    async with board(match.table_id, match.player0) as writer, \
            board(match.table_id, match.player1) as reader:
        await receive(writer, "chat_history")
        await receive(reader, "chat_history")
        await writer.send_json_to({"type": "chat", "phrase": "good_luck"})
        message = (await receive(reader, "chat"))["message"]
        assert message["phrase"] == "good_luck" and message["text"] == "Good luck!"
        await writer.send_json_to({"type": "chat", "phrase": "insult", "ref": "chat"})
        assert (await receive(writer, "error"))["error"] == "bad_request"
    assert await sync_to_async(ChatMessage.objects.filter(phrase="good_luck").count)() == 1


async def test_an_open_board_follows_the_players_room_to_new_players(
        start_match: Callable[..., Match], make_player: Callable[..., Player]) -> None:
    match = await sync_to_async(opened)(start_match, is_rated=False, match_length=1)
    newcomer, other = await sync_to_async(make_player)(), await sync_to_async(make_player)()
    await sync_to_async(services.match_act)(match_id=match.pk, player=match.player0,
                                            action="resign", expected_version=match.version)
    async with board(match.table_id, match.player0) as old_player, \
            board(match.table_id, newcomer) as new_player:
        await receive(old_player, "chat_history")
        await receive(new_player, "chat_history")
        # The match is over and the table free: two new players sit and start a match.
        await new_player.send_json_to({"type": "sit"})
        await sync_to_async(services.table_sit)(table_id=match.table_id, player=other)
        # The old player's open board learns it has left the players' room...
        await receive(old_player, "chat_history")
        await new_player.send_json_to({"type": "chat", "text": "hello opponent"})
        message = (await receive(new_player, "chat"))["message"]
        assert message["room"] == "players"
        # ... so it does not get the new players' message: what it gets is the new match.
        while not await old_player.receive_nothing(timeout=1):
            got = await old_player.receive_json_from()
            assert got["type"] != "chat", got
