"""The players of ``make multihost``: WebSocket clients through the proxy, over TLS.

Run as a process of its own on the client host (``python -m deploy.multihost.bots``); it
needs no Django, only ``docs/protocol.md``. It reads its assignment as one JSON line on
stdin (the site's URL, the CA file, the think time and the tables with their two players'
session keys), then commands, one JSON line each:

``{"cmd": "stall", "tables": [...]}`` — the players of those tables walk away (no action);
``{"cmd": "resume"}`` — they come back; ``{"cmd": "stop"}`` — close every socket and end.

It writes events as JSON lines on stdout, each with its wall-clock time ``t``: ``greeted``
(a board has its first state on a new connection: ``table``, ``seat``, ``connection``),
``closed`` (a board's connection ended), ``ack`` (a player's own action came back applied:
``match``, ``version``), ``error`` (the server refused something: ``error``) and, at the
end, ``summary`` (the highest version each board saw of each match, and counts).

A board reconnects at once when its connection ends, after 0.2-0.5 s and doubling up to 2 s
while refused, and acts again on the state it is greeted with: nothing it sent before is
assumed to have arrived (``expected_version`` makes a repeat harmless).
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import ssl
import sys
import time
from collections import Counter
from typing import Any

import orjson
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidURI


def emit(event: str, **fields: Any) -> None:
    sys.stdout.write(json.dumps({"ev": event, "t": time.time(), **fields}) + "\n")
    sys.stdout.flush()


class Board:
    """One player's board: a socket to its table, kept open through failures."""

    def __init__(self, game: Game, table: int, seat: int, session: str) -> None:
        self.game, self.table, self.seat, self.session = game, table, seat, session
        self.ws: ClientConnection | None = None
        self.last: dict[str, Any] | None = None
        self.acted: tuple[int, int] | None = None
        self.seeded_for: int | None = None
        self.sat_for: int | None = None
        self.connections = 0

    async def run(self) -> None:
        game = self.game
        delay = 0.2
        while not game.stopping.is_set():
            reason = "ended"
            try:
                async with connect(
                        f"{game.url.replace('https://', 'wss://')}/ws/tables/{self.table}/",
                        ssl=game.tls, origin=game.url,  # type: ignore[arg-type]
                        additional_headers={"Cookie": f"sessionid={self.session}"},
                        open_timeout=30, ping_interval=None, max_size=None) as ws:
                    self.ws, self.connections = ws, self.connections + 1
                    # A new connection: whatever was sent on the old one may be lost.
                    self.acted = self.seeded_for = self.sat_for = None
                    greeted = False
                    async for raw in ws:
                        message = orjson.loads(raw)
                        if message.get("type") == "state" and not greeted:
                            greeted, delay = True, 0.2
                            emit("greeted", table=self.table, seat=self.seat,
                                 connection=self.connections)
                        self.on_message(message)
            except ConnectionClosed as closed:
                reason = f"closed {closed.rcvd.code if closed.rcvd else 'without a frame'}"
            except (OSError, InvalidHandshake, InvalidURI, TimeoutError) as error:
                reason = f"{type(error).__name__}: {error}"[:120]
            self.ws = None
            if game.stopping.is_set():
                return
            emit("closed", table=self.table, seat=self.seat, reason=reason)
            await asyncio.sleep(delay * random.uniform(1.0, 2.5))
            delay = min(delay * 2, 2.0)

    def on_message(self, message: dict[str, Any]) -> None:
        kind = message.get("type")
        if kind == "error":
            self.game.errors[message.get("error", "?")] += 1
            emit("error", table=self.table, seat=self.seat, error=message.get("error"))
            # Refused (stale, busy, the database away): look at the latest state again soon.
            self.acted = None
            if self.last is not None:
                asyncio.get_running_loop().call_later(1.0, self.consider, self.last)
        elif kind == "state":
            match_id, version = message["match_id"], message["version"]
            seen = self.game.seen
            seen[match_id] = max(seen.get(match_id, 0), version)
            if self.acted == (match_id, version - 1):
                emit("ack", match=match_id, version=version)
            self.last = message
            self.consider(message)

    def consider(self, state: dict[str, Any]) -> None:
        """Act on ``state`` if it is still the latest and this player is to act."""
        if state is not self.last or self.ws is None:
            return
        match_id, version = state["match_id"], state["version"]
        seeds = state.get("client_seeds") or {}
        seat = state.get("your_seat")
        if (seeds.get("open") and seat is not None and not seeds["sent"][seat]
                and self.seeded_for != match_id):
            self.seeded_for = match_id
            self.send({"type": "client_seed", "seed": os.urandom(32).hex()})
        if state["status"] == "playing":
            if (state["player_to_act"] == seat and self.acted != (match_id, version)
                    and self.table not in self.game.stalled):
                self.acted = (match_id, version)
                asyncio.get_running_loop().call_later(
                    self.game.think * random.uniform(0.5, 1.5), self.act, state)
            return
        seated = any(s and s["id"] == state["viewer_id"] for s in state["table"]["seats"])
        if not seated and self.sat_for != match_id:
            self.sat_for = match_id
            asyncio.get_running_loop().call_later(
                random.uniform(0.2, 1.0), self.send, {"type": "sit", "seat": self.seat})

    def act(self, state: dict[str, Any]) -> None:
        if state is not self.last or self.table in self.game.stalled:
            if self.acted == (state["match_id"], state["version"]):
                self.acted = None
                # A newer push of the same version (presence, a reconnect's greeting) came
                # while thinking: act on that one, or the table would wait forever.
                if self.last is not None and state is not self.last:
                    self.consider(self.last)
            return
        message: dict[str, Any] = {"type": "action", "expected_version": state["version"]}
        phase = state["phase"]
        if phase == "turn_start":
            message["action"] = "double" if (state["cube"]["may_double"]
                                             and random.random() < 0.03) else "roll"
        elif phase == "cube_offered":
            message["action"] = "take" if random.random() < 0.7 else "drop"
        elif phase == "move":
            message["action"] = "play"
            message["play"] = random.choice(state["legal_plays"])["notation"]
        else:
            return
        self.send(message)

    def send(self, message: dict[str, Any]) -> None:
        if self.ws is not None:
            asyncio.ensure_future(self._send(self.ws, orjson.dumps(message).decode()))

    @staticmethod
    async def _send(ws: ClientConnection, text: str) -> None:
        try:
            await ws.send(text)
        except ConnectionClosed:
            pass  # the board reconnects and acts on its greeting


