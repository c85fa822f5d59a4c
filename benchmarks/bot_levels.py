"""Calibration of the bots against GNU Backgammon 1.07's own levels, judged by gnubg 1.07.

Run from the repository root: ``.venv/bin/python benchmarks/bot_levels.py`` (``--help``
for the sample sizes; ``--levels beginner,advanced`` for some levels only). Needs Debian's
``gnubg`` (1.07) on the PATH or in /usr/games.

For each level of :data:`tavla.analysis.levels.STRENGTHS`:

1. gnubg 1.07 plays ``--games`` matches of ``--length`` points against itself at its own
   level of that name (its ``aecSettings``: 0-ply with deterministic noise 0.060 / 0.050 /
   0.040 / 0.015, expert 0-ply, world class 2-ply; cube decisions at the same setting), on
   its own seeded dice, and analyses each with ``analyse match``;
2. Tavla's bot at that level plays as many matches against itself
   (:func:`tavla.analysis.bots.choose` for both sides, seeded dice), each is exported as a
   Jellyfish ``.mat`` and gnubg 1.07 imports and analyses it the same way.

A level's PR is 500 × (gnubg's ``error-skill`` of checker plays and cube decisions) / (its
unforced checker plays + close cube decisions), pooled over both players of every match.
The noisy levels are judged at 0-ply (gnubg's noiseless 0-ply is far stronger than a
noisy player); "expert" (itself 0-ply) and "world class" (2-ply) at 2-ply, since a judge
no deeper than the player finds no errors at all. The ± is a 95 % interval of the pooled
PR from the spread between matches (ratio estimator). The run fails (exit 1) when a
level's Tavla PR is not within 15 % of gnubg's; where gnubg's own PR is below 1.0 (the
judge finds next to no errors in either), within 0.5 PR instead: a ratio of two numbers
near zero says nothing.

Measured on 3 December 2026 with the package's own nets (the calibration run), 2 cores
shared with seven other helpers' test runs (load average 15 to 31), ``--jobs 2``; ± is the
95 % interval, n the decisions:

    level          judge matches   gnubg PR     n      Tavla PR     n   ratio
    beginner         0p  40 x 5pt  27.04 ± 2.21  6634  26.99 ± 1.43  8583  1.00  ok
    casual_player    0p  40 x 5pt  22.87 ± 1.81  6750  21.40 ± 1.04  8434  0.94  ok
    intermediate     0p  40 x 5pt  15.79 ± 0.72  6663  14.64 ± 1.08  8170  0.93  ok
    advanced         0p  40 x 5pt   4.36 ± 0.30  6406   4.21 ± 0.30  7569  0.96  ok
    expert           2p   6 x 3pt   1.70 ± 1.04   314   1.48 ± 0.43   601  0.87  ok
    world_class      2p   6 x 3pt   0.00 ± 0.00   566   0.13 ± 0.16   434   inf  ok (within 0.5)

And again with gnubg 1.07's nets (tavla/analysis/nets.py, the default since), ``--games 20
--deep-games 4``, load average 11 to 14 (docs/analysis.md, "Bots", has this table):

    beginner         0p  20 x 5pt  26.46 ± 3.27  3669  26.27 ± 1.76  4119  0.99  ok
    casual_player    0p  20 x 5pt  22.72 ± 2.76  3010  21.24 ± 1.44  4225  0.93  ok
    intermediate     0p  20 x 5pt  15.36 ± 0.91  3457  14.17 ± 1.06  4978  0.92  ok
    advanced         0p  20 x 5pt   4.46 ± 0.41  3468   4.03 ± 0.43  4343  0.90  ok
    expert           2p   4 x 3pt   0.97 ± 0.64   216   1.12 ± 0.45   509  1.16  ok (within 0.5)
    world_class      2p   4 x 3pt   0.00 ± 0.00   387   0.15 ± 0.20   198   inf  ok (within 0.5)

The noisy levels' intervals are 5 to 12 % of their PR: a ratio is known to about ±10 %.
Wall time with the package's nets: 5 to 10 minutes a noisy level at that load (mostly
gnubg's own play and analysis; the bots' CPU is about 0.3 s a match), 19 minutes for
expert, 12 for world class (its bots' CPU 28 s for 6 matches); with 1.07's nets and the
shorter sample 2 to 4 minutes a noisy level, 10 for expert and 7 for world class.
"""

from __future__ import annotations

import argparse
import math
import os
import random
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tavla.analysis import bots  # noqa: E402
from tavla.analysis.levels import STRENGTHS, Level  # noqa: E402
from tavla.engine.actions import Action, NewGame, OpeningRoll, Roll  # noqa: E402
from tavla.engine.game import Phase  # noqa: E402
from tavla.engine.match import MatchState  # noqa: E402
from tavla.engine.matfile import export_mat  # noqa: E402
from tavla.engine.rules import Rules  # noqa: E402
from tests.engine.gnubg_ref import gnubg_path, gnubg_version, run_gnubg_scripts  # noqa: E402

TOLERANCE = 0.15
#: Below this PR (gnubg's own level, judged by gnubg) the check is absolute: ±ABSOLUTE.
NEAR_ZERO = 1.0
ABSOLUTE = 0.5

