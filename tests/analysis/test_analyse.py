"""The analysis on gnubg's nets: losses, marks, luck and summaries; a player who always
played gnubg's choice scores PR 0, a random player far worse."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

from tavla.analysis import checkerplay, read_mat
from tavla.analysis.analyse import BLUNDER, DOUBTFUL, ERROR, analyse_mat, error_rating, mark
from tavla.analysis.bots import cube_of
from tavla.analysis.cube import cube_decision
from tavla.analysis.evaluator import Level
from tavla.engine.actions import Double, OpeningRoll, PlayMove, Roll, Take
from tavla.engine.game import Phase
from tavla.engine.match import MatchState
from tavla.engine.matfile import export_mat
from tavla.engine.rules import Rules

GNUBG_FILE = Path(__file__).with_name("gnubg_selfplay_5pt.mat")


def _best_versus_random(seed: int, length: int = 3) -> str:
    """A match where player 0 always plays gnubg's 0-ply choice (cube too) and player 1
    plays at random and always takes."""
    rng = random.Random(seed)
    state = MatchState.new(Rules(match_length=length))
    while not state.is_over:
        phase = state.phase
        if phase is Phase.OPENING_ROLL:
            state = state.apply(OpeningRoll(rng.randint(1, 6), rng.randint(1, 6)))
        elif phase is Phase.GAME_OVER:
            from tavla.engine.actions import NewGame

            state = state.apply(NewGame())
        elif phase is Phase.CUBE_OFFERED:
            state = state.apply(Take())
        elif phase is Phase.TURN_START:
            cube = cube_of(state, state.player_on_roll or 0)
            if state.player_on_roll == 0 and state.may_double() and cube.mover_may_double:
                eqs = cube_decision(state.position, cube, Level(0))
                if eqs.should_double:
                    state = state.apply(Double())
                    continue
            state = state.apply(Roll(rng.randint(1, 6), rng.randint(1, 6)))
        else:
            plays = state.legal_plays()
            if state.player_on_roll == 1:
                state = state.apply(PlayMove(rng.choice(plays)))
                continue
            assert state.dice is not None
            ranked = checkerplay.rank_plays(state.position, state.dice,
                                          cube_of(state, 0), Level(0))
            best = ranked[0][0] if ranked else None
            chosen = next((p for p in plays
                           if (p.position.mover, p.position.opponent) == best), plays[0])
            state = state.apply(PlayMove(chosen))
    return export_mat(state, ("Best", "Random"))


def test_the_player_who_always_played_gnubgs_choice_scores_zero() -> None:
    analysis = analyse_mat(_best_versus_random(5, length=5), plies=0)
    best, random_player = analysis.players
    assert best.decisions > 20 and random_player.decisions > 20
    assert best.pr == pytest.approx(0.0, abs=1e-6)
    assert best.errors == best.blunders == best.doubtful == 0
    assert best.rating == "Supernatural"
    assert random_player.pr > 20 and random_player.blunders > 5
    assert random_player.rating == "Awful!"


def test_losses_marks_and_counts_hold_together() -> None:
    analysis = analyse_mat(GNUBG_FILE.read_text(), plies=0)
    assert analysis.plies == 0 and analysis.engine.startswith("gnubg ")
    for decision in analysis.decisions:
        assert decision.loss >= 0
        assert decision.loss == pytest.approx(decision.best_equity - decision.equity, abs=1e-9)
        if decision.kind == "move" and not decision.forced:
            assert decision.mark == mark(decision.loss)
        if decision.kind == "move":
            assert decision.luck is not None and -3 < decision.luck < 3
        if decision.loss > 0 and decision.kind == "move":
            assert decision.best and decision.best != decision.chosen
    for index, player in enumerate(analysis.players):
        mine = [d for d in analysis.decisions if d.player == index and d.counted]
        assert player.decisions == len(mine)
        assert player.pr == pytest.approx(500 * sum(d.loss for d in mine) / len(mine))
        assert player.blunders == sum(d.loss >= BLUNDER for d in mine)
        assert player.errors == sum(ERROR <= d.loss < BLUNDER for d in mine)
        assert player.doubtful == sum(DOUBTFUL <= d.loss < ERROR for d in mine)
        assert player.rolls == len([d for d in analysis.decisions
                                    if d.player == index and d.kind == "move"])
    kinds = {decision.kind for decision in analysis.decisions}
    assert {"move", "double", "take", "drop", "no_double"} <= kinds


def test_the_opening_six_three_played_six_three_is_an_error() -> None:
    """gnubg's own analysis of this file marks 1. 21: 6/3 a very bad move (-0.144 at 2-ply);
    at 0-ply it is over the error threshold too."""
    analysis = analyse_mat(GNUBG_FILE.read_text(), plies=0)
    first = analysis.decisions[0]
    assert (first.kind, first.chosen, first.best) == ("move", "6/3", "24/23 13/11")
    assert 0.12 < first.loss < 0.17


def test_error_rating_words_follow_gnubg() -> None:
    # gnubg 1.07 printed "Beginner" for 28.3 mEMG and "Casual player" for 18.5 (this file).
    assert error_rating(0.0283) == "Beginner"
    assert error_rating(0.0185) == "Casual player"
    assert error_rating(0.001) == "Supernatural"


def test_money_session_analysis_has_no_match_winning_chances() -> None:
    from tavla.engine.selfplay import play_match

    state, _ = play_match(Rules(match_length=None), 3)
    analysis = analyse_mat(export_mat(state), plies=0)
    assert analysis.match_length == 0
    cube_decisions = [d for d in analysis.decisions if d.cube]
    assert cube_decisions and all("mwc_no_double" not in d.cube for d in cube_decisions
                                  if d.cube)


def test_the_cli_prints_the_summary_and_json_and_names_a_bad_line(tmp_path: Path) -> None:
    command = [sys.executable, "-m", "tavla.analysis", str(GNUBG_FILE)]
    summary = subprocess.run(command, capture_output=True, text=True, check=True).stdout
    assert "PR" in summary and "Blunders" in summary and "gnubg" in summary
    data = json.loads(subprocess.run(command + ["--json"], capture_output=True, text=True,
                                     check=True).stdout)
    assert len(data["players"]) == 2 and data["decisions"][0]["chosen"] == "6/3"
    bad = tmp_path / "bad.mat"
    bad.write_text(" 3 point match\n\n Game 1\n A : 0   B : 0\n  1) 31: 8/5 6/5   42: 8/1\n")
    failed = subprocess.run([sys.executable, "-m", "tavla.analysis", str(bad)],
                            capture_output=True, text=True)
    assert failed.returncode == 1 and "line 5" in failed.stderr
    assert read_mat(GNUBG_FILE.read_text()).match_length == 5
