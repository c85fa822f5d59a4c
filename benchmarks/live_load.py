"""Live-play load: many bot pairs and spectators on real WebSockets against real servers.

Starts (or targets, with ``--url``) Tavla on PostgreSQL and Redis with several daphne
processes, seats ``--tables`` bot pairs (each pair's two players on different processes, so
every move crosses the channel layer), adds ``--spectators`` watchers, and lets the bots play
random legal games, each waiting a human-like think time before acting. When a match ends the
two bots sit down again, so every table stays busy. After ``--duration`` seconds it stops by
itself and prints the tables in play, moves per second and the latency from an action being
sent to the opponent receiving the new state (p50/p99), plus the servers' CPU use.

Environment: ``DATABASE_URL`` (default postgres://postgres@127.0.0.1:5432/tavla_bench, created
and migrated if missing), ``REDIS_URL`` (default redis://127.0.0.1:6379/7, flushed when this
script starts the servers). With ``--url`` (comma-separated, one per process) the servers must
share this ``DATABASE_URL`` and ``SECRET_KEY``: the bots' sessions are written to the database.
Only loopback addresses are used.

Run: .venv/bin/python benchmarks/live_load.py [--tables 200] [--duration 60] [--think 3.0]

Measured on the 2-core development machine (PostgreSQL 5432, Redis 6379, 2 daphne processes,
the bots in this same process, 200 tables + 100 spectators = 500 sockets; other work was
running on the machine at the same time, so the tail moves by tens of ms between runs):

    think 3.0 s:  ~66 actions/s   p50 10-14 ms   p99 62-98 ms    daphne ~28-33% CPU each
    think 2.0 s:  ~99 actions/s   p50 14-25 ms   p99 116-210 ms  daphne ~41-47% CPU each
    think 1.0 s:  ~165 actions/s  p50 139 ms     p99 388 ms      saturated (2 cores in all)

With channels_redis' pub/sub layer instead of the default one (``--settings`` naming a module
that sets ``CHANNEL_LAYERS`` to ``channels_redis.pubsub.RedisPubSubChannelLayer``), a group
send is one PUBLISH instead of four round trips:

    think 2.0 s:  ~100 actions/s  p50 9 ms       p99 86 ms       daphne ~32% CPU each
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import secrets
import signal
import socket
import statistics
import subprocess
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

BASE_DIR = Path(__file__).resolve().parent.parent
DEFAULT_DATABASE_URL = "postgres://postgres@127.0.0.1:5432/tavla_bench"
DEFAULT_REDIS_URL = "redis://127.0.0.1:6379/7"
LOOPBACK = {"127.0.0.1", "localhost", "::1", "[::1]"}


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--url", help="running servers, e.g. http://127.0.0.1:8000,http://127.0.0.1:8001")
    parser.add_argument("--processes", type=int, default=2, help="daphne processes to start")
    parser.add_argument("--tables", type=int, default=200)
    parser.add_argument("--spectators", type=int, default=100, help="watchers in all")
    parser.add_argument("--duration", type=float, default=60.0, help="seconds of play")
    parser.add_argument("--warmup", type=float, default=5.0, help="seconds not measured")
    parser.add_argument("--think", type=float, default=3.0,
                        help="mean think time before an action (uniform 0.5x..1.5x)")
    parser.add_argument("--match-length", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--settings", default="tavla.settings",
                        help="Django settings module of the servers (e.g. to try another "
                             "channel layer)")
    parser.add_argument("--deflate", action="store_true",
                        help="negotiate permessage-deflate, as browsers do (more CPU on both ends)")
    return parser.parse_args()


# -- the system under test ------------------------------------------------------------------


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def ensure_database(url: str) -> None:
    """Create the PostgreSQL database named in ``url`` if it does not exist."""
    import psycopg

    parsed = urlparse(url)
    if parsed.scheme not in {"postgres", "postgresql"}:
        return
    name = parsed.path.lstrip("/")
    admin = parsed._replace(path="/postgres").geturl()
    with psycopg.connect(admin, autocommit=True) as conn:
        exists = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (name,)).fetchone()
        if not exists:
            conn.execute(f'CREATE DATABASE "{name}"')


@dataclass
class Servers:
    urls: list[str]
    processes: list[subprocess.Popen[bytes]] = field(default_factory=list)

    def cpu_seconds(self) -> list[float]:
        ticks = os.sysconf("SC_CLK_TCK")
        out = []
        for process in self.processes:
            try:
                fields = Path(f"/proc/{process.pid}/stat").read_text().rsplit(")", 1)[1].split()
                out.append((int(fields[11]) + int(fields[12])) / ticks)
            except OSError:
                out.append(float("nan"))
        return out

    def stop(self) -> None:
        for process in self.processes:
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
        for process in self.processes:
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()


def start_servers(count: int, env: dict[str, str]) -> Servers:
    subprocess.run([sys.executable, "manage.py", "migrate", "--noinput", "-v0"], cwd=BASE_DIR,
                   env=env, check=True)
    servers = Servers(urls=[])
    for _ in range(count):
        port = free_port()
        servers.processes.append(subprocess.Popen(
            [sys.executable, "-m", "daphne", "-b", "127.0.0.1", "-p", str(port),
             "tavla.asgi:application"],
            cwd=BASE_DIR, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        ))
        servers.urls.append(f"http://127.0.0.1:{port}")
    import urllib.request

    deadline = time.monotonic() + 60
    for url in servers.urls:
        while True:
            try:
                with urllib.request.urlopen(f"{url}/accounts/login/", timeout=2):
                    break
            except OSError:
                if time.monotonic() > deadline:
                    servers.stop()
                    raise SystemExit(f"{url} did not start") from None
                time.sleep(0.2)
    return servers


def seat_bots(tables: int, spectators: int, match_length: int) -> tuple[list[int], list[str],
                                                                         list[str]]:
    """Users, their sessions and seated tables (the matches start at once).

    Returns table ids, the players' session keys (two per table, in seat order) and the
    spectators' session keys.
    """
    from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY
    from django.contrib.auth.models import User
    from django.contrib.sessions.backends.db import SessionStore

    from matches import services

    run = secrets.token_hex(3)
    users = [User(username=f"bench-{run}-{i}") for i in range(2 * tables + spectators)]
    for user in users:
        user.set_unusable_password()
    users = User.objects.bulk_create(users)
    sessions = []
    for user in users:
        store = SessionStore()
        store[SESSION_KEY] = str(user.pk)
        store[BACKEND_SESSION_KEY] = "django.contrib.auth.backends.ModelBackend"
        store[HASH_SESSION_KEY] = user.get_session_auth_hash()
        store.create()
        sessions.append(store.session_key)
    table_ids = []
    for index in range(tables):
        first = services.player_for_user(users[2 * index])
        second = services.player_for_user(users[2 * index + 1])
        table = services.table_create(name=f"bench {run} {index}", match_length=match_length,
                                      is_rated=False)
        services.table_sit(table_id=table.pk, player=first)
        services.table_sit(table_id=table.pk, player=second)
        table_ids.append(table.pk)
    return table_ids, sessions[: 2 * tables], sessions[2 * tables:]


# -- the bots ------------------------------------------------------------------------------------


@dataclass
class Stats:
    latencies: list[float] = field(default_factory=list)
    samples: list[tuple[float, float]] = field(default_factory=list)  # (when, latency)
    actions: int = 0
    errors: Counter[str] = field(default_factory=Counter)
    matches_finished: int = 0
    messages: int = 0
    measuring: bool = False
    pending: dict[tuple[int, int], float] = field(default_factory=dict)  # (match, version) -> sent
    last_playing: dict[int, float] = field(default_factory=dict)  # table -> last state in play


class Bot:
    def __init__(self, stats: Stats, rng: random.Random, table_id: int, server: str,
                 session: str, think: float, is_player: bool) -> None:
        self.stats, self.rng, self.table_id = stats, rng, table_id
        self.server, self.session, self.think, self.is_player = server, session, think, is_player
        self.acted: tuple[int, int] | None = None
        self.sat_for: int | None = None
        self.ws: Any = None
        self.compression: str | None = None

    async def run(self, stop: asyncio.Event) -> None:
        import websockets

        ws_url = self.server.replace("http://", "ws://") + f"/ws/tables/{self.table_id}/"
        async with websockets.connect(ws_url, origin=self.server, max_size=None,
                                      additional_headers={"Cookie": f"sessionid={self.session}"},
                                      open_timeout=60, ping_interval=None,
                                      compression=self.compression) as ws:
            self.ws = ws
            receiving = asyncio.ensure_future(self._receive(ws))
            await stop.wait()
            receiving.cancel()

    async def _receive(self, ws: Any) -> None:
        async for raw in ws:
            now = time.perf_counter()
            self.stats.messages += 1
            if not self.is_player:  # a spectator only looks: no need to read it all
                if '"status": "playing"' in raw:
                    self.stats.last_playing[self.table_id] = now
                continue
            message = json.loads(raw)
            kind = message.get("type")
            if kind == "error":
                self.stats.errors[message["error"]] += 1
                continue
            if kind != "state":
                continue
            self._on_state(message, now)

    def _on_state(self, state: dict[str, Any], now: float) -> None:
        match_id, version = state["match_id"], state["version"]
        sent = self.stats.pending.pop((match_id, version - 1), None)
        if sent is not None and state["player_to_act"] is not None \
                and state["your_seat"] is not None:
            # Only the opponent of the actor measures: the actor's own board may be faster.
            if self.stats.measuring:
                self.stats.latencies.append(now - sent)
                self.stats.samples.append((now, now - sent))
        elif sent is not None:
            self.stats.pending[(match_id, version - 1)] = sent
        if state["status"] == "playing":
            self.stats.last_playing[self.table_id] = now
            if state["player_to_act"] == state["your_seat"] \
                    and self.acted != (match_id, version):
                self.acted = (match_id, version)
                asyncio.get_running_loop().call_later(
                    self.think * self.rng.uniform(0.5, 1.5), self._act, state)
        else:
            seated = any(seat and seat["id"] == state["viewer_id"]
                         for seat in state["table"]["seats"])
            if not seated and self.sat_for != match_id:
                self.sat_for = match_id
                if state["your_seat"] == 0:
                    self.stats.matches_finished += 1
                asyncio.get_running_loop().call_later(
                    self.rng.uniform(0.2, 1.0), self._send, {"type": "sit"})

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
        # The opponent's board hears about it: they measure (see _on_state).
        self.stats.pending[(state["match_id"], state["version"])] = time.perf_counter()
        self.stats.actions += self.stats.measuring
        self._send(message)

    def _send(self, message: dict[str, Any]) -> None:
        if self.ws is not None:
            asyncio.ensure_future(self._send_now(json.dumps(message)))

    async def _send_now(self, text: str) -> None:
        import websockets

        try:
            await self.ws.send(text)
        except websockets.ConnectionClosed:
            pass  # the run is over


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


async def play(args: argparse.Namespace, servers: Servers, table_ids: list[int],
               players: list[str], watchers: list[str]) -> Stats:
    stats = Stats()
    rng = random.Random(args.seed)
    stop = asyncio.Event()
    bots = []
    for index, table_id in enumerate(table_ids):
        for seat in (0, 1):  # the two players of a table on different processes
            server = servers.urls[(index + seat) % len(servers.urls)]
            bots.append(Bot(stats, rng, table_id, server, players[2 * index + seat], args.think,
                            True))
    for bot in bots:
        bot.compression = "deflate" if args.deflate else None
    for index, session in enumerate(watchers):
        table_id = table_ids[index % len(table_ids)]
        bots.append(Bot(stats, rng, table_id, servers.urls[index % len(servers.urls)], session,
                        args.think, False))
    started = time.perf_counter()
    tasks = []
    for bot in bots:  # connect gradually, as people arrive
        tasks.append(asyncio.ensure_future(bot.run(stop)))
        await asyncio.sleep(0.002)
    print(f"{len(bots)} sockets opening ({len(table_ids)} tables, {len(watchers)} spectators) "
          f"in {time.perf_counter() - started:.1f} s", flush=True)
    await asyncio.sleep(args.warmup)
    cpu_before = servers.cpu_seconds()
    stats.measuring = True
    measure_start = time.perf_counter()
    await asyncio.sleep(args.duration)
    stats.measuring = False
    elapsed = time.perf_counter() - measure_start
    cpu_after = servers.cpu_seconds()
    stop.set()
    await asyncio.gather(*tasks, return_exceptions=True)
    report(args, stats, elapsed, [a - b for a, b in zip(cpu_after, cpu_before, strict=True)],
           len(table_ids), measure_start + elapsed)
    return stats


def report(args: argparse.Namespace, stats: Stats, elapsed: float, cpu: list[float],
           tables: int, end: float) -> None:
    active = sum(1 for seen in stats.last_playing.values() if end - seen < 10)
    print(f"tables: {tables} seated, {active} with a match in play in the last 10 s")
    print(f"moves: {stats.actions} actions in {elapsed:.0f} s = {stats.actions / elapsed:.1f}/s "
          f"(think time {args.think:.1f} s mean); {stats.matches_finished} matches finished")
    if stats.latencies:
        ms = [1000 * value for value in stats.latencies]
        print(f"latency action -> opponent's new state: p50 {percentile(ms, 0.5):.1f} ms, "
              f"p90 {percentile(ms, 0.9):.1f} ms, p99 {percentile(ms, 0.99):.1f} ms, "
              f"max {max(ms):.1f} ms, mean {statistics.fmean(ms):.1f} ms "
              f"({len(ms)} samples)")
    if stats.samples:
        start = stats.samples[0][0]
        windows: dict[int, list[float]] = {}
        for when, latency in stats.samples:
            windows.setdefault(int((when - start) // 10), []).append(1000 * latency)
        print("p99 by 10 s window (ms): " + ", ".join(
            f"{percentile(values, 0.99):.0f}" for _, values in sorted(windows.items())))
    print(f"messages received: {stats.messages}; errors: {dict(stats.errors) or 'none'}")
    if cpu:
        print("server CPU: " + ", ".join(f"{c / elapsed:.0%}" for c in cpu)
              + " of a core each (daphne processes)")
    target = "MET" if stats.latencies and tables >= 200 and \
        percentile(stats.latencies, 0.99) <= 0.100 else "NOT met"
    print(f"target (200 tables, p99 <= 100 ms): {target}")


def main() -> None:
    args = parse_args()
    database_url = os.environ.get("DATABASE_URL") or DEFAULT_DATABASE_URL
    redis_url = os.environ.get("REDIS_URL") or DEFAULT_REDIS_URL
    for url in [database_url, redis_url, *(args.url.split(",") if args.url else [])]:
        host = urlparse(url).hostname
        if host and host not in LOOPBACK:
            raise SystemExit(f"refusing a non-loopback address: {url}")
    secret = os.environ.get("SECRET_KEY") or secrets.token_urlsafe(50)
    env = dict(os.environ, DATABASE_URL=database_url, REDIS_URL=redis_url, SECRET_KEY=secret,
               DEBUG="0", ALLOWED_HOSTS="127.0.0.1,localhost", LOG_LEVEL="WARNING",
               DJANGO_SETTINGS_MODULE=args.settings, PYTHONUNBUFFERED="1")
    os.environ.update({k: env[k] for k in ("DATABASE_URL", "REDIS_URL", "SECRET_KEY", "DEBUG",
                                           "ALLOWED_HOSTS", "LOG_LEVEL",
                                           "DJANGO_SETTINGS_MODULE")})
    sys.path.insert(0, str(BASE_DIR))
    ensure_database(database_url)
    if args.url:
        servers = Servers(urls=args.url.split(","))
    else:
        import redis

        redis.Redis.from_url(redis_url).flushdb()
        servers = start_servers(args.processes, env)
    try:
        import django

        django.setup()
        if args.url:
            from django.core.management import call_command

            call_command("migrate", "--noinput", verbosity=0)
        started = time.perf_counter()
        table_ids, players, watchers = seat_bots(args.tables, args.spectators, args.match_length)
        print(f"seated {len(table_ids)} tables in {time.perf_counter() - started:.1f} s on "
              f"{len(servers.urls)} web processes", flush=True)
        asyncio.run(play(args, servers, table_ids, players, watchers))
    finally:
        servers.stop()


if __name__ == "__main__":
    main()
