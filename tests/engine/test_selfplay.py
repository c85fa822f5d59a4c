"""Random self-play: reproducible, and ten thousand games end without an error."""

from __future__ import annotations

import os
import random
from collections import Counter
from concurrent.futures import ProcessPoolExecutor

import pytest

from tavla.engine.actions import Double
from tavla.engine.game import EndReason, Phase, WinKind
from tavla.engine.match import MatchState
from tavla.engine.position import Position
from tavla.engine.rules import Rules
from tavla.engine.selfplay import (
    SelfPlayOptions,
    choose_action,
    cube_is_dead,
    play_game,
    play_match,
    selfplay_mat,
)


def test_a_seed_always_gives_the_same_match() -> None:
    first, actions = play_match(Rules(match_length=5), 42)
    again, same_actions = play_match(Rules(match_length=5), 42)
    assert first == again and actions == same_actions
    assert play_match(Rules(match_length=5), 43)[1] != actions


def test_selfplay_mat_is_a_finished_match() -> None:
    text = selfplay_mat(3, seed=9)
    assert text == selfplay_mat(3, seed=9)
    assert "\n 3 point match\n" in text and " Game 1\n" in text and "Wins" in text


def test_live_cube_only_never_doubles_a_dead_cube() -> None:
    options = SelfPlayOptions(double=1.0, take=1.0, live_cube_only=True)
    doubles = 0
    for seed in range(5):
        state = MatchState.new(Rules(match_length=3))
        rng = random.Random(seed)
        while not state.is_over:
            action = choose_action(state, rng, options)
            if isinstance(action, Double):
                assert not cube_is_dead(state)
                doubles += 1
            state = state.apply(action)
    assert doubles > 0


# `make test` plays 1,000 random games; `make soak` plays 10,000 (TAVLA_SELFPLAY_GAMES).
GAMES = int(os.environ.get("TAVLA_SELFPLAY_GAMES", "1000"))


def play_games(seed: int, count: int) -> Counter[str]:
    """Play ``count`` single games under varied rules; check each end; count what happened."""
    rng = random.Random(seed)
    seen: Counter[str] = Counter()
    for index in range(count):
        rules = Rules(
            match_length=rng.choice([None, 1, 3, 5, 7, 11]),
            cube=rng.random() < 0.8,
            gammons=rng.random() < 0.8,
            crawford=rng.random() < 0.8,
            max_cube=rng.choice([8, 64]),
        )
        options = SelfPlayOptions(double=rng.choice([0.0, 0.05, 0.3]), take=0.75,
                                  resign=rng.choice([0.0, 0.002]))
        state = play_game(MatchState.new(rules), rng, options)
        result = state.game_result
        assert result is not None, index
        assert state.phase in (Phase.GAME_OVER, Phase.MATCH_OVER)
        assert state.score[result.winner] == result.points
        assert state.cube_value <= rules.max_cube
        if result.reason is EndReason.BEAR_OFF:
            winner_side = state.position_for(result.winner)
            assert not any(winner_side.mover)
            multiplier = result.kind.multiplier if rules.gammons else 1
            assert result.points == multiplier * state.cube_value
        else:
            assert result.kind is WinKind.SINGLE
        seen[result.reason.value] += 1
        seen[result.kind.value] += 1
        seen["games"] += 1
        seen.update(event.kind.value for event in state.current_game.events)
    return seen


@pytest.mark.slow
def test_thousands_of_random_games_end_without_an_error() -> None:
    workers = max(1, min(8, os.cpu_count() or 1))
    share = [GAMES // workers + (1 if i < GAMES % workers else 0) for i in range(workers)]
    with ProcessPoolExecutor(max_workers=workers) as pool:
        counts = list(pool.map(play_games, range(workers), share))
    seen: Counter[str] = sum(counts, Counter())
    assert seen["games"] == GAMES
    for what in ("bear_off", "drop", "resign", "gammon", "backgammon", "auto_pass", "take"):
        assert seen[what] > 0, what


def test_a_short_run_in_process() -> None:
    seen = play_games(seed=123, count=40)
    assert seen["games"] == 40


def test_the_initial_board_is_where_games_start() -> None:
    assert MatchState.new().position_for(1) == Position.initial()


def test_the_selfplay_command_prints_the_mat(capsys: pytest.CaptureFixture[str]) -> None:
    from tavla.engine.cli import main

    assert main(["selfplay", "--length", "3", "--seed", "9"]) == 0
    assert capsys.readouterr().out == selfplay_mat(3, seed=9)
    with pytest.raises(SystemExit) as exit_info:
        main(["selfplay", "--length", "0"])
    assert exit_info.value.code == 2
