"""Ten flooding sockets must not slow another table: move → opponent latency with and without.

Starts one daphne process on PostgreSQL and Redis (as ``live_load.py`` does), seats two
players at table A and lets them play, each a little under its socket's message rate (a move,
then ``PAUSE``; they used to play as fast as the server answered, until the per-client rate
limit dropped their moves and the run stopped): each move's latency is
the time from the mover sending it to the opponent's socket receiving the new state. It
measures ``--moves`` moves alone, then the same number while ``--flooders`` anonymous
sockets (in a process of their own) flood table B with messages as fast as they can, each
reconnecting at once whenever the server closes it (the rate limit closes a flooder with
1008). Target (issue 11): the p99 with flooders is at most twice the p99 without.

Run: .venv/bin/python benchmarks/socket_flood.py [--moves 300] [--flooders 10]

Each flooder connects from its own loopback address (127.0.0.10-19): an attacker is not
the player it attacks, so the per-address limits alone must not be what keeps table A fast.

Measured on the 2-core development machine, quiet (load ~0.7; 1 Dec 2026, 12:45 UTC), 300
moves a phase, the flooders' process on the same machine using 70% of a core:

    without flooders   p50 26.9 ms  p99 119.0 ms  max 131.5 ms  (server 72% of a core)
    with 10 flooders   p50 41.5 ms  p99 147.3 ms  max 153.8 ms  (server 73% of a core)
    p99 ratio 1.24 (target <= 2.0); the flooders sent 10,601 messages over 10 connections,
    then 12,739 reconnections were closed unread (the address's penalty).

Again (3 Dec 2026, 08:12 UTC, quiet), paced players, one state to each board in one pass:

    without flooders   p50 5.6 ms  p99  9.0 ms  max   9.3 ms  (server 4% of a core)
    with 10 flooders   p50 6.6 ms  p99 14.3 ms  max 119.6 ms  (server 16% of a core)
    p99 ratio 1.59 (target <= 2.0); the flooders sent 6,350 messages over 10 connections,
    then 87,989 reconnections were closed unread.

Before the fuse in daphne's frame reader (tavla.site.daphne_protocol) the same ten sockets wrote
2.46 million frames in 25 s and were never closed (daphne queued every frame; the
consumer's 1008 never went out), and a new board on the process waited 8-10 s; with the
fuse but without the penalty at accept, the flooders' 450 refused handshakes a second took
p50 to 105 ms and the p99 ratio to 1.98-2.22.

Public interfaces only (3 Dec 2026, 12:26-12:28 UTC, load 0.5-1.9 before): the penalised
address is refused at its WebSocket handshake (403) instead of at accept, which needed
daphne's HTTP factory replaced. The old code then the new, back to back:

    old: with flooders p50 14.4 ms  p99 105.7 ms (ratio 5.50)  server 17% of a core
    new: with flooders p50 33.9 ms  p99  93.5 ms (ratio 7.77)  server 74% of a core
    (80,711 and 53,404 reconnections refused; without flooders p99 19.2 and 12.0 ms)

A refused handshake costs the server about four times an accept closed unread. Behind the
reverse proxy a deploy uses, every connection comes from the proxy and neither door
applies; flooding from many addresses is the proxy's to limit (README, Deploying).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import random
import secrets
import sys
import time
from pathlib import Path
from typing import Any

from websockets.typing import Origin

BASE_DIR = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _live_report import percentile  # noqa: E402
from live_load import ensure_database, start_servers  # noqa: E402

DEFAULT_DATABASE_URL = "postgres://postgres@127.0.0.1:5432/tavla_bench_flood"
DEFAULT_REDIS_URL = "redis://127.0.0.1:6379/7"


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--moves", type=int, default=300, help="moves measured per phase")
    parser.add_argument("--flooders", type=int, default=10)
    return parser.parse_args()


def make_tables() -> tuple[int, int, list[str]]:
    """Table A with a match in progress between two players (their session keys), table B
    for the flooders."""
    from django.contrib.auth.models import User
    from django.contrib.sessions.backends.db import SessionStore

    from matches import services

    stamp = secrets.token_hex(4)
    sessions, players = [], []
    for seat in (0, 1):
        user = User.objects.create_user(f"flood-{stamp}-{seat}", password=secrets.token_hex(8))
        session = SessionStore()
        session["_auth_user_id"] = str(user.pk)
        session["_auth_user_backend"] = "django.contrib.auth.backends.ModelBackend"
        session["_auth_user_hash"] = user.get_session_auth_hash()
        session.create()
        sessions.append(session.session_key or "")
        players.append(services.player_for_user(user))
    table_a = services.table_create(name=f"measured {stamp}", match_length=99,
                                    cube_enabled=False, is_rated=False)
    for player in players:
        services.table_sit(table_id=table_a.pk, player=player)
    table_b = services.table_create(name=f"flooded {stamp}")
    return table_a.pk, table_b.pk, sessions


async def _flood_one(url: str, origin: str, address: str, stop: Any,
                     counts: dict[str, int]) -> None:
    """One flooder, from its own loopback address (``127.0.0.N``): an attacker is not the
    player it attacks, so the per-address limits must not be what keeps table A fast."""
    import websockets

    frame = json.dumps({"type": "sync"})
    while not stop.is_set():
        try:
            async with websockets.connect(url, origin=Origin(origin), open_timeout=10,
                                          ping_interval=None, compression=None,
                                          local_addr=(address, 0)) as ws:
                counts["connections"] += 1

                async def drain() -> None:
                    try:
                        async for _ in ws:
                            counts["received"] += 1
                    except websockets.ConnectionClosed:
                        pass

                draining = asyncio.ensure_future(drain())
                while True:
                    await ws.send(frame)
                    counts["sent"] += 1
                    if counts["sent"] % 50 == 0:
                        await asyncio.sleep(0)
                        if stop.is_set():
                            break
                draining.cancel()
        except Exception as error:  # noqa: BLE001 - closed by the server: come back at once
            counts[type(error).__name__] = counts.get(type(error).__name__, 0) + 1


def flood(url: str, origin: str, sockets: int, stop: Any, out: Any) -> None:
    """``sockets`` flooders on one event loop until ``stop`` is set; puts their counts."""
    counts: dict[str, int] = {"connections": 0, "sent": 0, "received": 0}

    async def main() -> None:
        await asyncio.gather(*(_flood_one(url, origin, f"127.0.0.{10 + number}", stop, counts)
                               for number in range(sockets)))

    asyncio.run(main())
    out.put(counts)


async def play_moves(server: str, table_id: int, sessions: list[str], moves: int,
                     rng: random.Random) -> list[float]:
    """Play ``moves`` moves at table A; return each move's latency to the opponent (ms)."""
    import websockets

    url = server.replace("http://", "ws://") + f"/ws/tables/{table_id}/"
    sockets = [await websockets.connect(url, origin=Origin(server), ping_interval=None,
                                        open_timeout=60, compression=None, max_size=None,
                                        additional_headers={"Cookie": f"sessionid={key}"})
               for key in sessions]
    states: list[dict[str, Any]] = [{"version": -1}, {"version": -2}]
    changed = asyncio.Condition()

    async def receive(seat: int) -> None:
        async for raw in sockets[seat]:
            message = json.loads(raw)
            if message.get("type") == "state" and message["version"] > states[seat]["version"]:
                states[seat] = message
                async with changed:
                    changed.notify_all()

    async def until(condition: Any) -> None:
        async with changed:
            try:
                await asyncio.wait_for(changed.wait_for(condition), 30)
            except TimeoutError:
                seen = [{key: state.get(key) for key in ("version", "status", "phase",
                                                         "player_to_act")} for state in states]
                raise TimeoutError(f"no new state in 30 s; the boards show {seen}") from None

    async def newer(seat: int, version: int) -> None:
        await until(lambda: states[seat]["version"] > version)

    readers = [asyncio.ensure_future(receive(seat)) for seat in (0, 1)]
    latencies: list[float] = []
    seeded: set[int] = set()
    try:
        while len(latencies) < moves:
            await until(lambda: states[0]["version"] == states[1]["version"])
            state = states[0]
            version = state["version"]
            if state["client_seeds"]["open"] and state["match_id"] not in seeded:
                seeded.add(state["match_id"])
                for ws in sockets:
                    await ws.send(json.dumps({"type": "client_seed",
                                              "seed": secrets.token_hex(32)}))
                await newer(0, version)
                continue
            mover = state["player_to_act"]
            if mover is None or state["phase"] != "move":
                await newer(0, version)
                continue
            play = rng.choice(states[mover]["legal_plays"])["notation"]
            opponent = 1 - mover
            sent = time.perf_counter()
            await sockets[mover].send(json.dumps({"type": "action", "action": "play",
                                                  "play": play, "expected_version": version}))
            await newer(opponent, version)
            latencies.append(1000 * (time.perf_counter() - sent))
            # A player's socket may send 15 messages a second (TAVLA_SOCKET_RATE): the two
            # honest players keep under it, as any client must, or their moves are dropped.
            await asyncio.sleep(PAUSE)
    finally:
        for reader in readers:
            reader.cancel()
        for ws in sockets:
            await ws.close()
    return latencies


