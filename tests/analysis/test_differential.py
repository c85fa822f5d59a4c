"""Differential test of the analysis against Debian's GNU Backgammon 1.07.

The ten gnubg 1.07 self-play matches of tests/analysis/data (2 to 11 points, players of
gnubg's named levels from beginner to world class; made by make_gnubg_selfplay.py) are
analysed by tavla.analysis and by gnubg 1.07's own ``analyse match`` at 0-ply, and compared
decision by decision (tests/analysis/gnubg_reference.py): the best play, the mark of the
played move, the cube verdict, each player's PR and each player's luck over the match.

gnubg's reference PR takes its cube ``error-skill`` as what it is, an error *per close cube
decision* (an earlier version of this test added it to the checker total as if it were a
total, which made gnubg's PR too low).

The bounds are what was measured (docs/analysis.md, "Checked against GNU Backgammon 1.07")
less a small margin; the test fails if the agreement gets worse.
"""

from __future__ import annotations

import statistics
from pathlib import Path

import pytest

from tests.analysis.gnubg_reference import Agreement, compare, reference
from tests.engine.gnubg_ref import gnubg_path

DATA = Path(__file__).with_name("data")
MIN_BEST = 0.975
MIN_BEARING_OFF = 0.99
MIN_MARKS = 0.985
MIN_CUBE = 0.99
MAX_PR_MEDIAN = 0.5
MAX_PR = 1.5
MAX_LUCK_MEDIAN = 0.05


@pytest.mark.slow
@pytest.mark.skipif(gnubg_path() is None, reason="GNU Backgammon is not installed")
def test_zero_ply_analysis_agrees_with_gnubg_1_07() -> None:
    files = sorted(DATA.glob("gnubg_levels_*.mat"))
    assert len(files) == 10
    references = reference(files, 0)
    total = Agreement()
    for path in files:
        total.add(compare(path, references[path], 0))
    print(total.table())
    assert total.plays > 1000 and total.cube > 500
    assert total.best >= MIN_BEST * total.plays
    assert total.bearoff_best >= MIN_BEARING_OFF * total.bearoff_plays
    assert total.marks >= MIN_MARKS * total.plays
    assert total.cube_agree >= MIN_CUBE * total.cube
    assert statistics.median(total.pr_deltas) <= MAX_PR_MEDIAN
    assert max(total.pr_deltas) <= MAX_PR
    assert statistics.median(total.luck_deltas) <= MAX_LUCK_MEDIAN
