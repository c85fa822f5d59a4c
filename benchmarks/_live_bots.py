"""The bots of ``live_load.py``: one process plays a share of the tables and watches them.

Run by ``live_load.py`` (never by ``make bench``: the leading underscore). It needs no Django:
a bot is a WebSocket client that knows only ``docs/protocol.md``. Each process reads its
assignment as a JSON line on stdin, opens every socket, and once each has had its whole
greeting (the state, then the chat history: the server is done with its arrival) prints
``ready``; then it reads the measurement window (a second JSON line: every process
measures the same seconds, and none before all sockets are open) and at the end writes its
results as JSON on stdout, including its own CPU time, so the report can show that the load
generator was not the limit.

Both players of a table are in the same process; the spectators of the crowded table are
shared among all the processes, as fifty people watching a final are fifty browsers: one
process reading all fifty pushes one after the other measured its own queue, not the server.
So a process reports when it sent each action and when each board received each new
version (wall-clock time, the same clock for every process of this machine), and
``live_load.py`` joins the two: the latency is from the actor's send to the opponent's (and
each spectator's) receipt of the new version. The server's ``server_time`` in each pushed
state splits it into the part until the server stamped that board's push and the rest.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import resource
import ssl
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlparse

# The bots' own cost is the machine's too: decoding each state with the standard library's
# json was two fifths of a bot process's CPU (py-spy, 500 tables).
import orjson
from websockets.client import ClientProtocol
from websockets.exceptions import InvalidHandshake
from websockets.frames import Frame, Opcode
from websockets.http11 import Response
from websockets.typing import Origin
from websockets.uri import parse_uri


@dataclass
class Stats:
    window: tuple[float, float]  # wall-clock (time.time) start and end of the measurement
    # (match, version, received, group, server_time): a board other than the actor's got
    # that version; both times are time.time() (server_time: when the server stamped it).
    receipts: list[tuple[int, int, float, str, float]] = field(default_factory=list)
    # (match, version) -> time.time() when an action on that version was sent
    sent: dict[str, float] = field(default_factory=dict)
    actions: int = 0
    messages: int = 0
    bytes: int = 0
    syncs: int = 0
    reconnects: int = 0
    errors: Counter[str] = field(default_factory=Counter)
    matches_finished: int = 0
    last_playing: dict[int, float] = field(default_factory=dict)  # table -> last time in play

    def measuring(self) -> bool:
        return self.window[0] <= time.time() < self.window[1]


class Bot:
    """A player (acts at random among the legal plays after a think time) or a spectator."""

    insecure = False  # accept a proxy's throwaway certificate (live_load.py --insecure)

    def __init__(self, stats: Stats, rng: random.Random, table: dict[str, Any], server: str,
                 session: str | None, think: float, seat: int | None, group: str) -> None:
        self.stats, self.rng, self.table_id = stats, rng, table["id"]
        self.server, self.session, self.think, self.seat = server, session, think, seat
        self.group = group  # "player", "spectator", "crowd_player" or "crowd_spectator"
        self.acted: tuple[int, int] | None = None
        self.sat_for: int | None = None
        self.seeded_for: int | None = None  # the match this bot sent its client seed to
        self.shown: tuple[int | None, int] = (None, -1)
        self.link: Link | None = None
        self.ready = asyncio.Event()  # the first state arrived

    async def run(self, stop: asyncio.Event) -> None:
        """Connect, and connect again after a refusal (a server busy with many arrivals
        refuses handshakes it cannot answer within its connect timeout), as a board does."""
        cookie = f"sessionid={self.session}" if self.session else None
        url = urlparse(self.server)
        secure = url.scheme == "https"  # through a TLS-terminating proxy
        ws_url = (self.server.replace("https://", "wss://", 1) if secure
                  else self.server.replace("http://", "ws://", 1)) + f"/ws/tables/{self.table_id}/"
        tls: ssl.SSLContext | None = None
        if secure:
            tls = ssl.create_default_context()
            if self.insecure:  # a throwaway certificate
                tls.check_hostname, tls.verify_mode = False, ssl.CERT_NONE
        loop = asyncio.get_running_loop()
        delay = 0.5
        while not stop.is_set():
            link = None
            try:
                _, link = await loop.create_connection(
                    lambda: Link(self, ws_url, self.server, cookie), url.hostname or "127.0.0.1",
                    url.port or (443 if secure else 80), ssl=tls)
                await asyncio.wait_for(link.opened, 120)
            except (OSError, InvalidHandshake, TimeoutError):
                self.stats.reconnects += 1
                if link is not None:
                    link.close()
                await asyncio.sleep(delay * self.rng.uniform(0.5, 1.5))
                delay = min(delay * 2, 8.0)
                continue
            self.link = link
            await stop.wait()
            link.close()
            return

    def on_message(self, raw: bytes) -> None:
        now = time.time()
        stats = self.stats
        if stats.measuring():
            stats.messages += 1
            stats.bytes += len(raw)
        message = orjson.loads(raw)
        kind = message.get("type")
        if kind == "error":
            stats.errors[message["error"]] += 1
        elif kind == "state":
            self._on_state(message, now)
        elif kind == "chat_history":  # the last of a board's greeting (docs/protocol.md)
            self.ready.set()

    def _on_state(self, state: dict[str, Any], now: float) -> None:
        match_id, version = state["match_id"], state["version"]
        shown_match, shown_version = self.shown
        if match_id == shown_match and version <= shown_version:
            return  # old news
        if match_id == shown_match and version > shown_version + 1:
            # A version gap: the protocol says ask for the full state.
            self.stats.syncs += 1
            self._send({"type": "sync"})
        self.shown = (match_id, version)
        # The actor's own board is not measured: only the other side of the action.
        if self.stats.measuring() and self.acted != (match_id, version - 1):
            self.stats.receipts.append((match_id, version, now, self.group, state["server_time"]))
        if self.seat is None:
            return
        if state["status"] == "playing":
            self.stats.last_playing[self.table_id] = time.time()
        seeds = state.get("client_seeds") or {}
        seat = state.get("your_seat")
        if (seeds.get("open") and seat is not None and not seeds["sent"][seat]
                and self.seeded_for != match_id):
            # Before the first roll each player sends its share of the dice (docs/dice.md),
            # once: the opponent's seed is a new state too, and may come before ours is in.
            self.seeded_for = match_id
            self._send({"type": "client_seed", "seed": os.urandom(32).hex()})
        if state["status"] == "playing":
            if state["player_to_act"] == state["your_seat"] and self.acted != (match_id, version):
                self.acted = (match_id, version)
                asyncio.get_running_loop().call_later(
                    self.think * self.rng.uniform(0.5, 1.5), self._act, state)
        else:
            seated = any(seat and seat["id"] == state["viewer_id"]
                         for seat in state["table"]["seats"])
            if not seated and self.sat_for != match_id:
                self.sat_for = match_id
                if self.seat == 0:
                    self.stats.matches_finished += self.stats.measuring()
                asyncio.get_running_loop().call_later(
                    self.rng.uniform(0.2, 1.0), self._send, {"type": "sit", "seat": self.seat})

    def _act(self, state: dict[str, Any]) -> None:
        phase = state["phase"]
        message: dict[str, Any] = {"type": "action", "expected_version": state["version"]}
        if phase == "turn_start":
            double = state["cube"]["may_double"] and self.rng.random() < 0.03
            message["action"] = "double" if double else "roll"
        elif phase == "cube_offered":
            message["action"] = "take" if self.rng.random() < 0.7 else "drop"
        elif phase == "move":
            message["action"] = "play"
            message["play"] = self.rng.choice(state["legal_plays"])["notation"]
        else:
            return
        if self.stats.measuring():
            self.stats.actions += 1
            self.stats.sent[f"{state['match_id']}:{state['version']}"] = time.time()
        self._send(message)

    def _send(self, message: dict[str, Any]) -> None:
        if self.link is not None:
            self.link.send_text(orjson.dumps(message))


class Link(asyncio.Protocol):
    """One WebSocket on websockets' sans-I/O protocol: frames are parsed as they arrive and
    handed to the bot, with no task woken per message. The asyncio client cost about twice
    the CPU per message, and a crowd's fifty pushes arrive at once: the bots' own queue
    showed in the crowded table's latency."""

    def __init__(self, bot: Bot, ws_url: str, origin: str, cookie: str | None) -> None:
        self.bot = bot
        self.protocol = ClientProtocol(parse_uri(ws_url), origin=Origin(origin), max_size=None)
        request = self.protocol.connect()
        if cookie:
            request.headers["Cookie"] = cookie
        self.protocol.send_request(request)
        self.opened: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.transport: asyncio.Transport | None = None
        self.fragments: list[bytes] = []

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport
        self._flush()

    def data_received(self, data: bytes) -> None:
        self.protocol.receive_data(data)
        for event in self.protocol.events_received():
            if isinstance(event, Response):
                if self.protocol.handshake_exc is not None:
                    self.opened.set_exception(self.protocol.handshake_exc)
                elif not self.opened.done():
                    self.opened.set_result(None)
            elif isinstance(event, Frame) and event.opcode in (Opcode.TEXT, Opcode.CONT):
                self.fragments.append(bytes(event.data))
                if event.fin:
                    raw, self.fragments = b"".join(self.fragments), []
                    self.bot.on_message(raw)
        self._flush()

    def connection_lost(self, exc: Exception | None) -> None:
        if not self.opened.done():
            self.opened.set_exception(exc or ConnectionError("closed before the handshake"))

    def send_text(self, data: bytes) -> None:
        if self.transport is not None and not self.transport.is_closing():
            self.protocol.send_text(data)
            self._flush()

    def close(self) -> None:
        if self.transport is not None:
            self.transport.close()

    def _flush(self) -> None:
        if self.transport is None or self.transport.is_closing():
            return
        for data in self.protocol.data_to_send():
            if data:
                self.transport.write(data)
            elif self.transport.can_write_eof():
                self.transport.write_eof()  # the protocol's end of stream


