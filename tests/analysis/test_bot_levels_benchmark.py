"""``benchmarks/bot_levels.py`` reads gnubg 1.07's verdicts right: its statistics of two
matches of gnubg's beginner against itself (saved from a real run of the benchmark's gnubg
script, 3 points, seeds 7 and 8), turned into each side's errors and decisions and a pooled
PR. The calibration itself is the benchmark's, not a test's."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from benchmarks.bot_levels import judge_plies, match_samples, parse_answer, pooled_pr, within
from tavla.analysis.levels import STRENGTHS

SAVED = Path(__file__).with_name("data") / "gnubg_level_stats.json"


def test_gnubgs_statistics_become_samples_and_a_pooled_pr() -> None:
    answer = json.loads(SAVED.read_text())
    matches = parse_answer(answer)
    assert len(matches) == 2 and all(len(sides) == 2 for sides in matches)
    first = matches[0][0]  # player 0 ("X") of the first match
    stats = answer[0]["X"]
    assert first.checker_error == pytest.approx(stats["moves"]["error-skill"])
    assert first.unforced == stats["moves"]["unforced-moves"] == 41
    assert first.cube_error == pytest.approx(stats["cube"]["error-skill"])
    assert first.close_cube == stats["cube"]["close-cube"] == 9
    assert match_samples(answer[1])[1] == matches[1][1]
    pr, half_width, decisions = pooled_pr(matches)
    errors = sum(side.error for sides in matches for side in sides)
    assert decisions == sum(side.decisions for sides in matches for side in sides) == 214
    assert pr == pytest.approx(500 * errors / decisions)
    assert pr == pytest.approx(20.205, abs=0.001)
    assert 0 < half_width < pr
    assert pooled_pr(matches[:1])[1] == math.inf  # one match: no spread to judge by


def test_the_verdict_and_the_judges_depth() -> None:
    assert within(27.0, 27.0 * 1.14) and within(27.0, 27.0 * 0.86)
    assert not within(27.0, 27.0 * 1.16) and not within(27.0, 27.0 * 0.84)
    assert within(0.2, 0.6) and not within(0.2, 0.8)  # near zero: within 0.5 PR
    assert [judge_plies(s.level) for s in STRENGTHS.values()] == [0, 0, 0, 0, 2, 2]
