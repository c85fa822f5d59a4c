"""One game by the rules: opening roll, turns, the cube, resignations, scoring."""

from __future__ import annotations

from dataclasses import replace

import pytest

from tavla.engine.actions import (
    Adjudicate,
    AdjudicationScope,
    Double,
    Drop,
    NewGame,
    OpeningRoll,
    PlayMove,
    Resign,
    Roll,
    Take,
    Timeout,
)
from tavla.engine.errors import IllegalActionError, IllegalPlayError, InvalidDiceError
from tavla.engine.game import EndReason, EventKind, Phase, WinKind, win_kind
from tavla.engine.match import MatchState
from tavla.engine.moves import legal_plays
from tavla.engine.position import Position
from tavla.engine.rules import Rules


def side(**points: int) -> tuple[int, ...]:
    """A side's 25 counts from keyword points: ``side(p6=5, bar=1)``."""
    counts = [0] * 25
    for name, count in points.items():
        counts[24 if name == "bar" else int(name[1:]) - 1] = count
    return tuple(counts)


def at_turn_start(
    player0: tuple[int, ...], player1: tuple[int, ...], on_roll: int = 0,
    rules: Rules | None = None, **changes: object,
) -> MatchState:
    """A match whose current game is at the start of ``on_roll``'s turn on this board."""
    state = MatchState.new(rules or Rules(match_length=7))
    state = state.apply(OpeningRoll(6, 1))  # the game record starts with a real opening
    return replace(state, board=Position(player0, player1), phase=Phase.TURN_START,
                   player_on_roll=on_roll, dice=None, _plays=None, **changes)  # type: ignore[arg-type]


def opened(rules: Rules | None = None) -> MatchState:
    """Player 0 opened with 3-1 (8/5 6/5); player 1 is at the start of their turn."""
    state = MatchState.new(rules or Rules(match_length=7))
    return state.apply(OpeningRoll(3, 1)).apply(PlayMove("8/5 6/5"))


# -- opening roll ---------------------------------------------------------------------------

def test_opening_ties_are_recorded_and_rolled_again() -> None:
    state = MatchState.new(Rules(match_length=5))
    tied = state.apply(OpeningRoll(4, 4))
    assert tied.phase is Phase.OPENING_ROLL and tied.player_on_roll is None
    assert [e.dice for e in tied.current_game.events] == [(4, 4)]
    with pytest.raises(IllegalActionError):
        tied.apply(Roll(3, 1))


def test_higher_die_moves_first_with_both_numbers() -> None:
    state = MatchState.new(Rules(match_length=5)).apply(OpeningRoll(2, 5))
    assert state.phase is Phase.MOVE
    assert state.player_on_roll == 1 and state.dice == (5, 2)
    assert {p.position for p in state.legal_plays()} == {
        p.position for p in legal_plays(Position.initial(), 5, 2)
    }
    assert state.player_to_act == 1


def test_opening_roll_validates_dice_and_phase() -> None:
    with pytest.raises(InvalidDiceError):
        MatchState.new().apply(OpeningRoll(0, 3))
    with pytest.raises(IllegalActionError):
        opened().apply(OpeningRoll(3, 1))


# -- turns ------------------------------------------------------------------------------------

def test_roll_then_play_passes_the_turn() -> None:
    state = opened().apply(Roll(6, 4))
    assert state.phase is Phase.MOVE and state.dice == (6, 4)
    state = state.apply(PlayMove("24/14"))
    assert state.phase is Phase.TURN_START and state.player_on_roll == 0
    assert state.dice is None
    kinds = [e.kind for e in state.current_game.events]
    assert kinds == [EventKind.OPENING_ROLL, EventKind.PLAY, EventKind.ROLL, EventKind.PLAY]
    assert state.current_game.events[-1].play == "24/14"


def test_a_play_given_as_a_play_object_or_in_any_notation() -> None:
    state = opened().apply(Roll(6, 4))
    chosen = state.legal_plays()[0]
    assert state.apply(PlayMove(chosen)).board == state.apply(PlayMove(chosen.notation())).board
    written = state.apply(PlayMove("24/18/14")).current_game.events[-1].play
    assert written == "24/14"


def test_illegal_play_is_refused_and_nothing_changes() -> None:
    state = opened().apply(Roll(6, 4))
    before = state.to_dict()
    with pytest.raises(IllegalPlayError):
        state.apply(PlayMove("24/21 13/9"))
    assert state.to_dict() == before
    with pytest.raises(IllegalActionError):
        state.apply(Roll(2, 2))


