"""Benchmark of the tournament formats' pairing (``tournaments.formats``).

Run from the repository root: ``.venv/bin/python benchmarks/pairing.py`` (``--repeat N``,
default 7). Single-threaded, pure Python, no database: the manager's cost on top is its own
queries.

* Swiss, 1,024 players, round 5: four rounds are played first with seeded random results, so
  the field is split into score groups and every player has four opponents to avoid. Timed:
  ``next_pairings`` (what the manager calls: it checks the stored rounds and results, then
  pairs), and the pairing step alone (``swiss_pairs``). Target: <= 1 s.
* Double elimination, 256 players: building the whole bracket (``start``; a fresh field each
  time, so the layout cache never answers). Target: <= 0.5 s. Also ``next_pairings`` halfway
  through (what the manager pays after each result) and a whole simulated tournament.

Prints one line per figure: the median over the repeats, in milliseconds.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tournaments.formats import (  # noqa: E402 - after the path set-up above
    DoubleElimination,
    Result,
    Swiss,
    TournamentState,
    swiss_pairs,
)
from tournaments.formats.simulation import play_out  # noqa: E402
from tournaments.formats.swiss import _SwissRecord  # noqa: E402

SWISS_PLAYERS = 1024
SWISS_ROUND = 5
SWISS_TARGET_MS = 1000.0
DOUBLE_PLAYERS = 256
DOUBLE_TARGET_MS = 500.0


def median_ms(action: Callable[[int], object], repeat: int) -> float:
    times = []
    for index in range(repeat):
        started = time.perf_counter()
        action(index)
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times)


def swiss_before_round(players: int, round_number: int, rng: random.Random) -> TournamentState:
    fmt = Swiss(rounds=round_number)
    seeds = list(range(1, players + 1))
    state = TournamentState(seeds)
    for _ in range(round_number - 1):
        pairings = fmt.next_pairings(state)
        state = state.with_pairings(pairings)
        results = []
        for pairing in pairings:
            if pairing.is_playable:
                assert isinstance(pairing.a, int) and isinstance(pairing.b, int)
                won = rng.random() < 0.5
                winner, loser = (pairing.a, pairing.b) if won else (pairing.b, pairing.a)
                results.append(Result(pairing.slot, winner, loser))
        state = TournamentState(seeds, state.pairings, (*state.results, *results))
    return state


def line(label: str, value_ms: float, target_ms: float | None = None) -> None:
    verdict = ""
    if target_ms is not None:
        verdict = f"  (target <= {target_ms:.0f} ms: {'ok' if value_ms <= target_ms else 'MISSED'})"
    print(f"{label:<62} {value_ms:9.2f} ms{verdict}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7, help="timed runs per figure")
    args = parser.parse_args()
    repeat = max(1, args.repeat)
    missed = False
    print(f"tournaments.formats pairing, median of {repeat} runs, Python {sys.version.split()[0]}")

    # Swiss
    fmt = Swiss(rounds=SWISS_ROUND)
    state = swiss_before_round(SWISS_PLAYERS, SWISS_ROUND, random.Random(2024))
    record = _SwissRecord.build(state)
    groups = len(set(record.score.values()))
    round_five = fmt.next_pairings(state)
    met = {frozenset(p.entrants) for p in state.pairings}
    rematches = sum(1 for p in round_five if frozenset(p.entrants) in met)
    print(
        f"  Swiss field: {SWISS_PLAYERS} players before round {SWISS_ROUND}, {groups} score "
        f"groups; round {SWISS_ROUND} has {len(round_five)} pairings, {rematches} rematches"
    )
    swiss_ms = median_ms(lambda _: fmt.next_pairings(state), repeat)
    label = f"Swiss {SWISS_PLAYERS} players, round {SWISS_ROUND}: next_pairings"
    line(label, swiss_ms, SWISS_TARGET_MS)
    missed |= swiss_ms > SWISS_TARGET_MS
    ranked, played = record.ranked(), record.opponents_sets()
    line(
        f"Swiss {SWISS_PLAYERS} players, round {SWISS_ROUND}: pairing step alone",
        median_ms(lambda _: swiss_pairs(ranked, record.score, played, record.byes), repeat),
    )

    # Double elimination
    double = DoubleElimination()
    # A new field each run (ids offset), so the per-field layout cache is cold every time.
    double_ms = median_ms(
        lambda run: double.start(range(1000 * (run + 1), 1000 * (run + 1) + DOUBLE_PLAYERS)),
        repeat,
    )
    line(
        f"Double elimination {DOUBLE_PLAYERS} players: build the bracket",
        double_ms,
        DOUBLE_TARGET_MS,
    )
    missed |= double_ms > DOUBLE_TARGET_MS
    seeds = list(range(1, DOUBLE_PLAYERS + 1))
    finished = play_out(double, seeds, random.Random(7)).state
    halfway = TournamentState(
        seeds, finished.pairings, finished.results[: len(finished.results) // 2]
    )
    line(
        f"Double elimination {DOUBLE_PLAYERS} players: next_pairings halfway",
        median_ms(lambda _: double.next_pairings(halfway), repeat),
    )
    line(
        f"Double elimination {DOUBLE_PLAYERS} players: whole tournament, simulated",
        median_ms(lambda run: play_out(double, seeds, random.Random(run)), max(1, repeat // 2)),
    )
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
