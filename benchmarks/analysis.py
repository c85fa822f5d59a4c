"""Benchmark of gnubg's match analysis (tavla.analysis): a whole 7-point match.

Run from the repository root: ``.venv/bin/python benchmarks/analysis.py`` (``--quick``
skips the 2-ply run). One process, one thread: gnubg's evaluator runs on one core.

The match is GNU Backgammon's own 0-ply self-play, 7 points, 6 games, 276 actions
(tests/analysis/data/gnubg_selfplay_7pt.mat). Each level's wall time is the median of its
runs, with the CPU time of the process beside it (the machine may be shared). Targets: 2 s
at 0-ply, 60 s at 2-ply.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tavla.analysis.analyse import analyse_record  # noqa: E402
from tavla.analysis.matread import read_mat  # noqa: E402

MATCH = Path(__file__).resolve().parent.parent / "tests/analysis/data/gnubg_selfplay_7pt.mat"
TARGETS = {0: 2.0, 2: 60.0}


def measure(plies: int, runs: int) -> tuple[float, float, int]:
    record = read_mat(MATCH.read_text())
    walls, cpus = [], []
    decisions = 0
    for _ in range(runs):
        wall, cpu = time.perf_counter(), time.process_time()
        analysis = analyse_record(record, plies)
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
        decisions = len(analysis.decisions)
    return statistics.median(walls), statistics.median(cpus), decisions


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true", help="0-ply only")
    args = parser.parse_args()
    failed = False
    for plies, runs in ((0, 5), (2, 1)):
        if plies and args.quick:
            continue
        wall, cpu, decisions = measure(plies, runs)
        target = TARGETS[plies]
        verdict = "ok" if cpu <= target else "SLOWER THAN TARGET"
        failed |= cpu > target
        print(f"{plies}-ply: 7-point match, {decisions} decisions analysed: median wall "
              f"{wall:.2f} s, CPU {cpu:.2f} s over {runs} run(s); target {target:.0f} s: "
              f"{verdict}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
