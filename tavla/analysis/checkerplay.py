"""Checker play as gnubg's analysis scores it: every legal play of a roll with its cubeful
equity (best first), and the played play against the best. gnubg is reached through
:mod:`tavla.analysis.evaluator`; the equity after a roll's best play is
:func:`tavla.analysis.luck.best_equity`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tavla.analysis.evaluator import (
    Cube,
    Level,
    Result,
    apply_gnubg_move,
    board,
    cube_info,
    eval_context,
    find_best_moves,
    find_plays,
    move_sides,
    remember_score,
    remember_scores,
    result_score,
    static_equity,
)
from tavla.engine import Position, legal_plays


def rank_plays(
    position: Position, dice: tuple[int, int], cube: Cube, level: Level,
    *, deterministic: bool = True,
) -> list[tuple[Result, float]]:
    """Every legal play of ``dice`` as (resulting position, cubeful equity), best first.

    An empty list means the roll cannot be played. Plays gnubg's move filter drops at a
    deeper level keep the score of the shallower ply that dropped them, as in gnubg's hint.
    Plays whose gnubg move tuple is cut short (see :func:`apply_gnubg_move`) are matched to
    the remaining legal plays in the order of gnubg's cubeless evaluation of each.
    """
    found = find_best_moves(
        board(position), cube_info(cube),
        eval_context(level, cube, deterministic=deterministic), dice,
    )
    ranked: list[tuple[Result, float]] = []
    unknown: list[float] = []
    for entry in found:
        result = apply_gnubg_move(position, entry["move"])
        if result is None:
            unknown.append(float(entry["score"]))
        else:
            ranked.append((result, float(entry["score"])))
    if unknown:
        known = {result for result, _ in ranked}
        rest = [
            (play.position.mover, play.position.opponent)
            for play in legal_plays(position, *dice)
            if (play.position.mover, play.position.opponent) not in known
        ]
        opponent = cube.for_player(1 - cube.mover)
        rest.sort(key=lambda result: static_equity(Position(result[1], result[0]), opponent))
        ranked.extend(zip(rest, unknown, strict=False))
        ranked.sort(key=lambda item: -item[1])
    return ranked



def scored_plays(position: Position, dice: tuple[int, int], cube: Cube, level: Level,
                 played: Result | None = None,
                 zero_ply: list[dict[str, Any]] | None = None) -> list[tuple[Result, float]]:
    """Every play gnubg's analysis scores, as (resulting position, cubeful equity), best first,
    as gnubg 1.07's ``analyse match``: the plays its move filter keeps at ``level``'s full
    depth, and ``played`` always at full depth; plays the filter drops keep their shallower
    score. Bear-offs (whose move tuple the package cuts short) are matched by where they end.

    ``zero_ply`` is gnubg's 0-ply list for the same roll when already computed (luck)."""
    if zero_ply is None or level.plies:
        found = find_plays(position, dice, cube, level)
        ranked = _resolve(position, dice, cube, level, found)
        if level.plies and played is not None:
            ranked = _played_at_depth(position, dice, cube, level, played, ranked, zero_ply)
    else:
        ranked = _resolve(position, dice, cube, level, zero_ply)
    ranked.sort(key=lambda item: -item[1])
    if level.plies == 0 and not level.noise:
        remember_scores(ranked, cube)
    return ranked


def _played_at_depth(position: Position, dice: tuple[int, int], cube: Cube, level: Level,
                     played: Result, ranked: list[tuple[Result, float]],
                     zero_ply: list[dict[str, Any]] | None) -> list[tuple[Result, float]]:
    """``ranked`` (gnubg's filter at ``level``) with the played play scored at full depth.

    gnubg's analysis keeps the played play through its move filter by its key, which the
    package's ``find_best_moves`` cannot be told. Most played plays pass the filter anyway;
    one it drops keeps its 0-ply score, to the digit, so that is how a dropped one is told
    from a kept one. Only then is the roll scored again, with the filter told to accept every
    play down to the played one's 0-ply rank, and only the played play's score is taken
    from that (asking it every time made a weak player's analysis evaluate a dozen extra
    plays at full depth for each of their moves, and let plays gnubg drops outrank its best)."""
    shallow = _resolve(position, dice, cube, Level(),
                       zero_ply if zero_ply is not None
                       else find_plays(position, dice, cube, Level()))
    zero_score = next((score for result, score in shallow if result == played), None)
    deep_score = next((score for result, score in ranked if result == played), None)
    if zero_score is None or deep_score is None or deep_score != zero_score:
        return ranked
    rank = next(i for i, (result, _) in enumerate(shallow) if result == played)
    # The filter ranks on the pruning nets: a little slack keeps the played play in.
    wider = _resolve(position, dice, cube, level,
                     find_plays(position, dice, cube, level, rank + 3))
    # Only the played play's deeper score is taken: the plays above it that the filter had
    # dropped keep their shallow scores, as in gnubg's list.
    deep_score = next((score for result, score in wider if result == played), deep_score)
    return [(result, deep_score if result == played else score) for result, score in ranked]


@dataclass(frozen=True, slots=True)
class Verdict:
    """A checker play against gnubg's best: where the best play ends and its score, the
    played play's score and how many plays the roll has."""

    best: Result
    best_score: float
    played_score: float
    plays: int


def played_verdict(position: Position, cube: Cube, played: Result,
                   zero_ply: list[dict[str, Any]]) -> Verdict | None:
    """The played play against the best from gnubg's 0-ply list ``zero_ply`` (best first),
    without resolving every play's position: only the plays up to the played one are
    applied. None when a bear-off's move tuple is cut short before it is found (then
    :func:`scored_plays` matches the plays by where they end)."""
    if not zero_ply:
        return None
    mover, opponent = position.mover, position.opponent
    best: Result | None = None
    for entry in zero_ply:
        result = move_sides(mover, opponent, entry["move"])
        if result is None:
            return None
        if best is None:
            best = result
        if result == played:
            score = float(entry["score"])
            remember_score(played, cube, score)
            assert best is not None
            return Verdict(best, float(zero_ply[0]["score"]), score, len(zero_ply))
    return None


def _resolve(position: Position, dice: tuple[int, int], cube: Cube, level: Level,
             found: list[dict[str, Any]]) -> list[tuple[Result, float]]:
    """gnubg's entries as (result, score), in gnubg's order; entries whose tuple is cut short
    at a bear-off are scored by where each remaining legal play ends."""
    ranked: list[tuple[Result, float]] = []
    cut = 0
    for entry in found:
        result = apply_gnubg_move(position, entry["move"])
        if result is None:
            cut += 1
        else:
            ranked.append((result, float(entry["score"])))
    if cut:
        known = {result for result, _ in ranked}
        for play in legal_plays(position, *dice):
            result = (play.position.mover, play.position.opponent)
            if result in known:
                continue
            known.add(result)
            score = result_score(result, cube, level)
            if score is None:  # cannot happen in a bear-off (no checker on the bar)
                score = -static_equity(Position(result[1], result[0]),
                                       cube.for_player(1 - cube.mover))
            ranked.append((result, score))
    return ranked
