"""Cube decisions as gnubg makes them: no double, double/take and double/pass for the player
on roll, at 0-ply from gnubg's own 0-ply cubeful evaluation and deeper as gnubg's n-ply
evaluator averages the rolls. gnubg is reached through :mod:`tavla.analysis.evaluator`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from tavla.analysis.evaluator import (
    Cube,
    Level,
    cubeinfo_for,
    deep_context,
    find_best_moves,
    find_plays,
    from_mwc,
    has_contact,
    no_double_equity,
    result_score,
    to_mwc,
)
from tavla.analysis.luck import ROLLS, danced, roll_average, roll_equities
from tavla.engine import Position

#: Equities this close are the same number: gnubg computes in single precision, so an
#: equity read back through the match equity table can land a float's step (1.2e-7) above
#: the value it equals (a double/pass of exactly 1 read as 1.0000001).
EQUAL: Final = 1e-6


@dataclass(frozen=True, slots=True)
class CubeEquities:
    """A cube decision from the doubler's side, in equity at the current cube:
    no double, double/take, double/pass; and the same as match-winning chances."""

    no_double: float
    double_take: float
    double_pass: float
    mwc: tuple[float, float, float] | None  # None in a money game

    @classmethod
    def from_match_winning_chances(cls, no_double: float, double_take: float,
                                   cube: Cube) -> CubeEquities:
        """No double and double/take given as the doubler's match-winning chances (as gnubg's
        own analysis stores them), double/pass from the match equity table."""
        return cls(from_mwc(no_double, cube), from_mwc(double_take, cube), 1.0,
                   (no_double, double_take, to_mwc(1.0, cube)))

    @property
    def should_double(self) -> bool:
        return min(self.double_take, self.double_pass) > self.no_double

    @property
    def should_take(self) -> bool:
        return self.double_take <= self.double_pass

    @property
    def best(self) -> float:
        """The doubler's equity with the right cube action by both players."""
        return max(self.no_double, min(self.double_take, self.double_pass))


def cube_equities(position: Position, cube: Cube, level: Level,
                  no_double: float | None = None) -> CubeEquities:
    """No double / double-take / double-pass for the mover (who must have cube access).

    Equities are 1-ply deeper than ``level``'s checker play (each roll's best play at
    ``level``, averaged). ``no_double`` may be passed in when already computed.
    """
    if no_double is None:
        no_double, _ = roll_average(position, cube, level)
    doubled = cube.doubled()
    take_raw, _ = roll_average(position, doubled, level)
    if not cube.match_length:
        return CubeEquities(no_double, 2 * take_raw, 1.0, None)
    mwc_nd = to_mwc(no_double, cube)
    mwc_dt = to_mwc(take_raw, doubled)
    mwc_dp = to_mwc(1.0, cube)
    return CubeEquities(no_double, from_mwc(mwc_dt, cube), 1.0, (mwc_nd, mwc_dt, mwc_dp))


def match_winning_chance(position: Position, cube: Cube, level: Level,
                         *, opponent_doubled: bool = False) -> float:
    """The mover's match-winning chance (a money game: probability-weighted equity mapped to
    0..1 is meaningless, so this is for matches) at the current position before rolling,
    with correct cube play (gnubg, cubeful, its match equity table).

    With ``opponent_doubled`` the mover faces a double and chooses take or pass.
    """
    if opponent_doubled:
        doubler = cube.for_player(1 - cube.mover)
        eqs = cube_equities(position.swap(), doubler, level)
        take = eqs.double_take
        assert eqs.mwc is not None
        chosen = min(eqs.mwc[1], eqs.mwc[2]) if take <= eqs.double_pass else eqs.mwc[2]
        return 1.0 - chosen
    if cube.mover_may_double:
        eqs = cube_equities(position, cube, level)
        return to_mwc(eqs.best, cube)
    equity, _ = roll_average(position, cube, level)
    return to_mwc(equity, cube)


