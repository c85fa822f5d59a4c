"""Match play: scores, Crawford, money sessions, match ends, snapshots and replay."""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tavla.engine.actions import (
    Action,
    Adjudicate,
    AdjudicationScope,
    Double,
    Drop,
    EndSession,
    Forfeit,
    NewGame,
    OpeningRoll,
    PlayMove,
    Resign,
    Roll,
    Take,
    Timeout,
    action_from_dict,
)
from tavla.engine.errors import EngineError, IllegalActionError
from tavla.engine.game import EndReason, EventKind, Phase
from tavla.engine.match import MatchState
from tavla.engine.match_id import gnubg_ids
from tavla.engine.rules import Rules
from tavla.engine.selfplay import SelfPlayOptions, choose_action, play_match


def start_game(state: MatchState) -> MatchState:
    """Opening roll 3-1 for player 0, played 8/5 6/5: player 1 is at turn start."""
    if state.phase is Phase.GAME_OVER:
        state = state.apply(NewGame())
    return state.apply(OpeningRoll(3, 1)).apply(PlayMove("8/5 6/5"))


def win(state: MatchState, winner: int, cube: int = 1) -> MatchState:
    """A new game that ``winner`` wins ``cube`` points by resignation (cube taken first)."""
    state = start_game(state)  # player 1 on roll
    if cube == 2:
        if state.may_double():
            state = state.apply(Double()).apply(Take())  # player 1 doubles, player 0 owns it
        else:
            raise AssertionError("cannot double here")
    return state.apply(Resign(1 - winner))


# -- Crawford --------------------------------------------------------------------------------

def test_crawford_game_after_first_reaching_one_away_then_post_crawford() -> None:
    state = win(MatchState.new(Rules(match_length=3)), 0, cube=2)
    assert state.score == (2, 0) and state.next_game_is_crawford()
    state = start_game(state)
    assert state.crawford and not state.may_double()
    with pytest.raises(IllegalActionError, match="Crawford"):
        state.apply(Double())
    assert state.current_game.crawford
    state = state.apply(Resign(0))  # player 1 wins the Crawford game
    assert state.score == (2, 1) and state.post_crawford and not state.next_game_is_crawford()
    state = start_game(state)
    assert not state.crawford and state.may_double()  # post-Crawford: doubling again
    state = state.apply(Resign(0))  # 2-2: no second Crawford game
    assert state.score == (2, 2) and not state.next_game_is_crawford()
    assert start_game(state).may_double()


def test_crawford_when_jumping_to_one_away() -> None:
    state = win(MatchState.new(Rules(match_length=5)), 1, cube=2)
    assert not state.next_game_is_crawford()
    state = win(state, 1, cube=2)  # 0-2 to 0-4: one away without passing 0-3
    assert state.score == (0, 4)
    assert state.next_game_is_crawford()


def test_no_crawford_without_the_rule_or_in_money_play() -> None:
    state = win(MatchState.new(Rules(match_length=3, crawford=False)), 0, cube=2)
    assert not state.next_game_is_crawford() and start_game(state).may_double()
    money = win(MatchState.new(Rules()), 0, cube=2)
    assert not money.next_game_is_crawford()


def test_one_point_match_has_no_crawford_game() -> None:
    state = start_game(MatchState.new(Rules(match_length=1)))
    assert not state.crawford and state.may_double()


# -- the end of a match ------------------------------------------------------------------------

def test_match_ends_when_a_player_reaches_the_length() -> None:
    state = win(MatchState.new(Rules(match_length=3)), 1)
    assert state.phase is Phase.GAME_OVER
    state = win(state, 1, cube=2)  # 0-3: over, even though the Crawford rule never applied
    assert state.phase is Phase.MATCH_OVER and state.is_over
    assert (state.winner, state.end_reason, state.score) == (1, EndReason.SCORE, (0, 3))
    for action in (NewGame(), OpeningRoll(3, 1), Resign(0), Forfeit(0), EndSession()):
        with pytest.raises(IllegalActionError):
            state.apply(action)


def test_points_beyond_the_length_are_recorded() -> None:
    state = win(MatchState.new(Rules(match_length=1)), 0, cube=2)
    assert state.score == (2, 0) and state.winner == 0


def test_forfeit_in_a_game_awards_what_the_winner_needs() -> None:
    state = win(MatchState.new(Rules(match_length=7)), 1)  # 0-1
    state = start_game(state).apply(Forfeit(0))
    assert state.phase is Phase.MATCH_OVER
    assert (state.winner, state.end_reason, state.score) == (1, EndReason.FORFEIT, (0, 7))
    assert state.current_game.events[-1].kind is EventKind.FORFEIT


