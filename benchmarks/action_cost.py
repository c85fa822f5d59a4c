"""CPU per action on the service path: the web process's share and PostgreSQL's.

``live_load.py`` measures the whole system, whose figures move by 10-30% from run to run on a
shared machine. This one isolates what one action costs where it is decided: it plays seeded
random matches through :func:`matches.services.match_act` in one thread against PostgreSQL
(the broadcast goes to an in-memory channel layer nobody listens to) and reports, per action,
the Python process's CPU, the PostgreSQL backend's CPU (from ``/proc``), the queries made
and the bytes of the stored snapshot. Only the ``match_act`` calls are timed, not the choice
of the random play.

Environment: ``DATABASE_URL`` (default postgres://postgres@127.0.0.1:5432/tavla_bench_act,
created and migrated if missing), ``REDIS_URL`` (default redis://127.0.0.1:6379/9: a match's
end queues work for the worker, which is not running).

Run: .venv/bin/python benchmarks/action_cost.py [--actions 4000] [--match-length 7]

Measured on the 2-core development machine, quiet, the two versions run back to back
(1 Dec 2026, 20:24 UTC, 3,000 actions, seed 1, so the same games):

                          web CPU per action     PostgreSQL     stored snapshot
                          median      mean       mean           median     max
    3-point, before:      6.15 ms     7.28 ms    3.49 ms        8,778 B    27,445 B
    3-point, after:       4.02 ms     4.70 ms    2.54 ms        5,394 B    19,208 B
    7-point, before:      9.97 ms    12.43 ms    5.17 ms       21,935 B    60,369 B
    7-point, after:       4.40 ms     4.97 ms    2.60 ms        5,783 B    22,238 B

"before" is 66fcd6f (every game's events in the snapshot, json, the six-table locked read);
"after" keeps the current game's events only, uses orjson and reads four tables. An
action now costs about the same in a long match as in a short one.

Then (1 Dec 2026, 23:10 UTC, 7-point, 3,000 actions, two runs each, alternating): ab1b556
against the prepared statements, the changed-columns update and the plays generated once:
web median 3.82 and 3.92 -> 3.38 and 3.73 ms; PostgreSQL mean 1.93 and 2.06 -> 1.36 and
1.46 ms.

Prepared or not (3 Dec 2026, 11:55-12:06 UTC, 7-point, 3,000 actions, two rounds alternating,
the machine loaded 9-13 by other work; medians of the web process, means of PostgreSQL):
the old compiler-built statements 2.32 / 2.23 ms and 1.12 / 1.12 ms; the hand-written SQL
with PREPARE/EXECUTE 2.35 / 2.38 and 1.14 / 1.08 ms; the same unprepared
(TAVLA_PREPARED_STATEMENTS=0) 2.44 / 2.72 and 1.43 / 1.59 ms; psycopg's own prepared
statements (``execute(..., prepare=True)`` on a server-side-binding cursor, the extended
protocol) 2.47 / 2.18 and 1.55 / 1.51 ms. So PREPARE/EXECUTE stays, and PgBouncer in
transaction mode is served unprepared.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _machine import cpu_ticks_of  # noqa: E402
from live_load import ensure_database  # noqa: E402

BASE_DIR = Path(__file__).resolve().parent.parent
DEFAULT_DATABASE = "postgres://postgres@127.0.0.1:5432/tavla_bench_act"


def choose(state: object, rng: random.Random) -> tuple[str, str | None]:
    """A random legal action for the player to act, as the load bots choose."""
    from tavla.engine.game import Phase

    phase = state.phase  # type: ignore[attr-defined]
    if phase is Phase.TURN_START:
        return ("double" if state.may_double() and rng.random() < 0.03  # type: ignore[attr-defined]
                else "roll"), None
    if phase is Phase.CUBE_OFFERED:
        return ("take" if rng.random() < 0.7 else "drop"), None
    plays = state.legal_plays()  # type: ignore[attr-defined]
    return "play", rng.choice(plays).notation()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--actions", type=int, default=4000)
    parser.add_argument("--match-length", type=int, default=7)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    url = os.environ.get("DATABASE_URL", DEFAULT_DATABASE)
    ensure_database(url)
    # Redis only for what a match's end hands to the worker (nothing runs it here).
    os.environ.setdefault("REDIS_URL", "redis://127.0.0.1:6379/9")
    os.environ.update(DATABASE_URL=url, DEBUG="1", DJANGO_SETTINGS_MODULE="tavla.settings")
    sys.path.insert(0, str(BASE_DIR))
    import django

    django.setup()
    from django.conf import settings
    from django.contrib.auth.models import User
    from django.core.management import call_command
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    call_command("migrate", verbosity=0)
    from matches import services
    from matches.models import Match, MatchStatus
    from matches.services.dice_seeds import match_client_seed
    from matches.state import load_state

    rng = random.Random(args.seed)
    run = f"{time.time_ns():x}"
    users = [User.objects.create(username=f"cost-{run}-{i}") for i in range(2)]
    players = [services.player_for_user(user) for user in users]
    table = services.table_create(name=f"cost {run}", match_length=args.match_length,
                                  is_rated=False)
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        backend = cursor.fetchone()[0]

    def new_match() -> Match:
        for seat, player in enumerate(players):
            services.table_sit(table_id=table.pk, player=player, seat=seat)
        match = Match.objects.filter(table=table).order_by("-pk").first()
        assert match is not None  # both seats taken: the match started
        # The same games in every run, so that runs compare: the server's dice seed from
        # --seed (the commitment no longer fits it; nothing here audits the dice).
        Match.objects.filter(pk=match.pk).update(dice_seed=rng.randbytes(32).hex())
        return match

    client: list[float] = []
    server: list[float] = []
    queries: list[int] = []
    snapshot_bytes: list[int] = []
    match = new_match()
    while len(client) < args.actions:
        match.refresh_from_db()
        if match.status != MatchStatus.PLAYING:
            match = new_match()
            continue
        state = load_state(match)
        seat = state.player_to_act
        if seat is None:
            for player in players:  # the first roll waits for both client seeds
                match_client_seed(match_id=match.pk, player=player, seed=rng.randbytes(16).hex())
            continue
        action, play = choose(state, rng)
        with CaptureQueriesContext(connection) as captured:
            pg_before, cpu_before = cpu_ticks_of([backend]), time.process_time()
            services.match_act(match_id=match.pk, player=players[seat], action=action,
                               expected_version=match.version, play=play)
            cpu_after, pg_after = time.process_time(), cpu_ticks_of([backend])
        client.append(cpu_after - cpu_before)
        server.append(pg_after - pg_before)
        queries.append(len(captured.captured_queries))
        if len(client) % 50 == 0:
            with connection.cursor() as cursor:
                cursor.execute("SELECT length(snapshot::text) FROM matches_match WHERE id = %s",
                               [match.pk])
                snapshot_bytes.append(cursor.fetchone()[0])

    count = len(client)
    print(f"{count} actions, {args.match_length}-point matches, seed {args.seed}")
    print(f"web process CPU per action: mean {1000 * sum(client) / count:.3f} ms, "
          f"median {1000 * statistics.median(client):.3f} ms")
    print(f"PostgreSQL backend CPU per action: mean {1000 * sum(server) / count:.3f} ms "
          f"(clock ticks of {1000 / os.sysconf('SC_CLK_TCK'):.0f} ms, so only the mean counts)")
    print(f"queries per action: median {statistics.median(queries):.0f}, max {max(queries)}")
    if snapshot_bytes:
        print(f"stored snapshot: median {statistics.median(snapshot_bytes):,.0f} bytes, "
              f"max {max(snapshot_bytes):,}")


if __name__ == "__main__":
    main()
