"""Pushed states reach a process's boards in one pass, the players' boards first.

After every change the service publishes the table's new public state once, to the table's
*states* group (:func:`matches.services.broadcast.states_group`). A web process does not put each of
its open boards in that group: it joins it once per table, with one channel of its own, and
hands each state it receives to its boards of that table in a plain loop, the two players'
boards before the spectators'. Each board adds its viewer's part and writes it
(:meth:`matches.live.consumers.TableConsumer.push`).

Why: through the channel layer, every board was a member of its own, and each state woke a
receive task per board and Channels' dispatch for it (three trips through the event loop
and a new task per board and message), in an order nobody chose: 88 µs of CPU per board on a
table with 400 spectators, 33 µs once handed over in one pass (``benchmarks/live_load.py``).
On a final watched by fifty spectators a player's board could be served last. Everything
else a table's boards are told (chat, an unknown change) still goes to the
table's group, board by board.

The boards of one event loop share one channel and one receive task, started with the first
board and stopped with the last (:meth:`Fanout.of`).
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
import weakref
from typing import Any, Protocol

from channels.layers import get_channel_layer

from matches.services.broadcast import states_group
from tavla import metrics

logger = logging.getLogger(__name__)


class Board(Protocol):
    """What the fan-out needs of an open board (the table consumer)."""

    table_id: int

    @property
    def viewer_id(self) -> int | None: ...

    async def push(self, message: dict[str, Any]) -> None: ...


class Fanout:
    """The open boards of one event loop by table, and the task that serves them."""

    _by_loop: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, Fanout] = (
        weakref.WeakKeyDictionary())

    def __init__(self) -> None:
        self.layer: Any = get_channel_layer()
        self.tables: dict[int, dict[Board, None]] = {}  # insertion-ordered sets
        self.channel: str | None = None
        self.task: asyncio.Task[None] | None = None
        # Boards open and close concurrently: one at a time creates the channel and the
        # task or changes a group (two boards once made two channels, one never read).
        self.changing = asyncio.Lock()

    @classmethod
    def of(cls, loop: asyncio.AbstractEventLoop) -> Fanout:
        fanout = cls._by_loop.get(loop)
        if fanout is None:
            fanout = cls._by_loop[loop] = cls()
        return fanout

    async def join(self, board: Board) -> None:
        """Serve ``board`` the states of its table from now on."""
        async with self.changing:
            await self._join(board)

    async def leave(self, board: Board) -> None:
        async with self.changing:
            await self._leave(board)

    async def _join(self, board: Board) -> None:
        if self.channel is None:
            self.channel = await self.layer.new_channel("boards.")
        if self.task is None or self.task.done():
            self.task = asyncio.get_running_loop().create_task(
                self._receive(self.channel), name="board-states",
                context=contextvars.Context())  # serves every board: no one socket's log ids
        boards = self.tables.get(board.table_id)
        if boards is None:
            boards = self.tables[board.table_id] = {}
            boards[board] = None
            await self.layer.group_add(states_group(board.table_id), self.channel)
        else:
            boards[board] = None

    async def _leave(self, board: Board) -> None:
        boards = self.tables.get(board.table_id)
        if boards is None or board not in boards:
            return
        del boards[board]
        if not boards:
            del self.tables[board.table_id]
            if self.channel is not None:
                await self.layer.group_discard(states_group(board.table_id), self.channel)
        if not self.tables and self.task is not None:
            # A cancelled receive unsubscribes its channel (channels_redis): the next board
            # starts with a new one.
            self.task.cancel()
            self.task, self.channel = None, None

    def forget(self, board: Board) -> None:
        """Drop ``board`` at once, from code that cannot wait (a consumer that ended without
        its ``disconnect``): its table's group is left, if it was the last board, by a task."""
        boards = self.tables.get(board.table_id)
        if boards is not None and board in boards:
            del boards[board]
            if not boards:
                asyncio.get_running_loop().create_task(self._leave_empty(board.table_id))

    async def _leave_empty(self, table_id: int) -> None:
        async with self.changing:
            if not self.tables.get(table_id, True):
                del self.tables[table_id]
                if self.channel is not None:
                    await self.layer.group_discard(states_group(table_id), self.channel)

    async def _receive(self, channel: str) -> None:
        while True:
            message = await self.layer.receive(channel)
            try:
                await self.deliver(message)
            except Exception:  # noqa: BLE001 - one bad message must not stop every board
                metrics.record_error("socket")
                logger.exception("fan-out: could not deliver a %r message", message.get("type"))

    async def deliver(self, message: dict[str, Any]) -> None:
        """Hand ``message`` (a :func:`matches.selectors.pushed_state`) to every board of its
        table in this loop: the match's two players first."""
        boards = self.tables.get(message["head"]["table_id"])
        if not boards:
            return
        players = message["head"]["player_ids"]
        ordered = sorted(boards, key=lambda board: board.viewer_id not in players)  # stable
        for board in ordered:
            try:
                await board.push(message)
            except Exception:  # noqa: BLE001 - the other boards still get the state
                metrics.record_error("socket")
                logger.exception("fan-out: a board of table %s failed", board.table_id)
        metrics.PUSHES.inc(len(ordered))
