"""A bot's decisions at named strengths, on GNU Backgammon's nets: what to do in a
:class:`tavla.engine.MatchState` when it is the bot's turn to act.

The strengths are gnubg 1.07's own levels (:mod:`tavla.analysis.levels`). A level's noise
has **one source**: gnubg's evaluator, which adds its deterministic noise (a hash of the
board) to the outputs of every evaluation, as gnubg's levels do; its figure is calibrated
so that each level errs as much as gnubg 1.07's level of the same name. Nothing is added
on top, so the same position always gets the same answer (no random generator is
involved: the dice are the server's).

- Checker play: gnubg's best play at the level (0-ply with the level's noise; world class
  2-ply), the first of :func:`tavla.analysis.checkerplay.rank_plays`.
- Cube, at the 0-ply levels: gnubg's own 0-ply cubeful equities of the position with the
  level's noise, as gnubg's levels decide (read through a play that leads to the position:
  see :func:`_zero_ply_cube_equities`). World class, and the rare position no single play
  leads to (the opponent on the bar), use the equities one ply deeper
  (:func:`tavla.analysis.cube.cube_equities`), moved by the level's noise on the
  position itself (:func:`tavla.analysis.evaluator.static_equity` at the level): no double
  by that ``bias``, double/take by twice as much (in match-winning chances in a match).
  A bot doubles when doubling beats not doubling and the double is not too good, and
  takes when taking beats passing.
"""

from __future__ import annotations

from tavla.analysis import checkerplay, evaluator
from tavla.analysis.cube import CubeEquities, cube_equities
from tavla.analysis.evaluator import Cube
from tavla.analysis.levels import STRENGTHS, Level, Strength, strength
from tavla.engine.actions import Action, Double, Drop, PlayMove, Take
from tavla.engine.game import Phase
from tavla.engine.match import MatchState
from tavla.engine.position import Position

# The strengths are plain values, importable without gnubg; they are named here too, where
# the bots' decisions are.
__all__ = ["STRENGTHS", "Strength", "choose", "cube_of", "seen_cube_equities", "strength"]

#: The depth of the cube equities every level starts from (each roll's best play at 0-ply).
CUBE_LEVEL = Level(0)


def cube_of(state: MatchState, mover: int) -> Cube:
    """The cube and score of ``state`` as ``mover`` faces them."""
    rules = state.rules
    return Cube(
        state.cube_value, state.cube_owner, mover, rules.match_length or 0,
        state.score, state.crawford,
    )


def choose(state: MatchState, player: int, key: str) -> Action | None:
    """The action the bot of strength ``key`` playing ``player`` takes now, or None when it
    is not the bot's decision (the server rolls dice; a new game is started by the service).

    In ``TURN_START`` a bot that does not double returns None: the caller rolls for it.
    The answer depends on the state alone. Raises ValueError for an unknown ``key``.
    """
    level = strength(key).level
    phase = state.phase
    if phase is Phase.MOVE and state.player_on_roll == player:
        return _play(state, player, level)
    if phase is Phase.TURN_START and state.player_on_roll == player and state.may_double():
        cube = cube_of(state, player)
        if not cube.mover_may_double:
            return None
        eqs = seen_cube_equities(state.position, cube, level)
        return Double(player) if eqs.should_double else None
    if phase is Phase.CUBE_OFFERED and state.player_on_roll is not None \
            and state.player_on_roll != player:
        doubler = cube_of(state, state.player_on_roll)
        eqs = seen_cube_equities(state.position, doubler, level)
        return Take(player) if eqs.should_take else Drop(player)
    return None


