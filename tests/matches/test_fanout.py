"""A process hands each pushed state to its boards of the table in one pass, the players'
boards first, and never before a board's greeting (``matches.live.fanout``)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from channels.layers import get_channel_layer

from matches import selectors
from matches.live.consumers import TableConsumer
from matches.live.fanout import Fanout
from matches.models import Match
from matches.services.broadcast import states_group
from tests.matches.test_consumer import (  # noqa: F401 - fixtures
    _close_consumer_connections,
    board,
    opening_match,
    receive,
)

pytestmark = [pytest.mark.django_db(transaction=True)]


class FakeBoard:
    def __init__(self, table_id: int, viewer_id: int | None, log: list[Any],
                 fail: bool = False) -> None:
        self.table_id, self._viewer_id, self.log, self.fail = table_id, viewer_id, log, fail

    @property
    def viewer_id(self) -> int | None:
        return self._viewer_id

    async def push(self, message: dict[str, Any]) -> None:
        if self.fail:
            raise RuntimeError("a broken board")
        self.log.append((self.viewer_id, message["head"]["version"]))


def state_message(table_id: int, version: int, player_ids: list[int],
                  match_id: int = 1) -> dict[str, Any]:
    # The players sit in the seats, as in a real state: a board whose seats changed would
    # read its chat rooms again (matches.chat.socket) and send a chat_history.
    public = {"type": "state", "match_id": match_id, "table_id": table_id, "version": version,
              "status": "playing", "players": [{"id": pid} for pid in player_ids],
              "table": {"id": table_id, "seats": [{"id": pid} for pid in player_ids]},
              "player_to_act": 0, "dice": None}
    return selectors.pushed_state("match.state", public, None)


async def test_the_players_boards_are_served_before_the_spectators() -> None:
    fanout, log = Fanout(), []
    table = 990_001
    boards = [FakeBoard(table, None, log), FakeBoard(table, 7, log),
              FakeBoard(table, 9, log, fail=True), FakeBoard(table, 9, log),
              FakeBoard(table, 5, log), FakeBoard(table + 1, 5, log)]
    for each in boards:
        await fanout.join(each)
    try:
        await fanout.deliver(state_message(table, 3, [5, 9]))
        # Both players (one of them with a broken second board), in the order they came;
        # then the spectators; nobody at the other table.
        assert log == [(9, 3), (5, 3), (None, 3), (7, 3)]
    finally:
        for each in boards:
            await fanout.leave(each)
    assert fanout.task is None and not fanout.tables


async def test_a_state_sent_to_the_tables_states_group_reaches_its_boards_once() -> None:
    fanout, log = Fanout.of(asyncio.get_running_loop()), []
    table = 990_003
    boards = [FakeBoard(table, 5, log), FakeBoard(table, None, log)]
    for each in boards:
        await fanout.join(each)
    try:
        await get_channel_layer().group_send(states_group(table),
                                             state_message(table, 4, [5, 6]))
        for _ in range(100):
            if len(log) == 2:
                break
            await asyncio.sleep(0.02)
        assert log == [(5, 4), (None, 4)]
        task = fanout.task
    finally:
        for each in boards:
            await fanout.leave(each)
    assert fanout.task is None and task is not None
    await asyncio.wait([task], timeout=5)  # its channel unsubscribes on the way out
    assert task.cancelled()


async def test_a_state_pushed_during_the_greeting_follows_it(
        opening_match: Match,  # noqa: F811 - the fixture imported above
        monkeypatch: pytest.MonkeyPatch) -> None:
    match = opening_match
    real_send_state = TableConsumer.send_state

    async def send_state_then_a_push(self: TableConsumer) -> None:
        await real_send_state(self)
        if self.fanout is not None and self.held is not None:  # still greeting
            await self.fanout.deliver(state_message(match.table_id, match.version + 1,
                                                    [match.player0_id, match.player1_id],
                                                    match.pk))

    monkeypatch.setattr(TableConsumer, "send_state", send_state_then_a_push)
    async with board(match.table_id) as watcher:
        kinds = []
        for _ in range(3):
            message = await watcher.receive_json_from(timeout=5)
            kinds.append((message["type"], message.get("version")))
    assert kinds == [("state", match.version), ("chat_history", None),
                     ("state", match.version + 1)]


async def test_a_sync_read_before_a_newer_push_is_not_sent_after_it(
        opening_match: Match) -> None:  # noqa: F811 - the fixture imported above
    match = opening_match
    async with board(match.table_id) as watcher:
        first = await receive(watcher)
        newer = state_message(match.table_id, first["version"] + 5,
                              [match.player0_id, match.player1_id], match.pk)
        await Fanout.of(asyncio.get_running_loop()).deliver(newer)
        assert (await receive(watcher))["version"] == first["version"] + 5
        await watcher.send_json_to({"type": "sync"})
        # The database still says first["version"]: older than what the board shows.
        assert await watcher.receive_nothing(timeout=0.5)


async def test_boards_opening_at_once_share_one_channel_that_is_read() -> None:
    fanout, log = Fanout(), []
    boards = [FakeBoard(990_010 + n, None, log) for n in range(6)]
    await asyncio.gather(*(fanout.join(each) for each in boards))
    try:
        layer = get_channel_layer()
        for each in boards:
            await layer.group_send(states_group(each.table_id),
                                   state_message(each.table_id, each.table_id, [1, 2]))
        for _ in range(100):
            if len(log) == len(boards):
                break
            await asyncio.sleep(0.02)
        assert sorted(version for _, version in log) == [each.table_id for each in boards]
    finally:
        await asyncio.gather(*(fanout.leave(each) for each in boards))


async def test_a_board_that_ended_without_disconnect_is_forgotten() -> None:
    fanout, log = Fanout(), []
    table = 990_020
    gone, staying = FakeBoard(table, None, log), FakeBoard(table + 1, None, log)
    await fanout.join(gone)
    await fanout.join(staying)
    try:
        fanout.forget(gone)
        await asyncio.sleep(0.2)  # the empty table's group is left by a task
        assert table not in fanout.tables and fanout.tables == {table + 1: {staying: None}}
        await fanout.deliver(state_message(table, 1, [1, 2]))
        assert log == []
    finally:
        await fanout.leave(staying)
