"""The analysis knows the table's rules and gnubg's settings, and never tracebacks on a bad
``.mat``: a file no match can produce exits 1 naming its line."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tavla.analysis import evaluator, read_mat
from tavla.analysis.analyse import (
    BLUNDER,
    DOUBTFUL,
    ERROR,
    LUCKY,
    VERY_LUCKY,
    AnalysisRules,
    analyse_mat,
    analyse_record,
    luck_mark,
    mark,
)
from tavla.analysis.cli import main
from tavla.engine import Position, parse_play
from tavla.engine.rules import Rules

DATA = Path(__file__).with_name("data")
FIVE = DATA / "gnubg_levels_05pt.mat"

HEAD = " 5 point match\n\n Game 1\n A : 0                          B : 0\n"
PLAY = "  1) 31: 8/5 6/5                 42: 8/4 6/4\n"

BAD_FILES = [
    # A match length no int of gnubg holds (it used to raise OverflowError).
    (" 99999999999999999999999 point match\n\n Game 1\n A : 0   B : 0\n" + PLAY, 1,
     "at most 32767"),
    # A score the match cannot have, and one the games before it do not give.
    (" 3 point match\n\n Game 1\n A : 0   B : 5\n" + PLAY, 4, "the match was over"),
    (HEAD + PLAY + "      Wins 1 point\n\n Game 2\n A : 0   B : 3\n" + PLAY, 9,
     "the score after game 1 is 1-0"),
    # Game numbers twice, or out of order.
    (HEAD + PLAY + "      Wins 1 point\n\n Game 1\n A : 1   B : 0\n" + PLAY, 8,
     "expected 'Game 2'"),
    # 2,000 empty games.
    (" 5 point match\n\n" + "".join(f" Game {n}\n A : 0   B : 0\n\n" for n in range(1, 2001)),
     3, "game 1 has no action"),
    # More points than a game can be worth.
    (HEAD + PLAY + "      Wins 999999999999 points\n", 6, "worth 1 to 5 points"),
    # A cube that does not double.
    (HEAD + PLAY + "  2) Doubles => 999\n", 6, "not 999"),
    # Only the header: no game at all (a 0 point match is a money session, with games).
    (" 0 point match\n", 1, "no game"),
    (" 7 point match\n\n", 2, "no game"),
]


@pytest.mark.parametrize(("text", "line", "words"), BAD_FILES)
def test_a_file_no_match_can_produce_exits_1_naming_the_line(
    text: str, line: int, words: str, tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    path = tmp_path / "bad.mat"
    path.write_text(text)
    assert main([str(path)]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"{path}: line {line}: ")
    assert words in err
    assert "Traceback" not in err


def test_no_traceback_on_a_match_gnubg_cannot_analyse(tmp_path: Path) -> None:
    """A 70 point match is a valid record, beyond gnubg's match equity table: exit 1, said
    plainly, in a real process (no traceback on standard error)."""
    path = tmp_path / "long.mat"
    path.write_text(" 70 point match\n\n Game 1\n A : 0   B : 0\n" + PLAY)
    done = subprocess.run([sys.executable, "-m", "tavla.analysis", str(path)],
                          capture_output=True, text=True, check=False)
    assert done.returncode == 1
    assert "cannot analyse" in done.stderr and "64 points" in done.stderr
    assert "Traceback" not in done.stderr


def test_thresholds_are_the_evaluators_own() -> None:
    found = evaluator.analysis_thresholds()
    assert (DOUBTFUL, ERROR, BLUNDER) == (found.doubtful, found.error, found.blunder)
    assert (DOUBTFUL, ERROR, BLUNDER) == (0.030, 0.060, 0.120)
    assert (LUCKY, VERY_LUCKY) == (0.3, 0.6)
    assert [mark(x) for x in (0.029, 0.031, 0.061, 0.121)] == ["", "doubtful", "error",
                                                               "blunder"]
    assert [luck_mark(x) for x in (0.31, -0.61, 0.1)] == ["lucky", "very unlucky", ""]


def test_a_cube_off_table_has_no_cube_decision() -> None:
    record = read_mat(FIVE.read_text())
    with_cube = analyse_record(record, 0)
    assert any(d.kind == "no_double" for d in with_cube.decisions)
    without = analyse_record(record, 0, rules=AnalysisRules(cube=False))
    # (the file's resignations, read as gnubg reads a game won without a bear-off, stay)
    assert not [d for d in without.decisions
                if d.kind in ("no_double", "double", "take", "drop")]
    assert all(p.cube_decisions == 0 for p in without.players)
    assert AnalysisRules.of(Rules(match_length=5, cube=False)) == AnalysisRules(cube=False)


def test_a_gammons_off_table_is_analysed_on_winning_chances() -> None:
    """Every equity is cubeless 2 P(win) - 1: the best play's equity is what gnubg's
    cubeless evaluation gives the position after it, seen from the mover."""
    record = read_mat(FIVE.read_text())
    analysis = analyse_record(record, 0, rules=AnalysisRules(gammons=False))
    moves = [d for d in analysis.decisions if d.kind == "move" and not d.forced]
    assert moves
    for decision in moves[:8]:
        assert decision.dice is not None
        position = Position.from_id(decision.position_id)
        after = parse_play(position, *decision.dice, decision.best).position
        chance = 1.0 - evaluator.win_probability(after.swap())
        assert decision.best_equity == pytest.approx(2 * chance - 1, abs=1e-5)
    with_gammons = analyse_record(record, 0)
    assert [d.best_equity for d in with_gammons.decisions] != [
        d.best_equity for d in analysis.decisions]


def test_a_dead_cube_double_and_its_answer_are_analysed() -> None:
    """In a 1 point match every cube is dead: gnubg would never double, our rules allow it."""
    text = (" 1 point match\n\n Game 1\n A : 0                          B : 0\n"
            "  1) 31: 8/5 6/5                 42: 8/4 6/4\n"
            "  2) Doubles => 2                 Takes\n"
            "  3) 65: 24/13\n"
            "      Wins 2 points\n")
    analysis = analyse_mat(text, 0)
    kinds = [(d.kind, d.player) for d in analysis.decisions]
    assert ("double", 0) in kinds and ("take", 1) in kinds
    double = next(d for d in analysis.decisions if d.kind == "double")
    assert double.cube_equities is not None
    assert set(double.cube_equities) == {"no_double", "double_take", "double_pass"}
    # Passing a dead-cube double loses the match at once: taking is right.
    take = next(d for d in analysis.decisions if d.kind == "take")
    assert take.best == "take" and take.loss == pytest.approx(0.0, abs=1e-9)


def test_every_decision_carries_best_cube_equities_and_win_chance() -> None:
    analysis = analyse_record(read_mat(FIVE.read_text()), 0)
    for decision in analysis.decisions:
        assert decision.win_chance is not None and 0.0 <= decision.win_chance <= 1.0
        if decision.kind == "move":
            assert decision.cube_equities is None
            if not decision.forced:
                assert decision.dice is not None
                parse_play(Position.from_id(decision.position_id), *decision.dice,
                           decision.best)
        elif decision.kind.endswith("resign"):
            assert decision.cube_equities is None and decision.resign is not None
            assert decision.best in ("play on", "accept", "reject") or (
                decision.best == decision.chosen)
        else:
            assert decision.cube_equities is not None
            assert decision.best in ("double", "no double", "take", "drop")
    row = analysis.to_dict()["decisions"][0]
    assert {"best", "cube_equities", "win_chance", "mark", "luck_mark", "cube",
            "resign"} <= set(row)


def test_opening_luck_counts_winning_the_opening_roll() -> None:
    """gnubg measures the opening roll against all 30 outcomes, either player winning it:
    at 0-0 that mean is about nothing, so the luck is about the roll's own equity."""
    analysis = analyse_record(read_mat(FIVE.read_text()), 0)
    first = analysis.decisions[0]
    assert first.kind == "move" and first.luck is not None
    assert first.luck == pytest.approx(first.best_equity, abs=0.01)


def test_cli_flags_for_rules_a_mat_cannot_carry(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([str(FIVE), "--no-cube", "--no-gammons", "--json"]) == 0
    out = capsys.readouterr().out
    assert '"kind": "no_double"' not in out and '"kind": "double"' not in out