def test_forfeit_between_games_is_recorded_in_a_new_game() -> None:
    state = win(MatchState.new(Rules(match_length=5)), 0)  # 1-0, GAME_OVER
    state = state.apply(Forfeit(0))
    assert (state.winner, state.score, state.game_number) == (1, (1, 5), 2)
    game = state.current_game
    assert game.score_before == (1, 0) and [e.kind for e in game.events] == [EventKind.FORFEIT]
    assert MatchState.from_dict(state.to_dict()) == state


def test_referee_awards_the_match() -> None:
    state = start_game(MatchState.new(Rules(match_length=5)))
    decided = state.apply(Adjudicate(0, AdjudicationScope.MATCH, reason="no show"))
    assert (decided.winner, decided.end_reason, decided.score) == (
        0, EndReason.ADJUDICATION, (5, 0))
    partial = state.apply(Adjudicate(1, AdjudicationScope.MATCH, points=2))
    assert partial.is_over and partial.winner == 1 and partial.score == (0, 2)


def test_money_session_never_ends_by_score() -> None:
    state = MatchState.new(Rules())
    for _ in range(6):
        state = win(state, 0, cube=2)
    assert state.phase is Phase.GAME_OVER and state.score == (12, 0)
    assert state.points_needed(0) is None
    with pytest.raises(IllegalActionError):
        start_game(state).apply(EndSession())
    ended = state.apply(EndSession())
    assert (ended.phase, ended.winner, ended.end_reason) == (
        Phase.MATCH_OVER, 0, EndReason.SESSION_ENDED)
    level = win(win(MatchState.new(Rules()), 0), 1).apply(EndSession())
    assert level.is_over and level.winner is None


def test_end_session_is_for_money_play_only() -> None:
    state = win(MatchState.new(Rules(match_length=5)), 0)
    with pytest.raises(IllegalActionError, match="match length"):
        state.apply(EndSession())


def test_forfeit_in_money_play_ends_the_session() -> None:
    state = start_game(MatchState.new(Rules())).apply(Double()).apply(Take()).apply(Forfeit(0))
    assert (state.winner, state.score, state.end_reason) == (1, (0, 2), EndReason.FORFEIT)


def test_rules_are_validated() -> None:
    for bad in ({"match_length": 0}, {"match_length": True}, {"max_cube": 48},
                {"max_cube": 128}, {"max_cube": 1}):
        with pytest.raises(EngineError):
            Rules(**bad)
    assert Rules.from_dict(Rules(match_length=9, gammons=False).to_dict()) == Rules(
        match_length=9, gammons=False)


# -- helpers for a service ---------------------------------------------------------------------

def test_views_of_the_board() -> None:
    state = start_game(MatchState.new(Rules(match_length=5)))
    assert state.position_for(0) == state.board
    assert state.position_for(1) == state.board.swap()
    assert state.position == state.position_for(1)  # player 1 is on roll
    assert state.pip_counts() == (167 - 4, 167)
    assert state.legal_plays() == ()
    assert state.apply(Roll(1, 1)).legal_plays()


# -- JSON, actions, replay -----------------------------------------------------------------------

ALL_ACTIONS: list[Action] = [
    OpeningRoll(3, 5), Roll(6, 4), Roll(2, 2, player=1), Double(), Double(player=0), Take(),
    Drop(player=1), PlayMove("24/18 13/9"), PlayMove("bar/22*", player=0), Resign(0),
    Timeout(1), Forfeit(0), Adjudicate(1), Adjudicate(0, AdjudicationScope.MATCH, 3, "late"),
    NewGame(), EndSession(),
]


@pytest.mark.parametrize("action", ALL_ACTIONS, ids=lambda a: type(a).__name__)
def test_actions_round_trip_through_json(action: Action) -> None:
    data = json.loads(json.dumps(action.to_dict()))
    assert action_from_dict(data) == action


def test_a_play_object_is_stored_as_notation() -> None:
    state = MatchState.new(Rules(match_length=3)).apply(OpeningRoll(5, 2))
    play = state.legal_plays()[0]
    assert PlayMove(play).to_dict() == {"type": "play", "play": play.notation(), "player": None}


@pytest.mark.parametrize("bad", [{}, {"type": "jump"}, {"type": "roll", "dice": [1]},
                                 {"type": "resign", "player": 2}, {"type": "play", "play": 3},
                                 {"type": "adjudicate", "winner": 0, "scope": "set"}])
def test_malformed_actions_raise(bad: dict[str, object]) -> None:
    with pytest.raises(EngineError):
        action_from_dict(bad)


