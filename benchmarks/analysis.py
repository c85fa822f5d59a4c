"""Benchmark of the match analysis (tavla.analysis) against GNU Backgammon 1.07's own
``analyse match``, side by side in one run, on the same matches at the same depth.

Run from the repository root: ``.venv/bin/python benchmarks/analysis.py`` (``--quick``: 0-ply
only; ``--plies 2``: 2-ply only; ``--rounds N``: measurements per match and side, default 3).
Both sides are measured in CPU seconds of the analysis alone, each match in a fresh process
after the same warm-up match (not measured; gnubg 1.07 has its nets and databases loaded
when its timing starts, so Tavla must too): ours with ``time.process_time`` around
``analyse_record``, gnubg's around ``analyse match`` inside Debian's gnubg 1.07 (``gnubg -t``,
one thread: ``set threads 1``), when it is installed. Round by round, match by match, gnubg
then Tavla, so that whatever else the machine does falls on both alike; each side's median
counts. The matches are the ten gnubg self-play matches of the differential test (2 to 11
points, tests/analysis/data/gnubg_levels_*.mat) at 0-ply, and the first three at 2-ply.
Reported: each match's CPU on both sides and the ratio, the median ratio and the ratio of
the totals; the target is a median ratio of at most 1.0 at either depth.

Measured on 2026-12-04 (the benchmark alone, load average 0.5-0.9), a standard table's
analysis being gnubg's own in the package (tavla/analysis/native.py), gnubg 1.07's nets and
a 2^14-position evaluation cache:
* 0-ply, ten matches: median ratio Tavla/gnubg 0.91 and 0.92 in two runs (totals 2.15 s
  against 2.29 s, 2.38 s against 2.49 s): the target is met. Before, with Tavla asking the
  package for every number: 1.19 to 1.22.
* 2-ply, three matches: median ratio 1.09 (totals 24.5 s against 21.4 s; per match 1.05 to
  1.45): not met; the package's C analysis is slower than gnubg 1.07's at 2-ply with the
  same move filter (docs/analysis.md, "Speed").
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tavla.analysis import evaluator  # noqa: E402
from tavla.analysis.analyse import analyse_record  # noqa: E402
from tavla.analysis.matread import read_mat  # noqa: E402
from tavla.engine import Position  # noqa: E402
from tests.engine.gnubg_ref import gnubg_path, run_gnubg_script  # noqa: E402

DATA = Path(__file__).resolve().parent.parent / "tests/analysis/data"
MATCHES = sorted(DATA.glob("gnubg_levels_*.mat"))
TWO_PLY_MATCHES = MATCHES[:3]
#: Not measured: analysed once before the measured ones (another gnubg self-play match).
WARM_UP = DATA.parent / "gnubg_selfplay_5pt.mat"
TARGET_RATIO = 1.0

# Runs inside gnubg 1.07: the warm-up match analysed untimed, then the CPU seconds of
# ``analyse match`` of the measured file.
GNUBG_SCRIPT = """
import gnubg, time
plies, warm_up, path = PAYLOAD
for command in ("set player 0 human", "set player 1 human", "set display off",
                "set threads 1",
                "set analysis chequerplay evaluation plies %d" % plies,
                "set analysis cubedecision evaluation plies %d" % plies):
    gnubg.command(command)
gnubg.command("import mat " + warm_up)
gnubg.command("analyse match")
gnubg.command("import mat " + path)
start = time.process_time()
gnubg.command("analyse match")
emit(time.process_time() - start)
"""


def ours(path: Path, plies: int) -> float:
    """CPU seconds of Tavla's analysis of ``path`` in this process, warmed up as gnubg is:
    nets, bear-off databases and the analysis's code paths loaded by the warm-up match."""
    evaluator.static_equity(Position.initial(), evaluator.Cube(1, None, 0, 0, (0, 0), False))
    analyse_record(read_mat(WARM_UP.read_text()), plies)
    record = read_mat(path.read_text())
    start = time.process_time()
    analyse_record(record, plies)
    return time.process_time() - start


def ours_in_a_fresh_process(path: Path, plies: int) -> float:
    """:func:`ours` in a process of its own, as gnubg's side runs: no cache or memory left
    by another measurement."""
    done = subprocess.run(
        [sys.executable, str(Path(__file__).resolve()), "--one", str(path), "--plies",
         str(plies)], capture_output=True, text=True, check=True, stdin=subprocess.DEVNULL,
    )
    return float(done.stdout.split()[-1])


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true", help="0-ply only")
    parser.add_argument("--plies", type=int, choices=(0, 2), help="one depth only")
    parser.add_argument("--rounds", type=int, default=3,
                        help="measurements of each match on each side (the median counts)")
    parser.add_argument("--one", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one is not None:
        print(ours(args.one, args.plies or 0))
        return 0
    depths = [0] if args.quick else [args.plies] if args.plies is not None else [0, 2]
    if gnubg_path() is None:
        print("gnubg 1.07 is not installed (apt-get install gnubg): nothing to compare with")
        return 2
    failed = False
    for plies in depths:
        files = MATCHES if plies == 0 else TWO_PLY_MATCHES
        mine: dict[Path, list[float]] = {path: [] for path in files}
        theirs: dict[Path, list[float]] = {path: [] for path in files}
        # Round by round, match by match, gnubg then Tavla: whatever else the machine does
        # at a time falls on both sides alike.
        for _ in range(args.rounds):
            for path in files:
                theirs[path].append(run_gnubg_script(
                    GNUBG_SCRIPT, [plies, str(WARM_UP), str(path)], timeout=7200))
                mine[path].append(ours_in_a_fresh_process(path, plies))
        ratios = []
        for path in files:
            cpu, gnubg_cpu = statistics.median(mine[path]), statistics.median(theirs[path])
            ratios.append(cpu / gnubg_cpu)
            print(f"{plies}-ply {path.name}: Tavla {cpu:.2f} s CPU, gnubg 1.07 "
                  f"{gnubg_cpu:.2f} s CPU, ratio {cpu / gnubg_cpu:.2f} (medians of "
                  f"{args.rounds})")
        total = sum(statistics.median(mine[p]) for p in files)
        total_gnubg = sum(statistics.median(theirs[p]) for p in files)
        median = statistics.median(ratios)
        verdict = "ok" if median <= TARGET_RATIO else "SLOWER THAN GNUBG"
        failed |= median > TARGET_RATIO
        print(f"{plies}-ply: median ratio Tavla/gnubg {median:.2f} over {len(files)} "
              f"matches (max {max(ratios):.2f}; all matches {total:.2f} s against "
              f"{total_gnubg:.2f} s, {total / total_gnubg:.2f}); target "
              f"{TARGET_RATIO:.1f}: {verdict}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