# Runs inside gnubg 1.07. PAYLOAD: {"level": [plies, noise], "judge": plies, "play":
# [[seed, length], ...] to play at the level and analyse, "files": [.mat paths] to import
# and analyse}. Emits, per match, the checker and cube parts of gnubg's statistics of each
# side ("X" is player 0, "O" player 1), as ``gnubg.match(statistics=1)["stats"]`` gives them.
GNUBG_SCRIPT = """
import gnubg
plies, noise = PAYLOAD["level"]
judge = PAYLOAD["judge"]
commands = ["set display off", "set automatic game on", "set automatic roll on",
            "set jacoby off", "set analysis chequerplay evaluation plies %d" % judge,
            "set analysis cubedecision evaluation plies %d" % judge,
            "set analysis chequerplay evaluation prune on",
            "set analysis cubedecision evaluation prune on"]
for player in (0, 1):
    commands.append("set player %d gnubg" % player)
    for kind in ("chequerplay", "cubedecision"):
        base = "set player %d %s evaluation " % (player, kind)
        commands += [base + "plies %d" % plies, base + "noise %.3f" % noise,
                     base + "deterministic on", base + "prune %s" % ("on" if plies else "off"),
                     base + "cubeful on"]
for command in commands:
    gnubg.command(command)

def sides():
    gnubg.command("analyse match")
    stats = gnubg.match(analysis=1, boards=0, statistics=1, verbose=0)["stats"]
    return {s: {"moves": stats[s]["moves"], "cube": stats[s]["cube"]} for s in ("X", "O")}

out = []
for seed, length in PAYLOAD["play"]:
    gnubg.command("set seed %d" % seed)
    gnubg.command("new match %d" % length)
    out.append(sides())
for path in PAYLOAD["files"]:
    gnubg.command("import mat " + path)
    out.append(sides())
emit(out)
"""


@dataclass(frozen=True, slots=True)
class Sample:
    """One side of one match as gnubg judged it."""

    checker_error: float
    unforced: int
    cube_error: float
    close_cube: int

    @property
    def error(self) -> float:
        return self.checker_error + self.cube_error

    @property
    def decisions(self) -> int:
        return self.unforced + self.close_cube


def match_samples(stats: dict[str, Any]) -> list[Sample]:
    """Player 0's and player 1's :class:`Sample` from gnubg's statistics of one match
    (``gnubg.match(statistics=1)["stats"]``: "X" is player 0, "O" player 1)."""
    return [Sample(float(stats[side]["moves"]["error-skill"]),
                   int(stats[side]["moves"]["unforced-moves"]),
                   float(stats[side]["cube"]["error-skill"]),
                   int(stats[side]["cube"]["close-cube"])) for side in ("X", "O")]


def parse_answer(answer: list[dict[str, Any]]) -> list[list[Sample]]:
    """gnubg's answer to :data:`GNUBG_SCRIPT`: the samples of each match, in order."""
    return [match_samples(stats) for stats in answer]


def pooled_pr(matches: list[list[Sample]]) -> tuple[float, float, int]:
    """The PR of all decisions of ``matches`` together, the half width of its 95 %
    interval from the spread between matches (ratio estimator), and the decisions."""
    errors = [sum(side.error for side in match) for match in matches]
    counts = [sum(side.decisions for side in match) for match in matches]
    total = sum(counts)
    if not total:
        return 0.0, math.inf, 0
    rate = sum(errors) / total
    n = len(matches)
    if n < 2:
        return 500 * rate, math.inf, total
    mean_count = total / n
    variance = sum((e - rate * c) ** 2 for e, c in zip(errors, counts, strict=True)) / (n - 1)
    half_width = 1.96 * math.sqrt(variance / n) / mean_count
    return 500 * rate, 500 * half_width, total


def judge_plies(level: Level) -> int:
    """The depth gnubg judges a level at: 0-ply for the noisy levels, 2-ply for the
    noiseless ones (see the module's docstring)."""
    return 0 if level.noise else 2


def bot_match(key: str, length: int, seed: int) -> str:
    """Tavla's bot of strength ``key`` against itself, ``length`` points on dice from
    ``seed``, as a ``.mat`` text."""
    rng = random.Random(seed)
    state = MatchState.new(Rules(match_length=length))
    while not state.is_over:
        phase = state.phase
        action: Action | None = None
        if phase is Phase.OPENING_ROLL:
            die0, die1 = rng.randint(1, 6), rng.randint(1, 6)
            action = OpeningRoll(die0, die1)
        elif phase is Phase.GAME_OVER:
            action = NewGame()
        else:
            actor = state.player_to_act
            assert actor is not None
            action = bots.choose(state, actor, key)
        state = state.apply(action or Roll(rng.randint(1, 6), rng.randint(1, 6)))
    return export_mat(state, names=("TavlaA", "TavlaB"))


def _write_bot_match(job: tuple[str, int, int, str]) -> tuple[str, float]:
    key, length, seed, path = job
    started = time.process_time()
    Path(path).write_text(bot_match(key, length, seed))
    return path, time.process_time() - started