async def play(spec: dict[str, Any]) -> Stats:
    """Connect every bot of ``spec``, say ready, play through the window the parent sends
    back, and return the stats."""
    stats = Stats(window=(float("inf"), float("inf")))
    rng = random.Random(spec["seed"])
    stop = asyncio.Event()
    Bot.insecure = bool(spec.get("insecure"))
    bots = []
    for table in spec["tables"]:
        crowd = table.get("crowd", False)
        # The crowded table's players are in one process; its spectators in every process.
        for seat, session in enumerate(table["players"]):
            bots.append(Bot(stats, rng, table, table["servers"][seat], session,
                            spec["think"], seat, "crowd_player" if crowd else "player"))
        for session, server in table["spectators"]:
            bots.append(Bot(stats, rng, table, server, session, spec["think"], None,
                            "crowd_spectator" if crowd else "spectator"))
    tasks = []
    for bot in bots:  # connect gradually, as people arrive
        tasks.append(asyncio.ensure_future(bot.run(stop)))
        await asyncio.sleep(spec["connect_interval"])
    await asyncio.wait_for(asyncio.gather(*(bot.ready.wait() for bot in bots)), 600)
    print("ready", flush=True)
    window = json.loads(await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline))
    stats.window = (window["measure_from"], window["measure_to"])
    await asyncio.sleep(max(0.0, stats.window[1] - time.time()))
    stop.set()
    await asyncio.gather(*tasks, return_exceptions=True)
    return stats


def main() -> None:
    spec = json.loads(sys.stdin.readline())
    cpu_at_start = resource.getrusage(resource.RUSAGE_SELF)
    stats = asyncio.run(play(spec))
    usage = resource.getrusage(resource.RUSAGE_SELF)
    # CPU while measuring is what matters, but the whole run's CPU is an upper bound of it.
    cpu = (usage.ru_utime + usage.ru_stime) - (cpu_at_start.ru_utime + cpu_at_start.ru_stime)
    end = stats.window[1]
    json.dump({
        "receipts": stats.receipts, "sent": stats.sent, "actions": stats.actions,
        "messages": stats.messages,
        "bytes": stats.bytes, "syncs": stats.syncs, "errors": dict(stats.errors),
        "reconnects": stats.reconnects,
        "matches_finished": stats.matches_finished, "cpu_seconds": cpu,
        "wall_seconds": time.time() - spec["started"],
        "active_tables": sum(1 for seen in stats.last_playing.values() if end - seen < 10),
    }, sys.stdout)


if __name__ == "__main__":
    main()
