"""A bot's decisions at named strengths, on GNU Backgammon's nets: what to do in a
:class:`tavla.engine.MatchState` when it is the bot's turn to act.

Strengths follow gnubg's own player levels: the weaker ones evaluate at 0-ply with noise
added to every evaluation (gnubg's "beginner" adds 0.060 equity, "intermediate" 0.040,
"advanced" 0.015); "world class" is gnubg's 2-ply without noise. The cube is handled by
gnubg's cubeful equities (double when doubling beats not doubling and the double is not
too good; take when taking beats passing), with the same noise for the weaker levels.
"""

from __future__ import annotations

import random

from tavla.analysis import evaluator
from tavla.analysis.evaluator import Cube
from tavla.analysis.levels import STRENGTHS, Level, Strength, strength
from tavla.engine.actions import Action, Double, Drop, PlayMove, Take
from tavla.engine.game import Phase
from tavla.engine.match import MatchState

# The strengths are plain values, importable without gnubg; they are named here too, where
# the bots' decisions are.
__all__ = ["STRENGTHS", "Strength", "choose", "cube_of", "strength"]


def cube_of(state: MatchState, mover: int) -> Cube:
    """The cube and score of ``state`` as ``mover`` faces them."""
    rules = state.rules
    return Cube(
        state.cube_value, state.cube_owner, mover, rules.match_length or 0,
        state.score, state.crawford,
    )


def choose(state: MatchState, player: int, key: str, rng: random.Random) -> Action | None:
    """The action the bot playing ``player`` takes now, or None when it is not the bot's
    decision (the server rolls dice; a new game is started by the service).

    In ``TURN_START`` a bot that does not double returns None: the caller rolls for it.
    """
    level = strength(key).level
    phase = state.phase
    if phase is Phase.MOVE and state.player_on_roll == player:
        return _play(state, player, level, rng)
    if phase is Phase.TURN_START and state.player_on_roll == player and state.may_double():
        cube = cube_of(state, player)
        if not cube.mover_may_double:
            return None
        eqs = evaluator.cube_equities(state.position, cube, Level(0))
        jitter = rng.gauss(0.0, level.noise) if level.noise else 0.0
        if min(eqs.double_take, eqs.double_pass) + jitter > eqs.no_double:
            return Double(player)
        return None
    if phase is Phase.CUBE_OFFERED and state.player_on_roll is not None \
            and state.player_on_roll != player:
        doubler = state.player_on_roll
        eqs = evaluator.cube_equities(state.position, cube_of(state, doubler), Level(0))
        jitter = rng.gauss(0.0, level.noise) if level.noise else 0.0
        return Take(player) if eqs.double_take + jitter <= eqs.double_pass else Drop(player)
    return None


def _play(state: MatchState, player: int, level: Level, rng: random.Random) -> Action:
    plays = state.legal_plays()
    if len(plays) == 1:
        return PlayMove(plays[0], player)
    assert state.dice is not None
    # gnubg's noise stays deterministic (a function of the position), so every random
    # choice comes from ``rng`` and a seeded game replays exactly.
    ranked = evaluator.rank_plays(state.position, state.dice, cube_of(state, player), level)
    if level.noise:
        # Jitter the scores with ``rng`` too, so a weak bot does not repeat the same mistake
        # in the same position every time.
        ranked = sorted(ranked, key=lambda item: -(item[1] + rng.gauss(0.0, level.noise)))
    best = ranked[0][0]
    for play in plays:
        if (play.position.mover, play.position.opponent) == best:
            return PlayMove(play, player)
    raise AssertionError("gnubg chose a play the rules engine does not know")