class Game:
    def __init__(self, spec: dict[str, Any]) -> None:
        self.url: str = spec["url"]
        self.think: float = spec["think"]
        self.tls = ssl.create_default_context(cafile=spec["ca_file"])
        self.stopping = asyncio.Event()
        self.stalled: set[int] = set()
        self.seen: dict[int, int] = {}
        self.errors: Counter[str] = Counter()
        self.boards = [Board(self, table["id"], seat, session)
                       for table in spec["tables"]
                       for seat, session in enumerate(table["players"])]

    async def commands(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            line = await loop.run_in_executor(None, sys.stdin.readline)
            command: dict[str, Any] = json.loads(line) if line.strip() else {"cmd": "stop"}
            if command["cmd"] == "stall":
                self.stalled.update(command["tables"])
            elif command["cmd"] == "resume":
                self.stalled.clear()
                for board in self.boards:
                    board.acted = None
                    if board.last is not None:
                        board.consider(board.last)
            elif command["cmd"] == "stop":
                self.stopping.set()
                for board in self.boards:
                    if board.ws is not None:
                        await board.ws.close()
                return

    async def play(self) -> None:
        tasks = []
        for board in self.boards:  # arrive gradually, as people do
            tasks.append(asyncio.ensure_future(board.run()))
            await asyncio.sleep(0.02)
        await self.commands()
        await asyncio.gather(*tasks, return_exceptions=True)
        emit("summary", seen={str(k): v for k, v in self.seen.items()},
             errors=dict(self.errors),
             connections=sum(board.connections for board in self.boards))


def main() -> None:
    spec = json.loads(sys.stdin.readline())
    asyncio.run(Game(spec).play())


if __name__ == "__main__":
    main()
