"""Bots on gnubg's nets play whole matches: a bot beats a random player nearly always, and
world class (2-ply) beats beginner (0-ply with gnubg's beginner noise) over many games.

Seeds are fixed, so the numbers are reproducible: measured 10/10 and 10/10 (see the
assertions' margins)."""

from __future__ import annotations

import random

import pytest

from tavla.analysis import bots
from tavla.engine.actions import Action, NewGame, OpeningRoll, PlayMove, Roll, Take
from tavla.engine.game import Phase
from tavla.engine.match import MatchState
from tavla.engine.rules import Rules


def _play(players: tuple[str, str], length: int, seed: int) -> MatchState:
    rng = random.Random(seed)
    state = MatchState.new(Rules(match_length=length))
    while not state.is_over:
        phase = state.phase
        if phase is Phase.OPENING_ROLL:
            state = state.apply(OpeningRoll(rng.randint(1, 6), rng.randint(1, 6)))
            continue
        if phase is Phase.GAME_OVER:
            state = state.apply(NewGame())
            continue
        assert state.player_on_roll is not None
        actor = 1 - state.player_on_roll if phase is Phase.CUBE_OFFERED else state.player_on_roll
        action: Action | None
        if players[actor] == "random":
            if phase is Phase.MOVE:
                action = PlayMove(rng.choice(state.legal_plays()))
            elif phase is Phase.CUBE_OFFERED:
                action = Take()
            else:
                action = None
        else:
            action = bots.choose(state, actor, players[actor])
        state = state.apply(action or Roll(rng.randint(1, 6), rng.randint(1, 6)))
    return state


def _wins(players: tuple[str, str], length: int, games: int) -> int:
    won = 0
    for seed in range(games):
        final = _play(players, length, seed)
        won += final.score[0] > final.score[1]
    return won


def test_an_intermediate_bot_beats_a_random_player() -> None:
    assert _wins(("intermediate", "random"), 3, 10) >= 9


@pytest.mark.slow
def test_world_class_beats_beginner_over_many_games() -> None:
    assert _wins(("world_class", "beginner"), 1, 10) >= 7


def test_an_unknown_strength_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown bot strength"):
        bots.strength("godlike")
    # gnubg 1.07's levels, weakest first; the keys stored on bot players stay valid.
    assert list(bots.STRENGTHS) == ["beginner", "casual_player", "intermediate", "advanced",
                                    "expert", "world_class"]