def test_no_legal_play_passes_automatically() -> None:
    # Player 0 is on the bar against a closed board.
    player1 = side(p1=2, p2=2, p3=2, p4=2, p5=2, p6=2, p13=3)
    state = at_turn_start(side(bar=1, p6=14), player1)
    state = state.apply(Roll(6, 5))
    assert state.phase is Phase.TURN_START and state.player_on_roll == 1
    last = state.current_game.events[-1]
    assert (last.kind, last.player, last.dice) == (EventKind.AUTO_PASS, 0, (6, 5))


def test_the_actor_guard() -> None:
    state = opened()
    with pytest.raises(IllegalActionError, match="player 1's decision"):
        state.apply(Roll(3, 3, player=0))
    assert state.apply(Roll(3, 3, player=1)).phase is Phase.MOVE


# -- the cube --------------------------------------------------------------------------------

def test_double_only_before_rolling() -> None:
    state = opened()
    assert state.may_double()
    with pytest.raises(IllegalActionError, match="double"):
        state.apply(Roll(5, 2)).apply(Double())
    offered = state.apply(Double())
    assert offered.phase is Phase.CUBE_OFFERED and offered.player_to_act == 0
    assert offered.cube_value == 1  # doubles only when taken


def test_take_gives_the_cube_to_the_taker_and_the_doubler_rolls() -> None:
    state = opened().apply(Double()).apply(Take())
    assert (state.cube_value, state.cube_owner) == (2, 0)
    assert state.phase is Phase.TURN_START and state.player_on_roll == 1
    assert not state.may_double()  # the cube is player 0's now


def test_drop_gives_the_doubler_the_cube_before_the_double() -> None:
    state = opened().apply(Double()).apply(Take())  # cube 2, owned by 0
    state = state.apply(Roll(3, 1)).apply(PlayMove("8/5 6/5"))
    state = state.apply(Double()).apply(Drop())  # player 0 redoubles to 4, player 1 drops
    assert state.phase is Phase.GAME_OVER
    result = state.game_result
    assert result is not None
    assert (result.winner, result.points, result.reason) == (0, 2, EndReason.DROP)
    assert state.score == (2, 0)


def test_only_the_owner_redoubles() -> None:
    state = opened().apply(Double()).apply(Take())  # owned by player 0
    state = state.apply(Roll(3, 1)).apply(PlayMove("8/5 6/5"))  # player 0's turn
    assert state.may_double()
    state = state.apply(Double()).apply(Take())  # now 4, owned by player 1
    assert (state.cube_value, state.cube_owner, state.player_on_roll) == (4, 1, 0)
    state = state.apply(Roll(6, 5)).apply(PlayMove("24/13"))  # player 1's turn
    assert state.may_double()
    state = state.apply(Roll(2, 1)).apply(PlayMove("13/11 6/5"))  # player 0's turn
    assert not state.may_double()
    with pytest.raises(IllegalActionError, match="only its owner may redouble"):
        state.apply(Double())


def test_cube_stops_at_64_or_the_table_limit() -> None:
    state = at_turn_start(side(p6=15), side(p6=15), cube_value=64, cube_owner=0)
    assert not state.may_double()
    with pytest.raises(IllegalActionError, match="limit of 64"):
        state.apply(Double())
    capped = at_turn_start(side(p6=15), side(p6=15), rules=Rules(match_length=9, max_cube=8),
                           cube_value=8, cube_owner=0)
    assert not capped.may_double()
    assert at_turn_start(side(p6=15), side(p6=15), cube_value=32, cube_owner=0).may_double()


def test_cube_off_tables_never_double() -> None:
    state = opened(Rules(match_length=5, cube=False))
    assert not state.may_double()
    with pytest.raises(IllegalActionError, match="without the doubling cube"):
        state.apply(Double())


def test_take_and_drop_need_an_offer() -> None:
    with pytest.raises(IllegalActionError):
        opened().apply(Take())
    with pytest.raises(IllegalActionError):
        opened().apply(Drop())


# -- ends of a game ---------------------------------------------------------------------------

def bear_off_last(player1: tuple[int, ...], rules: Rules | None = None,
                  cube_value: int = 1) -> MatchState:
    """Player 0 bears off the last checker from the 1 point with 2-1."""
    state = at_turn_start(side(p1=1), player1, rules=rules, cube_value=cube_value,
                          cube_owner=None if cube_value == 1 else 1)
    return state.apply(Roll(2, 1)).apply(PlayMove("1/off"))


