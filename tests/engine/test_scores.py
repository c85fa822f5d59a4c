"""Final scores a match can end with (over-the-board reports)."""

import pytest

from tavla.engine.scores import final_score_problem, max_game_value


@pytest.mark.parametrize(("winner", "loser"), [(3, 0), (3, 2), (4, 2), (5, 1), (3 - 1 + 192, 2)])
def test_scores_that_can_end_a_3_point_match(winner, loser):
    assert final_score_problem(3, winner, loser) is None


@pytest.mark.parametrize(
    ("winner", "loser", "why"),
    [
        (2, 1, "at least 3"),  # the winner has not reached the match length
        (5, 4, "loser cannot have 4"),  # the loser would have won first
        (3, 3, "loser cannot have 3"),
        (3, -1, "negative"),
        (3 - 1 + 192 + 1, 0, "at most"),  # more than a backgammon on a 64 cube brings
    ],
)
def test_scores_that_cannot(winner, loser, why):
    problem = final_score_problem(3, winner, loser)
    assert problem is not None and why in problem


def test_the_overshoot_bound_follows_the_cube_and_gammons():
    assert max_game_value() == 192
    assert max_game_value(cube=False) == 3
    assert max_game_value(cube=False, gammons=False) == 1
    assert final_score_problem(5, 7, 2, cube=False) is None  # 4 + a backgammon
    assert final_score_problem(5, 8, 2, cube=False) is not None
    assert final_score_problem(5, 5, 4, cube=False, gammons=False) is None
    assert final_score_problem(5, 6, 4, cube=False, gammons=False) is not None


@pytest.mark.parametrize("bad", [True, 2.5, "3", None])
def test_scores_are_whole_numbers(bad):
    assert final_score_problem(3, bad, 0) is not None
    assert final_score_problem(3, 3, bad) is not None