def load_average() -> str:
    one, five, _ = os.getloadavg()
    return f"load {one:.1f}/{five:.1f}"


def run_level(key: str, *, games: int, length: int, jobs: int, folder: Path
              ) -> dict[str, Any]:
    level = STRENGTHS[key].level
    gnubg_level = [level.plies, STRENGTHS[key].gnubg_noise]
    judge = judge_plies(level)
    started = time.perf_counter()
    loads = [load_average()]
    seeds = [1000 + i for i in range(games)]
    paths = [str(folder / f"{key}_{seed}.mat") for seed in seeds]
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        made = list(pool.map(_write_bot_match, [(key, length, s, p)
                                                for s, p in zip(seeds, paths, strict=True)]))
    bot_cpu = sum(cpu for _, cpu in made)
    loads.append(load_average())
    shares: list[dict[str, Any]] = [
        {"level": gnubg_level, "judge": judge,
         "play": [[seed, length] for seed in seeds[part::jobs]], "files": paths[part::jobs]}
        for part in range(jobs)]
    answers = run_gnubg_scripts(GNUBG_SCRIPT, shares, timeout=6 * 3600)
    loads.append(load_average())
    gnubg_matches: list[list[Sample]] = []
    tavla_matches: list[list[Sample]] = []
    for share, answer in zip(shares, answers, strict=True):
        parsed = parse_answer(answer)
        played = len(share["play"])
        gnubg_matches += parsed[:played]
        tavla_matches += parsed[played:]
    gnubg_pr, gnubg_ci, gnubg_n = pooled_pr(gnubg_matches)
    tavla_pr, tavla_ci, tavla_n = pooled_pr(tavla_matches)
    return {"key": key, "judge": judge, "games": games, "gnubg": (gnubg_pr, gnubg_ci, gnubg_n),
            "tavla": (tavla_pr, tavla_ci, tavla_n), "bot_cpu": bot_cpu,
            "wall": time.perf_counter() - started, "loads": loads}


def within(gnubg_pr: float, tavla_pr: float) -> bool:
    if gnubg_pr < NEAR_ZERO:
        return abs(tavla_pr - gnubg_pr) <= ABSOLUTE
    return abs(tavla_pr - gnubg_pr) <= TOLERANCE * gnubg_pr


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--levels", default=",".join(STRENGTHS),
                        help="comma-separated strength keys (default: all)")
    parser.add_argument("--games", type=int, default=40,
                        help="matches per side and level for the noisy levels (default 40)")
    parser.add_argument("--deep-games", type=int, default=6,
                        help="matches per side for expert and world class (2-ply judge)")
    parser.add_argument("--length", type=int, default=5,
                        help="match length for the noisy levels (default 5)")
    parser.add_argument("--deep-length", type=int, default=3,
                        help="match length for expert and world class (default 3)")
    parser.add_argument("--jobs", type=int, default=2, help="processes at once (default 2)")
    args = parser.parse_args()
    if gnubg_path() is None:
        print("GNU Backgammon is not installed (apt-get install gnubg)", file=sys.stderr)
        return 2
    keys = [key.strip() for key in args.levels.split(",") if key.strip()]
    unknown = [key for key in keys if key not in STRENGTHS]
    if unknown:
        print(f"unknown levels: {', '.join(unknown)}; choose from {', '.join(STRENGTHS)}",
              file=sys.stderr)
        return 2
    print(f"{gnubg_version()}; {args.length}-point matches ({args.deep_length} for expert "
          f"and world class), self-play on both sides; "
          f"{args.jobs} processes; {os.cpu_count()} cores; {load_average()} at start")
    print(f"{'level':14} {'judge':>5} {'games':>5} {'gnubg PR':>14} {'n':>6} "
          f"{'Tavla PR':>14} {'n':>6} {'ratio':>6}  verdict  (bot CPU, wall, load: before/"
          f"after bots/after gnubg)")
    failed = False
    with tempfile.TemporaryDirectory(prefix="tavla-bot-levels-") as tmp:
        for key in keys:
            deep = not STRENGTHS[key].level.noise
            row = run_level(key, games=args.deep_games if deep else args.games,
                            length=args.deep_length if deep else args.length,
                            jobs=args.jobs, folder=Path(tmp))
            gnubg_pr, gnubg_ci, gnubg_n = row["gnubg"]
            tavla_pr, tavla_ci, tavla_n = row["tavla"]
            ok = within(gnubg_pr, tavla_pr)
            failed |= not ok
            ratio = tavla_pr / gnubg_pr if gnubg_pr else math.inf
            print(f"{key:14} {row['judge']:>4}p {row['games']:>5} "
                  f"{gnubg_pr:>6.2f} ± {gnubg_ci:<5.2f} {gnubg_n:>6} "
                  f"{tavla_pr:>6.2f} ± {tavla_ci:<5.2f} {tavla_n:>6} {ratio:>6.2f}  "
                  f"{'ok' if ok else 'OUTSIDE':7}  ({row['bot_cpu']:.0f} s, "
                  f"{row['wall']:.0f} s, {' / '.join(row['loads'])})", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