def seen_cube_equities(position: Position, cube: Cube, level: Level) -> CubeEquities:
    """The cube equities of ``position`` (the doubler on roll) as ``level`` sees them (see
    the module's docstring): at 0-ply gnubg's own 0-ply cubeful equities with the level's
    noise; otherwise, or where no position leads to ``position`` by one play, the equities
    one ply deeper, moved by the level's noise on the position."""
    if level.plies == 0:
        found = _zero_ply_cube_equities(position, cube, level)
        if found is not None:
            return found
    eqs = cube_equities(position, cube, CUBE_LEVEL)
    if not level.noise:
        return eqs
    bias = (evaluator.static_equity(position, cube, Level(0, level.noise))
            - evaluator.static_equity(position, cube))
    if eqs.mwc is None:  # money: per unit of the current cube
        return CubeEquities(eqs.no_double + bias, eqs.double_take + 2 * bias,
                            eqs.double_pass, None)
    doubled = cube.doubled()
    # ``bias`` is equity at the current cube; at the doubled cube the same winning chances
    # are worth as much again: move the double/take by ``bias`` at the doubled cube, in
    # match-winning chances, and read it back at the current cube.
    mwc_nd = eqs.mwc[0] + bias * _mwc_per_unit(cube)
    mwc_dt = eqs.mwc[1] + bias * _mwc_per_unit(doubled)
    return CubeEquities(eqs.no_double + bias, evaluator.from_mwc(mwc_dt, cube),
                        eqs.double_pass, (mwc_nd, mwc_dt, eqs.mwc[2]))


def _mwc_per_unit(cube: Cube) -> float:
    """Match-winning chances per unit of normalised equity at ``cube``."""
    return (evaluator.to_mwc(1.0, cube) - evaluator.to_mwc(-1.0, cube)) / 2


def _play(state: MatchState, player: int, level: Level) -> Action:
    plays = state.legal_plays()
    if len(plays) == 1:
        return PlayMove(plays[0], player)
    assert state.dice is not None
    ranked = checkerplay.rank_plays(state.position, state.dice, cube_of(state, player), level)
    best = ranked[0][0]
    for play in plays:
        if (play.position.mover, play.position.opponent) == best:
            return PlayMove(play, player)
    raise AssertionError("gnubg chose a play the rules engine does not know")


# -- gnubg's 0-ply cube decision ------------------------------------------------------------
#
# The gnubg package scores a play by the cubeful 0-ply equity of the position it leaves,
# with the opponent on roll and the evaluation context's noise on that position: exactly
# what gnubg's 0-ply cube decision evaluates (its ``GeneralCubeDecisionE`` at 0 plies, the
# same board, so the same deterministic noise). The package evaluates nothing else
# cubefully before a roll, so the doubler's equities are read as the negated score of a
# play of the opponent that leads to the position: once at the current cube (no double)
# and once with the cube turned and owned by the opponent (double, take).


def _predecessor(position: Position) -> tuple[Position, tuple[int, int]] | None:
    """A position with the doubler's opponent on roll, and a roll, from which one legal
    play of the opponent (one checker moved by both dice, hitting nothing) leaves
    ``position``; None when there is none (the opponent has a checker on the bar)."""
    theirs, ours = position.opponent, position.mover  # ``theirs`` from their own side
    if theirs[24]:
        return None
    for low, high in ((1, 2), (1, 3), (2, 3), (1, 4), (2, 4), (3, 4), (1, 5), (2, 5)):
        for point in range(24):
            start = point + low + high
            if not theirs[point] or start > 23 or ours[23 - start]:
                continue
            if all(ours[23 - (point + die)] for die in (low, high)):
                continue  # both ways the checker would land on (or hit) one of ours
            before = list(theirs)
            before[point] -= 1
            before[start] += 1
            return Position(tuple(before), ours), (high, low)
    return None


def _zero_ply_cube_equities(position: Position, cube: Cube, level: Level
                            ) -> CubeEquities | None:
    found = _predecessor(position)
    if found is None:
        return None
    before, dice = found
    after = (position.opponent, position.mover)
    them = 1 - cube.mover
    doubled = cube.doubled()
    scores = []
    for their_cube in (cube.for_player(them), doubled.for_player(them)):
        score = next((score for result, score in
                      checkerplay.rank_plays(before, dice, their_cube, level)
                      if result == after), None)
        if score is None:
            return None
        scores.append(score)
    if not cube.match_length:
        return CubeEquities(-scores[0], -2 * scores[1], 1.0, None)
    mwc_nd = 1.0 - evaluator.to_mwc(scores[0], cube.for_player(them))
    mwc_dt = 1.0 - evaluator.to_mwc(scores[1], doubled.for_player(them))
    return CubeEquities(evaluator.from_mwc(mwc_nd, cube), evaluator.from_mwc(mwc_dt, cube),
                        1.0, (mwc_nd, mwc_dt, evaluator.to_mwc(1.0, cube)))