def test_single_win() -> None:
    state = bear_off_last(side(p6=14))  # player 1 has borne one off
    result = state.game_result
    assert result is not None
    assert (result.kind, result.points, result.reason) == (WinKind.SINGLE, 1, EndReason.BEAR_OFF)


def test_gammon_counts_two_times_the_cube() -> None:
    state = bear_off_last(side(p6=10, p7=5), cube_value=2)
    assert state.game_result is not None
    assert (state.game_result.kind, state.game_result.points) == (WinKind.GAMMON, 4)
    assert state.score == (4, 0)


@pytest.mark.parametrize("straggler", [{"p23": 1}, {"bar": 1}, {"p19": 1}])
def test_backgammon_counts_three(straggler: dict[str, int]) -> None:
    # Player 1's points 19..24 are player 0's home board.
    state = bear_off_last(side(p6=14, **straggler))
    assert state.game_result is not None
    assert (state.game_result.kind, state.game_result.points) == (WinKind.BACKGAMMON, 3)


def test_gammons_off_makes_every_win_one_times_the_cube() -> None:
    rules = Rules(match_length=7, gammons=False)
    state = bear_off_last(side(p6=14, p23=1), rules=rules, cube_value=2)
    assert state.game_result is not None
    assert (state.game_result.kind, state.game_result.points) == (WinKind.SINGLE, 2)


def test_win_kind_reads_the_loser() -> None:
    assert win_kind(Position(side(), side(p6=15))) is WinKind.GAMMON
    assert win_kind(Position(side(), side(p6=14))) is WinKind.SINGLE
    assert win_kind(Position(side(), side(p6=14, p20=1))) is WinKind.BACKGAMMON


@pytest.mark.parametrize("phase_actions", [
    [],  # before the opening roll
    [OpeningRoll(3, 1)],  # the opening winner still to play
    [OpeningRoll(3, 1), PlayMove("8/5 6/5")],  # turn start
    [OpeningRoll(3, 1), PlayMove("8/5 6/5"), Double()],  # a cube offered
])
@pytest.mark.parametrize("loser", [0, 1])
def test_either_player_may_resign_at_any_time_in_a_game(
    phase_actions: list[object], loser: int
) -> None:
    state = MatchState.new(Rules(match_length=5))
    for action in phase_actions:
        state = state.apply(action)  # type: ignore[arg-type]
    state = state.apply(Resign(loser))
    result = state.game_result
    assert result is not None
    assert (result.winner, result.points, result.reason) == (1 - loser, 1, EndReason.RESIGN)
    assert state.current_game.events[-1].kind is EventKind.RESIGN
    with pytest.raises(IllegalActionError):
        state.apply(Resign(loser))


def test_resignation_costs_the_cube_value() -> None:
    state = opened().apply(Double()).apply(Take()).apply(Resign(1))
    assert state.game_result is not None and state.game_result.points == 2


def test_timeout_loses_the_game_single_times_the_cube() -> None:
    state = opened().apply(Double()).apply(Take()).apply(Timeout(1))
    assert state.phase is Phase.GAME_OVER
    assert state.game_result is not None
    assert (state.game_result.winner, state.game_result.points) == (0, 2)
    assert state.game_result.reason is EndReason.TIMEOUT


def test_timeout_can_lose_the_match() -> None:
    state = opened(Rules(match_length=7, flag_loses_match=True)).apply(Timeout(1))
    assert state.phase is Phase.MATCH_OVER
    assert (state.winner, state.end_reason, state.score) == (0, EndReason.TIMEOUT, (7, 0))


def test_adjudicating_a_game() -> None:
    state = opened().apply(Adjudicate(1, AdjudicationScope.GAME, points=2, reason="misclick"))
    assert state.phase is Phase.GAME_OVER and state.score == (0, 2)
    event = state.current_game.events[-1]
    assert (event.kind, event.player, event.value) == (EventKind.ADJUDICATE, 1, 2)
    assert event.note == "game: misclick"
    with pytest.raises(IllegalActionError):
        state.apply(Adjudicate(0, AdjudicationScope.GAME))
    with pytest.raises(IllegalActionError, match="at least 1 point"):
        opened().apply(Adjudicate(0, points=0))


def test_new_game_resets_the_board_and_cube() -> None:
    state = opened().apply(Double()).apply(Take()).apply(Resign(0))
    state = state.apply(NewGame())
    assert state.phase is Phase.OPENING_ROLL and state.game_number == 2
    assert (state.board, state.cube_value, state.cube_owner) == (Position.initial(), 1, None)
    assert state.current_game.score_before == (0, 2)
    with pytest.raises(IllegalActionError):
        state.apply(NewGame())
