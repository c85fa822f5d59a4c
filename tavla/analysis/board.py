"""gnubg's ranked answers for one decision, as the analysis board, the hints and the drill
show them: every legal play of a roll with its equity and its loss against the best, or a
cube decision's three equities and the verdict.

It calls the evaluator's public functions only (:mod:`tavla.analysis.evaluator`), so it is
loaded in workers only, like the evaluator (see :mod:`tavla.analysis.gnubg_guard`).
Equities are normalised and cubeful, from the side of the player on roll, as in the match
analysis (docs/analysis.md).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tavla.analysis import checkerplay, evaluator, luck
from tavla.analysis.cube import cube_equities
from tavla.analysis.evaluator import Cube
from tavla.analysis.levels import Level
from tavla.engine import MatchInfo, Position, legal_plays


def cube_of_info(info: MatchInfo) -> Cube:
    """The evaluator's cube for the player on roll of a Match ID's fields."""
    return Cube(info.cube_value, info.cube_owner, info.player_on_roll, info.match_length,
                info.score, info.crawford)


@dataclass(frozen=True, slots=True)
class RankedPlay:
    play: str  # the notation, as ``Play.notation()`` writes it ("" when nothing can move)
    equity: float
    loss: float  # the best play's equity minus this one's, >= 0


def ranked_plays(position: Position, info: MatchInfo, dice: tuple[int, int],
                 plies: int) -> list[RankedPlay]:
    """Every legal play of ``dice`` in ``position`` (the player on roll's view), best first.

    A roll that cannot be played gives one entry with an empty notation and the equity of
    passing the turn."""
    cube = cube_of_info(info)
    level = Level(plies)
    ranked = checkerplay.rank_plays(position, dice, cube, level)
    if not ranked:
        equity = luck.best_equity(position, dice, cube, level)
        return [RankedPlay("", equity, 0.0)]
    notation = {(play.position.mover, play.position.opponent): play.notation()
                for play in legal_plays(position, *dice)}
    best = ranked[0][1]
    return [RankedPlay(notation.get(result, "?"), equity, max(0.0, best - equity))
            for result, equity in ranked]


def cube_verdict(no_double: float, double_take: float, double_pass: float) -> str:
    """gnubg's verdict words as codes: ``no_double_take``, ``double_take``,
    ``double_pass``, ``too_good_take`` or ``too_good_pass`` (too good to double: playing on
    for a gammon is worth more than the point the double wins)."""
    take = double_take <= double_pass
    if min(double_take, double_pass) > no_double:
        return "double_take" if take else "double_pass"
    if no_double > double_pass:
        return "too_good_take" if take else "too_good_pass"
    return "no_double_take"


def cube_answer(position: Position, info: MatchInfo, plies: int) -> dict[str, Any]:
    """The cube decision of the player on roll (who must have access to the cube), evaluated
    at ``plies``: see :func:`cube_answer_from`."""
    eqs = cube_equities(position, cube_of_info(info), Level(plies))
    return cube_answer_from(eqs.no_double, eqs.double_take, eqs.double_pass, eqs.mwc)


def cube_answer_from(no_double: float, double_take: float, double_pass: float,
                     mwc: tuple[float, float, float] | None = None) -> dict[str, Any]:
    """A cube decision from the doubler's three equities: the verdict, the doubler's best
    (``double`` or ``no_double``), the taker's best (``take`` or ``pass``), what each wrong
    choice loses, and the match-winning chances in a match."""
    verdict = cube_verdict(no_double, double_take, double_pass)
    best = max(no_double, min(double_take, double_pass))
    answer: dict[str, Any] = {
        "no_double": no_double,
        "double_take": double_take,
        "double_pass": double_pass,
        "verdict": verdict,
        "best": "double" if verdict.startswith("double") else "no_double",
        "response": "take" if verdict.endswith("take") else "pass",
        "double_loss": max(0.0, best - min(double_take, double_pass)),
        "no_double_loss": max(0.0, best - no_double),
        "take_loss": max(0.0, double_take - double_pass),
        "pass_loss": max(0.0, double_pass - double_take),
    }
    if mwc is not None:
        answer["mwc"] = {"no_double": mwc[0], "double_take": mwc[1], "double_pass": mwc[2]}
    return answer


def engine_name() -> str:
    return f"gnubg {evaluator.version()}"
