"""A bot's decisions at named strengths, on GNU Backgammon's nets: what to do in a
:class:`tavla.engine.MatchState` when it is the bot's turn to act.

The strengths are gnubg 1.07's own levels (:mod:`tavla.analysis.levels`). A level's noise
has **one source**: gnubg's evaluator, which adds its deterministic noise (a hash of the
board) to each output of every evaluation, as gnubg's levels do. Nothing is added on top,
so a bot plays what gnubg at that level plays, and the same position always gets the same
answer (no random generator is involved: the dice are the server's).

- Checker play: gnubg's best play at the level (0-ply with the level's noise; world class
  2-ply), the first of :func:`tavla.analysis.evaluator.rank_plays`.
- Cube: the equities of no double / double-take / double-pass come from gnubg's cubeful
  evaluation one ply deeper (:func:`tavla.analysis.evaluator.cube_equities`, no noise),
  seen through the level's noise: the noisy evaluation of the position itself
  (:func:`tavla.analysis.evaluator.static_equity` at the level) moves the bot's view of
  its equity by ``bias``; not doubling moves by ``bias``, doubling and taking (the cube
  twice as high) by twice as much, measured in match-winning chances in a match. A bot
  doubles when doubling then beats not doubling and the double is not too good, and takes
  when taking beats passing.
"""

from __future__ import annotations

from tavla.analysis import evaluator
from tavla.analysis.evaluator import Cube, CubeEquities
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
    """The cube equities of ``position`` (the doubler on roll) as ``level`` sees them: the
    noiseless equities moved by the level's noise on the position (see the module's
    docstring); exactly the noiseless ones at a level without noise."""
    eqs = evaluator.cube_equities(position, cube, CUBE_LEVEL)
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
    ranked = evaluator.rank_plays(state.position, state.dice, cube_of(state, player), level)
    best = ranked[0][0]
    for play in plays:
        if (play.position.mover, play.position.opponent) == best:
            return PlayMove(play, player)
    raise AssertionError("gnubg chose a play the rules engine does not know")