PAUSE = 0.08  # seconds after each move: each player then sends about 6 moves a second


def _cpu_of(pid: int | None) -> float:
    """CPU seconds (user + system) process ``pid`` has used so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def line(name: str, values: list[float]) -> str:
    values = sorted(values)
    return (f"{name:<22} n={len(values):4d}  p50 {percentile(values, 0.5):6.1f} ms  "
            f"p99 {percentile(values, 0.99):6.1f} ms  max {values[-1]:6.1f} ms")


def main() -> None:
    args = parse_args()
    database_url = os.environ.get("DATABASE_URL") or DEFAULT_DATABASE_URL
    redis_url = os.environ.get("REDIS_URL") or DEFAULT_REDIS_URL
    env = dict(os.environ, DATABASE_URL=database_url, REDIS_URL=redis_url,
               SECRET_KEY=os.environ.get("SECRET_KEY") or secrets.token_urlsafe(50),
               DEBUG="0", ALLOWED_HOSTS="127.0.0.1,localhost", LOG_LEVEL="WARNING",
               DJANGO_SETTINGS_MODULE="tavla.settings", PYTHONUNBUFFERED="1",
               TAVLA_CLIENT_SEED_SECONDS="10")
    os.environ.update(env)
    sys.path.insert(0, str(BASE_DIR))
    ensure_database(database_url)
    servers = start_servers(1, env)
    server = servers.urls[0]
    try:
        import django

        django.setup()
        one, five, _ = os.getloadavg()
        print(f"1 web process; load average before the run {one:.2f} (1 min), "
              f"{five:.2f} (5 min)", flush=True)
        table_a, table_b, sessions = make_tables()
        rng = random.Random(11)
        cpu, wall = servers.cpu_seconds()[0], time.perf_counter()
        alone = asyncio.run(play_moves(server, table_a, sessions, args.moves, rng))
        print(line("without flooders", alone)
              + f"  (server {(servers.cpu_seconds()[0] - cpu) / (time.perf_counter() - wall):.0%}"
              " of a core)", flush=True)

        queue: Any = multiprocessing.Queue()
        stop = multiprocessing.Event()
        flood_url = server.replace("http://", "ws://") + f"/ws/tables/{table_b}/"
        flooders = multiprocessing.Process(
            target=flood, args=(flood_url, server, args.flooders, stop, queue), daemon=True)
        flooders.start()
        time.sleep(1.0)  # let the flood start
        cpu, wall = servers.cpu_seconds()[0], time.perf_counter()
        flooder_cpu = _cpu_of(flooders.pid)
        flooded = asyncio.run(play_moves(server, table_a, sessions, args.moves, rng))
        elapsed = time.perf_counter() - wall
        server_share = (servers.cpu_seconds()[0] - cpu) / elapsed
        flooder_share = (_cpu_of(flooders.pid) - flooder_cpu) / elapsed
        stop.set()
        counts = queue.get(timeout=30)
        flooders.join(10)
        print(line(f"with {args.flooders} flooders", flooded)
              + f"  (server {server_share:.0%} of a core, flooders {flooder_share:.0%})",
              flush=True)
        refused = sum(n for key, n in counts.items()
                      if key not in {"connections", "sent", "received"})
        print(f"flooders: {counts['sent']} messages sent over {counts['connections']} "
              f"connections, {counts['received']} answers; {refused} attempts to reconnect "
              f"refused ({dict(counts)})", flush=True)
        ratio = percentile(sorted(flooded), 0.99) / max(percentile(sorted(alone), 0.99), 0.001)
        verdict = "OK" if ratio <= 2 else "OVER TARGET"
        print(f"p99 ratio {ratio:.2f} (target <= 2.0): {verdict}", flush=True)
    finally:
        servers.stop()


if __name__ == "__main__":
    main()
