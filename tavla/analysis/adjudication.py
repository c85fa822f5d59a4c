"""Match-winning chances at the current position, for a referee adjudicating a match
that cannot be finished (gnubg, cubeful, its match equity table)."""

from __future__ import annotations

from tavla.analysis import evaluator, luck
from tavla.analysis.bots import cube_of
from tavla.analysis.cube import cube_equities
from tavla.analysis.levels import Level
from tavla.engine.game import Phase
from tavla.engine.match import MatchState


def match_winning_chances(state: MatchState, level: Level | None = None
                          ) -> tuple[float, float] | None:
    """Each player's chance (player 0, player 1) of winning the match from ``state``, with
    correct cube play from here on; None for a money session or a finished match.

    Before rolling, the player on roll's cube decision is included; with a double on the
    table, the taker's best answer; with the dice rolled, the best play of them. Between
    games (and before the opening roll) it is the match equity of the score.
    """
    length = state.rules.match_length
    if not length or state.is_over:
        return None
    level = level or Level(0)
    phase = state.phase
    mover = state.player_on_roll
    if phase in (Phase.OPENING_ROLL, Phase.GAME_OVER) or mover is None:
        # An even game at the score: the middle of winning and losing one point.
        cube = cube_of(state, 0)
        if phase is Phase.GAME_OVER:
            cube = evaluator.Cube(1, None, 0, length, state.score,
                                  state.next_game_is_crawford())
        chance0 = evaluator.to_mwc(0.0, cube)
        return chance0, 1.0 - chance0
    cube = cube_of(state, mover)
    if phase is Phase.MOVE:
        assert state.dice is not None
        chance = evaluator.to_mwc(
            luck.best_equity(state.position, state.dice, cube, level), cube)
    elif phase is Phase.CUBE_OFFERED:
        eqs = cube_equities(state.position, cube, level)
        assert eqs.mwc is not None
        chance = min(eqs.mwc[1], eqs.mwc[2])  # the taker answers as is best for them
    elif cube.mover_may_double and state.may_double():
        chance = evaluator.to_mwc(cube_equities(state.position, cube, level).best,
                                  cube)
    else:
        equity, _ = luck.roll_average(state.position, cube, level)
        chance = evaluator.to_mwc(equity, cube)
    return (chance, 1.0 - chance) if mover == 0 else (1.0 - chance, chance)
