"""gnubg's 0-ply cubeful conversion in Python (tavla/analysis/janowski.py).

Two references: the package's own C code, which scores every play cubefully at 0-ply, so the
conversion of a position's cubeless outputs must give the score of a play that leaves that
position (under centred, owned and unavailable cubes, money, match, Crawford,
post-Crawford and -2/-2 scores); and Debian's GNU Backgammon 1.07, whose ``analyse match``
gives the luck of a roll that cannot be played because nothing enters against a made home
board (game 2 of tests/analysis/data/gnubg_levels_07pt.mat, 43 at ``24ZgKBHnniMAQA``): with
the roll scored one ply deeper instead, Tavla's luck of that roll was 0.107 off gnubg's.
"""

from __future__ import annotations

import itertools
import random
from pathlib import Path

import pytest

from tavla.analysis import evaluator, janowski
from tavla.analysis.analyse import analyse_record
from tavla.analysis.matread import read_mat
from tavla.engine import Position
from tests.analysis.gnubg_reference import reference
from tests.engine.gnubg_ref import gnubg_path

DATA = Path(__file__).with_name("data")


def _cubes() -> list[evaluator.Cube]:
    """Cube states of every kind, from the mover's (player 0's) side."""
    cubes = []
    for length in (0, 3, 5, 7, 11):
        scores = [(0, 0)] if not length else [
            (0, 0), (1, 2), (length - 2, length - 2), (length - 1, 2), (2, length - 1)]
        for score, value, owner in itertools.product(scores, (1, 2, 4), (None, 0, 1)):
            if (length and value > 1 and owner is None) or (length and value >= length):
                continue
            crawfords = (False, True) if length and length - 1 in score else (False,)
            cubes += [evaluator.Cube(value, owner, 0, length, score, crawford)
                      for crawford in crawfords]
    return cubes


def test_the_conversion_gives_the_packages_own_cubeful_score_of_a_play() -> None:
    rng = random.Random(23)
    after = [turn.after for path in sorted(DATA.glob("gnubg_levels_0*.mat"))
             for game in read_mat(path.read_text()).games for turn in game.turns
             if turn.kind == "play" and turn.after is not None]
    cubes = _cubes()
    compared = 0
    for position in rng.sample(after, 80):
        theirs = position.swap()  # the opponent on roll in the position the play left
        if not evaluator.has_contact(theirs):
            continue
        for cube in rng.sample(cubes, 6):
            score = evaluator.result_score((position.mover, position.opponent), cube,
                                           evaluator.Level())
            if score is None:
                continue
            opponent = cube.for_player(1)
            equity = evaluator.cubeful_equity(theirs, opponent)
            mine = (evaluator.from_mwc(1.0 - evaluator.to_mwc(equity, opponent), cube)
                    if cube.match_length else -equity)
            assert mine == pytest.approx(score, abs=1e-5), (position.to_id(), cube)
            compared += 1
    assert compared > 300


def test_no_double_is_the_packages_score_when_nobody_should_double() -> None:
    # Where gnubg's cube action for the player on roll is "no double", the score of a play
    # leaving them the position is their no-double equity: the top-level conversion (the
    # 0-ply cube decision's no double) must give it.
    rng = random.Random(7)
    after = [turn.after for path in sorted(DATA.glob("gnubg_levels_1*.mat"))
             for game in read_mat(path.read_text()).games for turn in game.turns
             if turn.kind == "play" and turn.after is not None]
    compared = 0
    for position in rng.sample(after, 120):
        theirs = position.swap()
        if not evaluator.has_contact(theirs):
            continue
        cube = evaluator.Cube(1, None, 0, 11, (3, 5), False)
        score = evaluator.result_score((position.mover, position.opponent), cube,
                                       evaluator.Level())
        if score is None:
            continue
        opponent = cube.for_player(1)
        optimal = evaluator.from_mwc(1.0 - evaluator.to_mwc(score, cube), opponent)
        no_double = evaluator.no_double_equity(theirs, opponent)
        assert no_double <= optimal + 1e-5  # doubling is an option, never a cost
        double = evaluator.cubeful_equity(theirs, opponent)
        assert double == pytest.approx(optimal, abs=1e-5)
        if no_double >= optimal - 1e-6:
            compared += 1
    assert compared > 50


def test_money_with_an_owned_cube_is_janowskis_formula() -> None:
    # 50 % to win, no gammons, the mover owns the cube: live cube equity +0.25 (cash
    # point 0.8), dead 0; at cube efficiency 0.68 the equity is 0.68 x 0.25.
    state = janowski.CubeState(1, 0, 0, 0, (0, 0), False, (1.0, 1.0, 1.0, 1.0))
    assert janowski.money_cubeful((0.5, 0.0, 0.0, 0.0, 0.0), state, 0.68) == (
        pytest.approx(0.17))


def test_only_contact_positions_are_converted() -> None:
    race = Position((15,) + (0,) * 24, (15,) + (0,) * 24)
    with pytest.raises(ValueError, match="contact"):
        evaluator.cubeful_equity(race, evaluator.Cube(1, None, 0, 0, (0, 0), False))


@pytest.mark.slow
@pytest.mark.skipif(gnubg_path() is None, reason="GNU Backgammon is not installed")
def test_luck_of_a_roll_that_cannot_enter_is_gnubg_1_07s() -> None:
    path = DATA / "gnubg_levels_07pt.mat"
    theirs = reference([path], 0, processes=1)[path]
    board = "24ZgKBHnniMAQA"
    gnubg_luck = next(action["luck"] for action in theirs["games"][1]
                      if action["action"] == "move" and action["board"] == board)
    ours = next(decision for decision in analyse_record(read_mat(path.read_text())).decisions
                if decision.kind == "move" and decision.position_id == board)
    assert ours.dice == (4, 3) and Position.from_id(board).mover[24] == 1
    assert ours.luck == pytest.approx(gnubg_luck, abs=0.001)
