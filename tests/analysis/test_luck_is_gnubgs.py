"""Each roll's luck, as Tavla's own analysis counts it, is the luck gnubg's own ``analyse
match`` gives it, on the evaluator the analysis is built on.

The gnubg package carries GNU Backgammon's whole analysis (its ``LuckAnalysis``: the opening
roll against the 30 opening outcomes, unplayable rolls, every other roll against the 36).
A fresh process imports a ``.mat`` into it, analyses the luck alone and saves the match as
SGF, where each roll's node carries ``LU[luck]``; Tavla's analysis of the same file must give
every roll the same luck (to float precision). This pins the luck to gnubg's algorithm: what
is left between Tavla and gnubg 1.07 (tests/analysis/test_differential.py) is the two
evaluators' outputs, not the way luck is counted (docs/analysis.md, "What still differs").

A standard table's analysis reads its luck from that same SGF (:mod:`tavla.analysis.native`),
so the record is analysed here without its text: Tavla's own counting, the one every other
table (no cube, no gammons, money) and every fallback uses.
"""

from __future__ import annotations

import dataclasses
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tavla.analysis.analyse import analyse_record
from tavla.analysis.matread import read_mat

ROOT = Path(__file__).resolve().parents[2]
DATA = Path(__file__).with_name("data")
#: Short and long matches, players from beginner to world class, many bar positions.
MATCHES = ("gnubg_levels_03pt.mat", "gnubg_levels_09pt.mat", "gnubg_levels_11pt.mat")

# The package's own analysis, luck only, one thread (its worker threads wait for a UI loop
# that a script does not run). gnubg prints to the C stdout, which the test does not need.
SCRIPT = """
import os, sys
os.dup2(os.open(os.devnull, os.O_WRONLY), 1)
from tavla.analysis import evaluator  # the same nets and settings as the analysis
import gnubg
for command in ("set threads 1", "set player 0 human", "set player 1 human",
                "set display off", "set analysis moves off", "set analysis cube off",
                "set analysis luck on", "import mat " + sys.argv[1], "analyse match",
                "save match " + sys.argv[2]):
    gnubg.command(command)
"""

# A roll's node: the player, the dice, the move (absent when it cannot be played), then
# the node's other properties up to the next node, among them the luck.
ROLL_NODE = re.compile(r";[WB]\[(\d)(\d)[a-z]*\][^;]*?LU\[([-\d.]+)\]")


def gnubg_luck(path: Path, tmp_path: Path) -> list[list[tuple[tuple[int, int], float]]]:
    """Each game's rolls (higher die first) and their luck, from gnubg's own analysis."""
    sgf = tmp_path / (path.stem + ".sgf")
    subprocess.run(
        [sys.executable, "-c", SCRIPT, str(path), str(sgf)], check=True, cwd=ROOT,
        stdin=subprocess.DEVNULL, timeout=300,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    games = sgf.read_text().split("(;FF[4]")[1:]
    return [[((max(int(a), int(b)), min(int(a), int(b))), float(luck))
             for a, b, luck in ROLL_NODE.findall(game)] for game in games]


@pytest.mark.slow
@pytest.mark.parametrize("name", MATCHES)
def test_every_roll_has_the_luck_gnubgs_analysis_gives_it(name: str, tmp_path: Path) -> None:
    path = DATA / name
    theirs = gnubg_luck(path, tmp_path)
    # Without its text gnubg's own analysis cannot import the record: Tavla counts.
    analysis = analyse_record(dataclasses.replace(read_mat(path.read_text()), text=""), 0)
    ours: dict[int, list[tuple[tuple[int, int], float]]] = {}
    for decision in analysis.decisions:
        if decision.kind == "move":
            assert decision.dice is not None and decision.luck is not None
            dice = (max(decision.dice), min(decision.dice))
            ours.setdefault(decision.game, []).append((dice, decision.luck))
    assert len(theirs) == len(ours)
    rolls = 0
    for (number, mine), gnubgs in zip(sorted(ours.items()), theirs, strict=True):
        assert [dice for dice, _ in mine] == [dice for dice, _ in gnubgs], f"game {number}"
        for index, ((dice, luck), (_, expected)) in enumerate(zip(mine, gnubgs, strict=True)):
            assert luck == pytest.approx(expected, abs=1e-4), (number, index, dice)
            rolls += 1
    assert rolls > 80
