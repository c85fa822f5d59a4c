"""Regenerate the GNU Backgammon self-play matches of the differential test.

Run from the repository root: ``python tests/analysis/data/make_gnubg_selfplay.py``. Debian's
gnubg 1.07 plays both sides at 0-ply with some noise (so there are mistakes to find), with
its own seeded dice, and exports each match as a Jellyfish ``.mat`` here.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))

from tests.engine.gnubg_ref import run_gnubg_scripts  # noqa: E402

HERE = Path(__file__).resolve().parent
MATCHES = [(seed, 3 if seed % 2 else 5) for seed in range(1, 11)] + [(14, 7)]  # the benchmark's

SCRIPT = """
import gnubg
seed, length, path = PAYLOAD
for command in ("set display off", "set player 0 gnubg", "set player 1 gnubg",
                "set player 0 name Gnubg0", "set player 1 name Gnubg1",
                "set player 0 chequerplay evaluation plies 0",
                "set player 1 chequerplay evaluation plies 0",
                "set player 0 cubedecision evaluation plies 0",
                "set player 1 cubedecision evaluation plies 0",
                "set player 0 chequerplay evaluation noise 0.03",
                "set player 1 chequerplay evaluation noise 0.015",
                "set player 0 chequerplay evaluation deterministic off",
                "set player 1 chequerplay evaluation deterministic off",
                "set seed %d" % seed, "new match %d" % length):
    gnubg.command(command)
gnubg.command("export match mat " + path)
emit(path)
"""


def main() -> None:
    names = [f"gnubg_selfplay_{seed:02d}.mat" if length < 7 else "gnubg_selfplay_7pt.mat"
             for seed, length in MATCHES]
    payloads = [[seed, length, str(HERE / name)]
                for (seed, length), name in zip(MATCHES, names, strict=True)]
    for path in run_gnubg_scripts(SCRIPT, payloads, timeout=900):
        print(path)


if __name__ == "__main__":
    main()
