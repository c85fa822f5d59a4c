"""Which final scores a match can end with: for results reported from over the board.

A match to ``length`` points ends when one player reaches ``length``: the loser has less,
and the winner at least ``length`` and no more than the last game could have brought them.
That game started with the winner below ``length`` (at most ``length - 1``) and was worth at
most a backgammon (3, or 1 with gammons off) times the highest cube (64, or 1 without the
cube), so the winner's total is at most ``length - 1 + 3 * 64``.
"""

from __future__ import annotations

from tavla.engine.rules import MAX_CUBE


def max_game_value(*, cube: bool = True, gammons: bool = True, max_cube: int = MAX_CUBE) -> int:
    """The most one game can be worth: a backgammon (or a single win) times the cube."""
    return (3 if gammons else 1) * (max_cube if cube else 1)


def final_score_problem(
    length: int,
    winner_points: int,
    loser_points: int,
    *,
    cube: bool = True,
    gammons: bool = True,
    max_cube: int = MAX_CUBE,
) -> str | None:
    """Why ``winner_points``–``loser_points`` cannot end a match to ``length``, or ``None``
    when it can. Checks types too: points are whole numbers (not bools)."""
    for value in (length, winner_points, loser_points):
        if isinstance(value, bool) or not isinstance(value, int):
            return "scores are whole numbers of points"
    if length < 1:
        return "a match is played to at least 1 point"
    if loser_points < 0:
        return "a score cannot be negative"
    if loser_points >= length:
        return (f"the loser cannot have {loser_points}: reaching {length} would have won "
                f"the {length}-point match")
    if winner_points < length:
        return f"the winner must have at least {length} points in a {length}-point match"
    most = length - 1 + max_game_value(cube=cube, gammons=gammons, max_cube=max_cube)
    if winner_points > most:
        return (f"the winner cannot have {winner_points}: the last game brings at most "
                f"{length - 1} to {most}")
    return None
