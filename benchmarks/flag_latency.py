"""Flag latency under live load, and after the clock workers were killed.

Starts what the Procfile runs for Celery on PostgreSQL and Redis: the clock worker pool
(``-Q clocks --concurrency 2``), the default worker and beat. Seats ``--tables`` clocked
tables (9-point matches, no cube) and plays them with bots in
``--bot-processes`` processes (``benchmarks/_clock_bots.py``, through the services): each turn
the player thinks 3-12 s (inside the 12 s delay) and plays a random legal play, or with
probability ``--stall`` walks away, and the flag must fall at delay + reserve (2 s). Three phases:

1. ``--live`` seconds of play: flag lateness (time of the timeout event - deadline) p50, p99
   and max. Target: p99 <= 1 s.
2. The clock workers are killed (SIGKILL) for ``--outage`` seconds while play goes on.
3. They are started again: every flag that fell due meanwhile must fall within 5 s of their
   return, and the clock queue must be back to its normal depth within 30 s.

The clock queue's depth is sampled every 0.5 s and printed over time (max per 5 s).
Run: .venv/bin/python benchmarks/flag_latency.py [--tables 200] [--live 60] [--outage 30]
Environment: DATABASE_URL (default postgres://postgres@127.0.0.1:5432/tavla_bench, created
and migrated here), REDIS_URL (default redis://127.0.0.1:6379/8). Only rows this benchmark
made (tables "flag-latency …", users "flagbench-…") are deleted before a run.

Measured on the 2-core machine, quiet (load ~0.5 before the run; 1 Dec 2026, 12:19 UTC),
200 tables, 60 s live, 30 s outage (killed at +60.0 s, back at +94.1 s):

    2,331 plays in 120 s (19/s); 173 stalls; 0 flags never fell
    live flags (67): late p50 450 ms, p99 622 ms, max 622 ms      -> target p99 <= 1 s: met
    53 flags fell due during the outage; after the return: p50 0.02 s, max 1.04 s -> 5 s: met
    clock queue depth, max per 5 s: 0 ... 0 k9 19 29 39 49 59 b65 0 0 0 0 0 0
    back to its normal depth (0) 0.1 s after the return           -> target 30 s: met

Earlier, on the shared machine (1 Dec 2026, 10:13-10:45 UTC), 60 s live, 30 s outage, while
other sessions' test suites kept the load average at 8-17 before each run:

    tables  plays/s  live flags: p50   p99     max    | after the return: max  drained
    50      5        282 ms  (one outlier counted live)  |   2.76 s               0.5 s
    100     8        526 ms  1225 ms  1225 ms         |   3.13 s (31 flags)    0.7 s
    200     6        2328 ms 4888 ms  4888 ms         |   4.13 s (37 flags)    1.0 s
    200 (3 bot processes) 4  2720 ms 9890 ms          |   2.55 s (37 flags)    0.4 s

Clock queue depth per 5 s, 100 tables: 0 ... 0 k9 18 28 38 48 58 68 b67 2 0 1 0 1 (k: killed,
b: back). At 200 tables the machine could not carry the load at all: the bots' own moves
arrived after their flag (519-566 refused "flag_fell"), so nearly every turn flagged, and a
flag costs ~120 ms there (18 queries on the starved PostgreSQL): the live p99 target was not
met on this machine. The outage targets (every overdue flag within 5 s of the return, the
queue back to normal within 30 s) were met at every size.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

BASE_DIR = Path(__file__).resolve().parent.parent
TABLE_PREFIX = "flag-latency"
USER_PREFIX = "flagbench-"
DELAY, RESERVE = 12.0, 2.0  # the tournament standard delay
THINK = (3.0, 12.0)  # seconds, uniform: inside the delay
TARGET_P99 = 1.0
TARGET_AFTER_RETURN = 5.0
TARGET_DRAIN = 30.0

os.environ.setdefault("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/tavla_bench")
os.environ.setdefault("REDIS_URL", "redis://127.0.0.1:6379/8")
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tavla.settings")
os.environ.setdefault("SECRET_KEY", "flag-latency-benchmark-not-a-secret")
sys.path.insert(0, str(BASE_DIR))


def ensure_database(url: str) -> None:
    """Create the PostgreSQL database named in ``url`` if it does not exist yet."""
    import psycopg

    parts = urlsplit(url)
    name = parts.path.lstrip("/")
    admin_url = urlunsplit(parts._replace(path="/postgres"))
    with psycopg.connect(admin_url, autocommit=True) as conn:
        exists = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (name,)).fetchone()
        if not exists:
            conn.execute(f'CREATE DATABASE "{name}"')


def start(argv: list[str], log: Path) -> subprocess.Popen[bytes]:
    with log.open("ab") as out:
        return subprocess.Popen([sys.executable, *argv], cwd=BASE_DIR, env=os.environ.copy(),
                                stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
                                start_new_session=True)


def stop(process: subprocess.Popen[bytes], sig: int = signal.SIGTERM) -> None:
    if process.poll() is None:
        try:
            os.killpg(process.pid, sig)
        except ProcessLookupError:
            return
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()


def percentile(values: list[float], fraction: float) -> float:
    """Nearest-rank percentile."""
    ordered = sorted(values)
    rank = max(1, round(fraction * len(ordered) + 0.5 - 1e-9))
    return ordered[min(rank, len(ordered)) - 1]


class DepthSampler(threading.Thread):
    """The clock queue's depth every half second, as the broker reports it (a
    ``queue_declare``: kombu's public channel API)."""

    def __init__(self, app: Any, queue: str) -> None:
        super().__init__(daemon=True)
        self.app, self.queue = app, queue
        self.samples: list[tuple[float, int]] = []
        self.done = threading.Event()

    def run(self) -> None:
        with self.app.connection_for_read() as connection:
            channel = connection.default_channel
            while not self.done.is_set():
                declared = channel.queue_declare(queue=self.queue)
                self.samples.append((time.time(), int(declared.message_count)))
                self.done.wait(0.5)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=200)
    parser.add_argument("--live", type=float, default=60.0, help="seconds of play measured")
    parser.add_argument("--outage", type=float, default=30.0, help="seconds without clocks")
    parser.add_argument("--recovery", type=float, default=30.0)
    parser.add_argument("--stall", type=float, default=0.05)
    parser.add_argument("--bot-processes", type=int, default=2)
    args = parser.parse_args()
    if not os.environ["DATABASE_URL"].startswith(("postgres://", "postgresql://")):
        print("flag_latency: DATABASE_URL must name a PostgreSQL database")
        return 2
    ensure_database(os.environ["DATABASE_URL"])

    import django

    django.setup()
    from django.contrib.auth import get_user_model
    from django.contrib.auth.hashers import make_password
    from django.core.management import call_command

    from matches import services
    from matches.models import Event, LogKind, Match, Table
    from tavla.celery import app
    from tavla.queues import CLOCK_QUEUE, DEFAULT_QUEUE, QUEUES, worker_argv

    call_command("migrate", verbosity=0)
    user_model = get_user_model()
    Match.objects.filter(table__name__startswith=TABLE_PREFIX).delete()  # events cascade
    Table.objects.filter(name__startswith=TABLE_PREFIX).delete()
    user_model.objects.filter(username__startswith=USER_PREFIX).delete()
    with app.connection_for_write() as connection:  # no sweep left from an earlier run
        try:
            connection.default_channel.queue_purge(CLOCK_QUEUE)
        except Exception:  # noqa: BLE001 - a queue never declared has nothing to purge
            pass

    logs = Path(tempfile.mkdtemp(prefix="flag-latency-"))
    queues = {queue.name: queue for queue in QUEUES}
    clock_name = f"flagbench-clocks-{os.getpid()}@%h"

    def start_clocks() -> subprocess.Popen[bytes]:
        return start(["-m", "celery", *worker_argv(queues[CLOCK_QUEUE], hostname=clock_name,
                                                   concurrency=2),
                      "--without-mingle", "--without-gossip"], logs / "clocks.log")

    def wait_ping(what: str) -> float:
        name = clock_name.replace("%h", os.uname().nodename)
        give_up = time.monotonic() + 60
        while not app.control.ping(destination=[name], timeout=0.5):
            if time.monotonic() > give_up:
                raise SystemExit(f"the {what} did not start; see {logs}")
        return time.time()

    processes = {
        "clocks": start_clocks(),
        "worker": start(["-m", "celery", *worker_argv(queues[DEFAULT_QUEUE],
                                                      hostname=f"flagbench-{os.getpid()}@%h"),
                         "--without-mingle", "--without-gossip"], logs / "worker.log"),
        "beat": start(["-m", "celery", "-A", "tavla", "beat", "-l", "INFO"], logs / "beat.log"),
    }
    sampler = DepthSampler(app, CLOCK_QUEUE)
    bots: list[subprocess.Popen[bytes]] = []
    try:
        wait_ping("clock worker")
        password = make_password(None)
        tables = []
        for index in range(args.tables):
            pair = [services.player_for_user(user_model.objects.create(
                username=f"{USER_PREFIX}{index}-{side}", password=password)) for side in "ab"]
            table = services.table_create(
                name=f"{TABLE_PREFIX} {index}", match_length=9, is_rated=False,
                cube_enabled=False, clock_enabled=True, clock_delay=DELAY,
                clock_reserve_seconds=RESERVE, clock_reserve_per_point=0, grace_seconds=3600)
            for player in pair:
                services.table_sit(table_id=table.pk, player=player)
            tables.append({"id": table.pk, "players": [player.pk for player in pair]})
        print(f"{len(tables)} tables seated; bots in {args.bot_processes} processes")
        sampler.start()
        started = time.time()
        kill_at = started + args.live
        back_due = kill_at + args.outage
        stop_at = back_due + args.recovery
        for index in range(args.bot_processes):
            spec = {"tables": tables[index::args.bot_processes], "think": list(THINK),
                    "stall": args.stall, "stop_at": stop_at, "seed": index}
            path = logs / f"bots-{index}.json"
            path.write_text(json.dumps(spec))
            bots.append(subprocess.Popen([sys.executable, "benchmarks/_clock_bots.py", str(path)],
                                         cwd=BASE_DIR, env=os.environ.copy(),
                                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT))
        time.sleep(max(0.0, kill_at - time.time()))
        stop(processes["clocks"], signal.SIGKILL)
        killed = time.time()
        print(f"clock workers killed at +{killed - started:.1f} s")
        time.sleep(max(0.0, back_due - time.time()))
        processes["clocks"] = start_clocks()
        back = wait_ping("clock worker (again)")
        print(f"clock workers back at +{back - started:.1f} s (started {back - killed:.1f} s "
              "after the kill)")
        outputs = [bot.communicate(timeout=args.recovery + 120)[0] for bot in bots]
        time.sleep(1)
        sampler.done.set()
        sampler.join()
    finally:
        for bot in bots:
            if bot.poll() is None:
                bot.kill()
        for process in processes.values():
            stop(process)

    results = []
    for bot, output in zip(bots, outputs, strict=True):
        last = output.decode(errors="replace").strip().splitlines()[-1:]
        if bot.returncode != 0 or not last:
            print(f"a bot process failed:\n{output.decode(errors='replace')[-2000:]}")
            return 1
        results.append(json.loads(last[0]))
    stalls = [stall for result in results for stall in result["stalls"]]
    plays = sum(result["plays"] for result in results)
    flags: dict[int, list[float]] = {}
    for match_id, created in (Event.objects.filter(match_id__in={s["match"] for s in stalls},
                                                   kind=LogKind.TIMEOUT)
                              .values_list("match_id", "created_at")):
        flags.setdefault(match_id, []).append(created.timestamp())
    live, overdue, missing = [], [], 0
    for stall in stalls:
        fell = [t for t in flags.get(stall["match"], []) if t >= stall["deadline"] - 0.05]
        if not fell:
            if stall["deadline"] < stop_at - 10:
                missing += 1
            continue
        when = min(fell)
        if when < killed:
            live.append(when - stall["deadline"])
        elif stall["deadline"] < back:  # due while no clock worker ran (or just before)
            overdue.append(when - back)
    duration = stop_at - started
    errors = sum(result["errors"] for result in results)
    refused: dict[str, int] = {}
    for result in results:
        for code, count in result["refused"].items():
            refused[code] = refused.get(code, 0) + count
    print(f"load: {plays} plays in {duration:.0f} s ({plays / duration:.0f}/s; {errors} refused: "
          f"{refused}), {len(stalls)} stalls, "
          f"{missing} flags never fell")
    if not live:
        print("no flag fell in the live phase")
        return 1
    p50, p99 = percentile(live, 0.5), percentile(live, 0.99)
    print(f"live ({len(live)} flags): late p50 {p50 * 1000:.0f} ms, p99 {p99 * 1000:.0f} ms, "
          f"max {max(live) * 1000:.0f} ms -> target p99 <= {TARGET_P99:.0f} s: "
          f"{'met' if p99 <= TARGET_P99 else 'MISSED'}")
    worst = max(overdue) if overdue else 0.0
    print(f"outage: {len(overdue)} flags fell due without clock workers; after their return "
          f"they fell within p50 {percentile(overdue, 0.5):.2f} s, max {worst:.2f} s -> "
          f"target {TARGET_AFTER_RETURN:.0f} s: "
          f"{'met' if worst <= TARGET_AFTER_RETURN else 'MISSED'}" if overdue else
          "outage: no flag fell due during the outage (raise --stall or --outage)")
    normal = max((depth for t, depth in sampler.samples if t < killed), default=0)
    drained = next((t for t, depth in sampler.samples if t >= back and depth <= normal), None)
    print("clock queue depth, max per 5 s (k = killed, b = back): " + " ".join(
        f"{'k' if start_t <= killed < start_t + 5 else ''}"
        f"{'b' if start_t <= back < start_t + 5 else ''}"
        f"{max(d for t, d in sampler.samples if start_t <= t < start_t + 5)}"
        for start_t in [started + 5 * i for i in range(int(duration // 5) + 1)]
        if any(start_t <= t < start_t + 5 for t, _d in sampler.samples)))
    if drained is None:
        print(f"queue never back to its normal depth ({normal}) -> MISSED")
        return 1
    drain = drained - back
    print(f"queue back to its normal depth ({normal}) {drain:.1f} s after the return "
          f"-> target {TARGET_DRAIN:.0f} s: {'met' if drain <= TARGET_DRAIN else 'MISSED'}")
    return 0 if (p99 <= TARGET_P99 and worst <= TARGET_AFTER_RETURN and not missing) else 1


if __name__ == "__main__":
    sys.exit(main())