def cube_decision(position: Position, cube: Cube, level: Level,
                  no_double: float | None = None) -> CubeEquities:
    """No double / double-take / double-pass for the mover at ``level``, as gnubg's analysis
    makes a cube decision at that depth: at 0-ply gnubg's own 0-ply cubeful evaluation of the
    position (read from the score gnubg gives a play by the opponent that ends in it), deeper
    the average over the 21 rolls one ply shallower (gnubg's n-ply cube evaluation).

    The mover need not have access to the cube (a dead cube, our rules allow doubling it)."""
    if level.plies:
        inner = Level(level.plies - 1)
        if no_double is None:
            no_double = _cube_average(position, cube, inner)
        take_raw = _cube_average(position, cube.doubled(), inner)
        return _equities(no_double, take_raw, cube)
    them = (position.opponent, position.mover)
    theirs = cube.for_player(1 - cube.mover)
    doubled = cube.doubled().for_player(1 - cube.mover)
    take_score = result_score(them, doubled, level)
    optimal_score = result_score(them, theirs, level)
    if take_score is None or optimal_score is None:
        # The opponent on the bar with nothing in the mover's home board: gnubg's 1-ply.
        if no_double is None:
            no_double, _, _ = roll_equities(position, cube, level)
        take_raw, _, _ = roll_equities(position, cube.doubled(), level)
        return _equities(no_double, take_raw, cube)
    if cube.match_length:
        take_raw = from_mwc(1.0 - to_mwc(take_score, doubled), cube.doubled())
        optimal = from_mwc(1.0 - to_mwc(optimal_score, theirs), cube)
    else:
        take_raw, optimal = -take_score, -optimal_score
    eqs = _equities(optimal, take_raw, cube)
    if (cube.gammons and cube.mover_may_double
            and optimal <= min(eqs.double_take, eqs.double_pass) + EQUAL):
        # gnubg's equity was the double's: not doubling is worth less. In contact gnubg's
        # own 0-ply no-double equity (its cubeful conversion at the current cube);
        # elsewhere only a deeper look says (capped so the verdict stays gnubg's).
        if has_contact(position):
            eqs = _equities(min(no_double_equity(position, cube), optimal), take_raw, cube)
        else:
            deeper = (no_double if no_double is not None
                      else roll_equities(position, cube, level)[0])
            eqs = _equities(min(deeper, optimal), take_raw, cube)
    return eqs


def _cube_average(position: Position, cube: Cube, inner: Level) -> float:
    """gnubg's (n+1)-ply cubeful equity before rolling, as its evaluator computes it: for each
    of the 21 rolls the play it chooses at 0-ply, that one play evaluated ``inner`` (n-ply)
    deep, averaged over the 36 rolls."""
    if not inner.plies:
        average, _, _ = roll_equities(position, cube, inner)
        return average
    context = deep_context(inner.plies, cube.cubeful)
    only_best = [{"ply": inner.plies, "level": 0, "acceptmoves": 1, "extramoves": 0,
                  "threshold": 0.0}] + [
        {"ply": inner.plies, "level": level, "acceptmoves": -1, "extramoves": 0,
         "threshold": 0.0} for level in range(1, inner.plies)]
    gnubg_board = (position.opponent, position.mover)
    info = cubeinfo_for(cube)
    total = 0.0
    dance_equity: float | None = None
    for roll, weight in ROLLS:
        shallow = find_plays(position, roll, cube, Level())
        if not shallow:
            if dance_equity is None:
                dance_equity = danced(position, cube, inner)
            total += weight * dance_equity
            continue
        chosen = tuple(shallow[0]["move"])
        deep = find_best_moves(gnubg_board, info, context, roll, only_best)
        score = next((float(entry["score"]) for entry in deep
                      if tuple(entry["move"]) == chosen), float(deep[0]["score"]))
        total += weight * score
    return total / 36


def _equities(no_double: float, take_raw: float, cube: Cube) -> CubeEquities:
    doubled = cube.doubled()
    if not cube.match_length:
        return CubeEquities(no_double, 2 * take_raw, 1.0, None)
    mwc_nd = to_mwc(no_double, cube)
    mwc_dt = to_mwc(take_raw, doubled)
    mwc_dp = to_mwc(1.0, cube)
    return CubeEquities(no_double, from_mwc(mwc_dt, cube), 1.0, (mwc_nd, mwc_dt, mwc_dp))
