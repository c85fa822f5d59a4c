"""Differential test of the analysis against Debian's GNU Backgammon 1.07.

The ten gnubg 1.07 self-play matches of tests/analysis/data (2 to 11 points, players of
gnubg's named levels from beginner to world class; made by make_gnubg_selfplay.py) are
analysed by tavla.analysis and by gnubg 1.07's own ``analyse match`` at 0-ply, and compared
decision by decision (tests/analysis/gnubg_reference.py): the best play, the mark of the
played move, the cube verdict, each player's PR and each player's luck over the match.

gnubg's reference PR takes its cube ``error-skill`` as what it is, an error *per close cube
decision* (an earlier version of this test added it to the checker total as if it were a
total, which made gnubg's PR too low).

Both analyses are checked: gnubg's own ``analyse match`` run in the package and read back
(tavla/analysis/native.py, what a standard table gets) and Tavla's own (every other table,
and any decision gnubg's leaves without a verdict). With gnubg 1.07's own nets
(tavla/analysis/nets.py) both meet the acceptance targets of issue 23 at 0-ply, and the
bounds are those targets: best play 99.5 % (measured 99.5 %, 1515 of 1522, both), marks and
cube verdicts 98 % (99.5 %; cube 100 % and 99.8 %), PR delta per player median 0.5 and max
1.5 (0.05, 0.79 both). Luck per player and match is bounded at its median
(target 0.05, measured 0.015); its maximum (0.103, 0.166 before unplayable rolls were scored
at 0-ply through gnubg's Janowski conversion, tavla/analysis/janowski.py) misses the 0.05
target (docs/analysis.md, "What still differs"), so it is held at 0.12, below which it must
stay.
"""

from __future__ import annotations

import statistics
from pathlib import Path
from typing import Any

import pytest

from tavla.analysis import evaluator, nets
from tests.analysis.gnubg_reference import Agreement, compare, reference
from tests.engine.gnubg_ref import gnubg_path

DATA = Path(__file__).with_name("data")
MIN_BEST = 0.995
MIN_BEARING_OFF = 0.99
MIN_MARKS = 0.98
MIN_CUBE = 0.98
MAX_PR_MEDIAN = 0.5
MAX_PR = 1.5
MAX_LUCK_MEDIAN = 0.05
MAX_LUCK = 0.12


FILES = sorted(DATA.glob("gnubg_levels_*.mat"))


@pytest.fixture(scope="module")
def references() -> dict[Path, Any]:
    """gnubg 1.07's own analysis of the ten matches at 0-ply (run once for both tests)."""
    return reference(FILES, 0)


@pytest.mark.slow
@pytest.mark.skipif(gnubg_path() is None, reason="GNU Backgammon is not installed")
@pytest.mark.parametrize("own", [False, True], ids=["gnubgs_own_read_back", "tavlas_own"])
def test_zero_ply_analysis_agrees_with_gnubg_1_07(own: bool,
                                                  references: dict[Path, Any]) -> None:
    assert evaluator.NETS.name == nets.GNUBG_107, "the bounds hold with gnubg 1.07's nets"
    assert len(FILES) == 10
    total = Agreement()
    for path in FILES:
        total.add(compare(path, references[path], 0, own=own))
    print(total.table())
    assert total.plays > 1000 and total.cube > 500
    assert total.best >= MIN_BEST * total.plays
    assert total.bearoff_best >= MIN_BEARING_OFF * total.bearoff_plays
    assert total.marks >= MIN_MARKS * total.plays
    assert total.cube_agree >= MIN_CUBE * total.cube
    assert statistics.median(total.pr_deltas) <= MAX_PR_MEDIAN
    assert max(total.pr_deltas) <= MAX_PR
    assert statistics.median(total.luck_deltas) <= MAX_LUCK_MEDIAN
    assert max(total.luck_deltas) <= MAX_LUCK
