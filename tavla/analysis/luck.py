"""Luck as gnubg's analysis counts it: a roll's best play against the average over the 36
rolls (the 30 opening outcomes for the opening roll), at 0-ply; a roll that cannot be played
is scored at the same depth as the others. gnubg is reached through
:mod:`tavla.analysis.evaluator`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

from tavla.analysis.evaluator import (
    CACHE_LIMIT,
    Cube,
    Level,
    Result,
    analysis_filter,
    board,
    context_for,
    cube_info,
    cubeful_equity,
    cubeinfo_for,
    eval_context,
    find_best_moves,
    find_plays,
    from_mwc,
    result_score,
    static_equity,
    to_mwc,
)
from tavla.engine import Position

#: The 21 distinct rolls and how many of the 36 outcomes each stands for.
ROLLS: Final = tuple(
    ((d1, d2), 1 if d1 == d2 else 2) for d1 in range(1, 7) for d2 in range(1, d1 + 1)
)


#: The 15 non-double rolls: the opening roll is never a double.
OPENING_ROLLS: Final = tuple((roll, weight) for roll, weight in ROLLS if roll[0] != roll[1])

def best_equity(position: Position, dice: tuple[int, int], cube: Cube, level: Level,
                _depth: int = 0) -> float:
    """The mover's cubeful equity after the best play of ``dice``."""
    found = find_best_moves(board(position), cube_info(cube), eval_context(level, cube), dice)
    if found:
        return float(found[0]["score"])
    # No legal play: the opponent is on roll in the same position, before rolling.
    opponent = cube.for_player(1 - cube.mover)
    if _depth:
        return -static_equity(position.swap(), opponent)
    equity, _ = roll_average(position.swap(), opponent, level, _depth=_depth + 1)
    return -equity


def roll_average(position: Position, cube: Cube, level: Level, *, opening: bool = False,
                 _depth: int = 0) -> tuple[float, dict[tuple[int, int], float]]:
    """The mover's cubeful equity before rolling (not doubling): the average over the 36
    rolls of the best play's equity; and that best equity per roll (higher die first).

    ``opening`` averages over the 30 opening rolls (no doubles)."""
    rolls = OPENING_ROLLS if opening else ROLLS
    per_roll: dict[tuple[int, int], float] = {}
    total = 0.0
    weights = 0
    dance_equity: float | None = None
    context = eval_context(level, cube)
    info = cube_info(cube)
    gnubg_board = board(position)
    for roll, weight in rolls:
        found = find_best_moves(gnubg_board, info, context, roll)
        if found:
            equity = float(found[0]["score"])
        else:
            if dance_equity is None:
                dance_equity = best_equity(position, roll, cube, level, _depth)
            equity = dance_equity
        per_roll[(max(roll), min(roll))] = equity
        total += weight * equity
        weights += weight
    return total / weights, per_roll


#: Results of :func:`roll_equities` by (position, cube, level, rolls), for the next player's
#: luck and the rolls that cannot be played. Bounded; cleared when full.
_ROLLS: dict[tuple[Result, Cube, Level, int], tuple[float, dict[tuple[int, int], float],
                                                   list[dict[str, Any]] | None]] = {}


def roll_equities(position: Position, cube: Cube, level: Level, rolls: Sequence[
        tuple[tuple[int, int], int]] = ROLLS, keep: tuple[int, int] | None = None,
                  ) -> tuple[float, dict[tuple[int, int], float], list[dict[str, Any]] | None]:
    """The mover's cubeful equity before rolling, as the weighted average over ``rolls`` of
    each roll's best play at ``level``; each roll's equity (higher die first); and gnubg's
    list of plays for the roll ``keep``. A roll that cannot be played is scored at the same
    depth as the others (the unchanged position, the opponent on roll)."""
    key_keep = (max(keep), min(keep)) if keep else None
    key = ((position.mover, position.opponent), cube, level, len(rolls))
    cached = _ROLLS.get(key)
    if cached is not None and (key_keep is None or cached[2] is not None):
        average, per_roll, kept = cached
        if key_keep is not None:
            kept = find_plays(position, key_keep, cube, level)  # an eval-cache hit in gnubg
        return average, per_roll, kept
    per_roll = {}
    total = 0.0
    weights = 0
    kept = None
    dance_equity: float | None = None
    # One board, cubeinfo and context for all the rolls (what find_plays does per call).
    gnubg_board = (position.opponent, position.mover)
    info, context = cubeinfo_for(cube), context_for(level, cube.cubeful)
    deeper = analysis_filter(level.plies) if level.plies else None
    for roll, weight in rolls:
        found = (find_best_moves(gnubg_board, info, context, roll) if deeper is None
                 else find_best_moves(gnubg_board, info, context, roll, deeper))
        if roll == key_keep:
            kept = found
        if found:
            equity = float(found[0]["score"])
        else:
            if dance_equity is None:
                dance_equity = danced(position, cube, level)
            equity = dance_equity
        per_roll[roll] = equity
        total += weight * equity
        weights += weight
    if len(_ROLLS) > CACHE_LIMIT // 100:
        _ROLLS.clear()
    _ROLLS[key] = (total / weights, per_roll, [] if key_keep is None else kept)
    return total / weights, per_roll, kept


def danced(position: Position, cube: Cube, level: Level) -> float:
    """The mover's equity after a roll that cannot be played: the opponent on roll in the
    same position, at ``level`` (gnubg scores the empty play like any other). When no
    synthetic play reaches it (the mover on the bar with no checker in the opponent's home
    board), at 0-ply gnubg's cubeful conversion of the position's cubeless outputs
    (:func:`cubeful_equity`); deeper (or with noise), the opponent's average roll."""
    score = result_score((position.mover, position.opponent), cube, level)
    if score is not None:
        return score
    opponent = cube.for_player(1 - cube.mover)
    if not cube.gammons:
        theirs = static_equity(position.swap(), opponent)
    elif level.plies == 0 and not level.noise:
        theirs = cubeful_equity(position.swap(), opponent)
    else:
        theirs, _, _ = roll_equities(position.swap(), opponent, level)
    if cube.match_length:
        return from_mwc(1.0 - to_mwc(theirs, opponent), cube)
    return -theirs


def opening_luck(position: Position, dice: tuple[int, int], cube: Cube,
                 per_roll: dict[tuple[int, int], float]) -> float:
    """The luck of the opening roll as gnubg counts it: the roll's equity against the mean of
    all 30 opening outcomes, each of the 15 rolls won by either player, so winning the
    opening roll is luck too. ``per_roll`` are the mover's equities of the 15 rolls."""
    other = cube.for_player(1 - cube.mover)
    if cube.score[0] == cube.score[1]:
        their_rolls = per_roll  # the same game for either player: no need to ask gnubg
    else:
        _, their_rolls, _ = roll_equities(position, other, Level(), OPENING_ROLLS)
    mine = per_roll[(max(dice), min(dice))]
    if cube.match_length:
        mean = sum(to_mwc(per_roll[roll], cube) + 1.0 - to_mwc(their_rolls[roll], other)
                   for roll, _ in OPENING_ROLLS) / 30
        return from_mwc(to_mwc(mine, cube), cube) - from_mwc(mean, cube)
    mean = sum(per_roll[roll] - their_rolls[roll] for roll, _ in OPENING_ROLLS) / 30
    return mine - mean