def test_malformed_snapshots_raise() -> None:
    good = MatchState.new().to_dict()
    for bad in ({}, {**good, "version": 99}, {**good, "phase": "dancing"},
                {**good, "board": [[0] * 25]}, {**good, "player_on_roll": 3},
                {**good, "cube_value": 3}, {**good, "phase": "move"},
                {**good, "dice": [3, 1]}, {**good, "game_number": 2},
                {**good, "phase": "game_over"}):
        with pytest.raises(EngineError):
            MatchState.from_dict(bad)


rules_strategy = st.builds(
    Rules,
    match_length=st.sampled_from([None, 1, 2, 3, 5, 7, 11]),
    cube=st.booleans(),
    gammons=st.booleans(),
    crawford=st.booleans(),
    max_cube=st.sampled_from([2, 8, 64]),
    flag_loses_match=st.booleans(),
)


@settings(max_examples=40, deadline=None)
@given(rules_strategy, st.integers(0, 2**32))
def test_snapshots_round_trip_and_replay_reproduces_them(rules: Rules, seed: int) -> None:
    options = SelfPlayOptions(double=0.2, take=0.7, resign=0.01, session_games=3)
    final, actions = play_match(rules, seed, options)
    snapshot = final.to_dict()
    assert json.loads(json.dumps(snapshot)) == snapshot  # plain JSON types only
    assert MatchState.from_dict(snapshot) == final
    logged = [json.loads(json.dumps(action.to_dict())) for action in actions]
    assert MatchState.replay(rules, logged).to_dict() == snapshot


@settings(max_examples=25, deadline=None)
@given(rules_strategy, st.integers(0, 2**32))
def test_a_compact_state_plays_on_like_the_whole_one_and_is_restored(rules: Rules,
                                                                     seed: int) -> None:
    options = SelfPlayOptions(double=0.2, take=0.7, resign=0.01, session_games=3)
    final, actions = play_match(rules, seed, options)
    whole = MatchState.new(rules)
    for count, action in enumerate(actions):
        compact = MatchState.from_dict(whole.compact().to_dict())
        assert not any(game.events for game in compact.games[:-1])
        assert compact.games[-1] == whole.games[-1]
        whole, compact = whole.apply(action), compact.apply(action)
        assert compact.compact() == whole.compact(), count
    assert whole == final
    restored = final.compact().with_earlier_games(final.games[:-1])
    assert restored == final and restored.to_dict() == final.to_dict()
    with pytest.raises(EngineError, match="not the earlier games"):
        final.compact().with_earlier_games(final.games)


@settings(max_examples=25, deadline=None)
@given(rules_strategy, st.integers(0, 2**32), st.floats(0, 1))
def test_a_restored_snapshot_plays_on_like_the_original(
    rules: Rules, seed: int, where: float
) -> None:
    options = SelfPlayOptions(double=0.2, take=0.7, resign=0.01, session_games=3)
    _, actions = play_match(rules, seed, options)
    cut = int(where * len(actions))
    state = MatchState.replay(rules, actions[:cut])
    restored = MatchState.from_dict(json.loads(json.dumps(state.to_dict())))
    assert restored == state
    assert restored.legal_plays() == state.legal_plays()
    assert restored.may_double() == state.may_double()
    assert gnubg_ids(restored) == gnubg_ids(state)
    for action in actions[cut:]:
        state, restored = state.apply(action), restored.apply(action)
    assert restored.to_dict() == state.to_dict()


def test_timeouts_adjudications_and_forfeits_replay_too() -> None:
    rng = random.Random(3)
    rules = Rules(match_length=9, flag_loses_match=False)
    state, actions = MatchState.new(rules), []
    extra: list[Action] = [Timeout(1), Adjudicate(0, points=2, reason="rule 7"), Forfeit(1)]
    while not state.is_over:
        if state.phase is Phase.TURN_START and extra and rng.random() < 0.05:
            action = extra.pop(0)
        else:
            action = choose_action(state, rng, SelfPlayOptions())
        state = state.apply(action)
        actions.append(action)
    assert MatchState.replay(rules, [a.to_dict() for a in actions]).to_dict() == state.to_dict()
    reasons = {game.result.reason for game in state.games if game.result}
    assert {EndReason.TIMEOUT, EndReason.ADJUDICATION} <= reasons


def test_a_state_read_back_reuses_the_plays_of_its_roll() -> None:
    """A server reads the match anew for each action: the plays generated at the roll are
    the ones its play is checked against (the same objects), and the play still resolves."""
    state = start_game(MatchState.new(Rules(match_length=3))).apply(Roll(6, 5))
    again = MatchState.from_dict(json.loads(json.dumps(state.to_dict())))
    assert again.legal_plays() is state.legal_plays()
    assert again.apply(PlayMove("24/13")).to_dict() == state.apply(PlayMove("24/13")).to_dict()
