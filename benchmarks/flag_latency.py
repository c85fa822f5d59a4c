"""Flag latency: how long after an idle player's deadline is their flag recorded?

Starts a real Celery worker and beat (as production runs them) on PostgreSQL and Redis,
creates N clocked one-point matches whose players never move (no delay, reserves spread
from 2 s to 10 s by default, so the deadlines fall over eight seconds), waits until every
match has been flagged, and prints p50, p99 and max of (time of the timeout event -
deadline). Both paths count: the per-deadline task and the beat sweep behind it.
Target: p99 <= 1.0 s. Measured on the 2-core machine: p50 22-25 ms, p99 141-144 ms, max
240-364 ms (deadlines over 8 s); p50 17 ms, p99 60 ms with spread 0.

Environment: DATABASE_URL (default postgres://postgres@127.0.0.1:5432/tavla_bench, created
and migrated here), REDIS_URL (default redis://127.0.0.1:6379/8). Only rows this benchmark
made (tables "flag-latency …", users "flagbench-…") are deleted before a run.

Run: .venv/bin/python benchmarks/flag_latency.py [matches] [spread-seconds]
(bounded: stops by itself; a spread of 0 puts every deadline at about the same time)
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

BASE_DIR = Path(__file__).resolve().parent.parent
MATCHES = int(sys.argv[1]) if len(sys.argv) > 1 else 100
SPREAD = float(sys.argv[2]) if len(sys.argv) > 2 else 8.0
FIRST_RESERVE = 2.0
LAST_RESERVE = FIRST_RESERVE + SPREAD
WAIT_AFTER_LAST_DEADLINE = 20.0
TARGET_P99 = 1.0
TABLE_PREFIX = "flag-latency"
USER_PREFIX = "flagbench-"

os.environ.setdefault("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/tavla_bench")
os.environ.setdefault("REDIS_URL", "redis://127.0.0.1:6379/8")
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tavla.settings")
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
            print(f"created database {name}")


def start(argv: list[str], log: Path) -> subprocess.Popen[bytes]:
    with log.open("wb") as out:
        return subprocess.Popen([sys.executable, "-m", "celery", "-A", "tavla", *argv],
                                cwd=BASE_DIR, env=os.environ.copy(), stdin=subprocess.DEVNULL,
                                stdout=out, stderr=subprocess.STDOUT)


def stop(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def percentile(values: list[float], fraction: float) -> float:
    """Nearest-rank percentile."""
    ordered = sorted(values)
    rank = max(1, round(fraction * len(ordered) + 0.5 - 1e-9))
    return ordered[min(rank, len(ordered)) - 1]


def main() -> int:
    if not os.environ["DATABASE_URL"].startswith(("postgres://", "postgresql://")):
        print("flag_latency: DATABASE_URL must name a PostgreSQL database")
        return 2
    ensure_database(os.environ["DATABASE_URL"])

    import django

    django.setup()
    from django.contrib.auth import get_user_model
    from django.core.management import call_command

    from matches import services
    from matches.models import Event, LogKind, Match, MatchStatus, Table
    from tavla.celery import app

    call_command("migrate", verbosity=0)
    User = get_user_model()  # noqa: N806 - Django's idiom
    Match.objects.filter(table__name__startswith=TABLE_PREFIX).delete()  # events cascade
    Table.objects.filter(name__startswith=TABLE_PREFIX).delete()
    User.objects.filter(username__startswith=USER_PREFIX).delete()

    logs = Path(tempfile.mkdtemp(prefix="flag-latency-"))
    worker = start(["worker", "--loglevel=INFO", "--without-mingle", "--without-gossip",
                    "-n", f"flagbench-{os.getpid()}@%h"], logs / "worker.log")
    beat = start(["beat", "--loglevel=INFO", "--max-interval=1",
                  "-s", str(logs / "celerybeat-schedule")], logs / "beat.log")
    try:
        ready_by = time.monotonic() + 60
        while not app.control.ping(timeout=0.5):
            if worker.poll() is not None or time.monotonic() > ready_by:
                print(f"the worker did not start; see {logs / 'worker.log'}")
                return 1
        deadlines: dict[int, float] = {}
        for index in range(MATCHES):
            reserve = FIRST_RESERVE + (LAST_RESERVE - FIRST_RESERVE) * index / max(1, MATCHES - 1)
            first, second = (
                services.player_for_user(User.objects.create_user(f"{USER_PREFIX}{index}-{s}"))
                for s in "ab"
            )
            table = services.table_create(
                name=f"{TABLE_PREFIX} {index}", match_length=1, is_rated=False,
                clock_enabled=True, clock_delay=0, clock_reserve_seconds=reserve,
                clock_reserve_per_point=0,
            )
            services.table_sit(table_id=table.pk, player=first)
            services.table_sit(table_id=table.pk, player=second)
            match = Match.objects.get(table=table)
            assert match.deadline is not None
            deadlines[match.pk] = match.deadline.timestamp()
        give_up = max(deadlines.values()) + WAIT_AFTER_LAST_DEADLINE
        while time.time() < give_up:
            playing = Match.objects.filter(pk__in=deadlines, status=MatchStatus.PLAYING).count()
            if playing == 0:
                break
            time.sleep(0.25)
        flagged_at = {
            match_id: created.timestamp()
            for match_id, created in Event.objects.filter(
                match_id__in=deadlines, kind=LogKind.TIMEOUT,
            ).values_list("match_id", "created_at")
        }
    finally:
        stop(beat)
        stop(worker)

    late = [flagged_at[m] - deadlines[m] for m in deadlines if m in flagged_at]
    missing = len(deadlines) - len(late)
    if not late:
        print(f"no match was flagged; logs in {logs}")
        return 1
    p50, p99 = percentile(late, 0.50), percentile(late, 0.99)
    print(f"{len(late)}/{len(deadlines)} matches flagged "
          f"(deadlines over {LAST_RESERVE - FIRST_RESERVE:.0f} s; worker + beat, PostgreSQL)")
    print(f"time flagged - deadline: p50 {p50 * 1000:.0f} ms, p99 {p99 * 1000:.0f} ms, "
          f"max {max(late) * 1000:.0f} ms, mean {statistics.fmean(late) * 1000:.0f} ms, "
          f"over 1 s: {sum(1 for x in late if x > 1.0)}")
    print(f"target p99 <= {TARGET_P99:.1f} s: {'met' if p99 <= TARGET_P99 else 'MISSED'}")
    if missing:
        print(f"{missing} matches were never flagged; logs in {logs}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
