"""Regenerate the GNU Backgammon self-play matches of the differential test and benchmark.

Run from the repository root: ``python tests/analysis/data/make_gnubg_selfplay.py``. Debian's
gnubg 1.07 plays both sides with its own seeded dice and exports each match as a Jellyfish
``.mat`` here: ten matches of 2 to 11 points between players of gnubg's named levels (noise
on checker play and cube decisions alike, so there are mistakes of every kind to find),
and the benchmark (benchmarks/analysis.py) uses the same ten.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))

from tests.engine.gnubg_ref import run_gnubg_scripts  # noqa: E402

HERE = Path(__file__).resolve().parent
#: gnubg's named levels: (plies, noise).
LEVELS = {"beginner": (0, 0.060), "casual": (0, 0.050), "intermediate": (0, 0.040),
          "advanced": (0, 0.015), "expert": (0, 0.0), "world class": (2, 0.0)}
#: (seed, match length, player 0's level, player 1's level).
MATCHES = [
    (1, 2, "beginner", "casual"), (2, 3, "intermediate", "beginner"),
    (3, 4, "advanced", "intermediate"), (4, 5, "expert", "beginner"),
    (5, 6, "casual", "advanced"), (6, 7, "beginner", "beginner"),
    (7, 8, "intermediate", "expert"), (8, 9, "advanced", "casual"),
    (9, 10, "world class", "intermediate"), (10, 11, "casual", "intermediate"),
]

SCRIPT = """
import gnubg
seed, length, path, levels = PAYLOAD
commands = ["set display off", "set player 0 gnubg", "set player 1 gnubg",
            "set player 0 name Gnubg0", "set player 1 name Gnubg1"]
for player, (plies, noise) in enumerate(levels):
    for kind in ("chequerplay", "cubedecision"):
        prefix = "set player %d %s evaluation " % (player, kind)
        commands += [prefix + "plies %d" % plies, prefix + "noise %.3f" % noise,
                     prefix + "deterministic off", prefix + "prune on"]
commands += ["set seed %d" % seed, "new match %d" % length]
for command in commands:
    gnubg.command(command)
gnubg.command("export match mat " + path)
emit(path)
"""


def main() -> None:
    payloads = [[seed, length, str(HERE / f"gnubg_levels_{length:02d}pt.mat"),
                 [LEVELS[first], LEVELS[second]]]
                for seed, length, first, second in MATCHES]
    for path in run_gnubg_scripts(SCRIPT, payloads, timeout=1800):
        print(path)


if __name__ == "__main__":
    main()
