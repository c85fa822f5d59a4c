"""Whole matches through the services with scripted dice: every way a game ends, the
Crawford game, cube ownership, gammons off, money sessions, automatic rolls and passes.

The dice come from a *dice oracle*: a function of the engine state at the moment of the roll
(e.g. "player 0 always rolls 6-6"). Before each service call the :class:`Driver` works out on
the pure engine which rolls the call will use (the player's roll and everything the server
then does by itself: opening rolls, automatic rolls, the next game) and scripts exactly those.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from matches import services
from matches.models import (
    Event,
    GameEnding,
    LogKind,
    Match,
    MatchStatus,
    RatingRecord,
)
from matches.services import clocks
from matches.state import load_state
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
)
from tavla.engine.clock import PRESETS
from tavla.engine.game import EventKind, Phase
from tavla.engine.match import MatchState
from tavla.engine.plays import Play
from tavla.engine.rules import Rules

pytestmark = pytest.mark.django_db

Dice = tuple[int, int]
Oracle = Callable[[MatchState], Dice]
Chooser = Callable[[Play], Any]


def dice(player0: Dice, player1: Dice, opening: Dice = (6, 5)) -> Oracle:
    """Each player always rolls the same; the opening roll is ``(player 0's die, player 1's)``."""
    return lambda s: opening if s.phase is Phase.OPENING_ROLL else (
        player0 if s.player_on_roll == 0 else player1)


def per_game(*oracles: Oracle) -> Oracle:
    """Oracle ``i`` for game ``i + 1`` (the last one for every later game)."""
    return lambda s: oracles[min(s.game_number, len(oracles)) - 1](s)


# Play choosers (smaller key wins), seen from the mover.
def _hits(play: Play) -> int:
    return sum(move.hit for move in play.moves)


def race(play: Play) -> Any:
    """Never hit, bear off as fast as possible."""
    return (_hits(play), sum(play.position.mover))


def escape(play: Play) -> Any:
    """Get the back checkers out of the opponent's home board, hitting when possible."""
    return (play.position.mover[24] + sum(play.position.mover[18:24]), -_hits(play))


def stay_back(play: Play) -> Any:
    """Keep checkers on the 24 point."""
    return (-play.position.mover[23], _hits(play))


class Driver:
    """Plays one match through :mod:`matches.services`, scripting each call's dice."""

    def __init__(self, match: Match, oracle: Oracle) -> None:
        self.match = match
        self.oracle = oracle

    @property
    def state(self) -> MatchState:
        self.match.refresh_from_db()
        return load_state(self.match)

    def _script(self, action: Action | None) -> None:
        """Script the rolls that applying ``action`` (None: the player's roll) will use."""
        state = self.state
        rolls: list[Dice] = []
        if action is None:
            rolls.append(self.oracle(state))
            state = state.apply(Roll(*rolls[-1]))
        else:
            state = state.apply(action)
        while True:
            if state.phase is Phase.OPENING_ROLL:
                rolls.append(self.oracle(state))
                state = state.apply(OpeningRoll(*rolls[-1]))
            elif state.phase is Phase.TURN_START and not state.may_double():
                rolls.append(self.oracle(state))
                state = state.apply(Roll(*rolls[-1]))
            elif state.phase is Phase.GAME_OVER:
                state = state.apply(NewGame())
            else:
                break
        Match.objects.filter(pk=self.match.pk).update(scripted_dice=[list(r) for r in rolls])

    def act(self, action: str, play: str | None = None, *, seat: int | None = None) -> None:
        state = self.state
        seat = state.player_to_act if seat is None else seat
        assert seat is not None
        engine: dict[str, Action | None] = {
            "roll": None, "double": Double(), "take": Take(), "drop": Drop(),
            "resign": Resign(seat), "play": PlayMove(play or ""),
        }
        self._script(engine[action])
        services.match_act(match_id=self.match.pk, player=self.match.players()[seat],
                           action=action, play=play, expected_version=self.match.version)

    def play_game(self, chooser0: Chooser = race, chooser1: Chooser = race, *,
                  double: Callable[[MatchState], bool] = lambda s: False) -> None:
        """Play until the current game is over: roll (or double), play the chosen play."""
        number = self.state.game_number
        for _ in range(2000):
            state = self.state
            if state.is_over or state.game_number != number:
                return
            if state.phase is Phase.TURN_START:
                self.act("double" if double(state) else "roll")
            elif state.phase is Phase.CUBE_OFFERED:
                self.act("take")
            else:
                chooser = chooser0 if state.player_on_roll == 0 else chooser1
                self.act("play", min(state.legal_plays(), key=chooser).notation())
        raise AssertionError("the game did not end")

    def flag(self) -> None:
        state = self.state
        assert state.player_to_act is not None
        self._script(Timeout(state.player_to_act))
        # The deadline of the player on turn is in the past.
        Match.objects.filter(pk=self.match.pk).update(
            deadline=timezone.now() - timedelta(seconds=1))
        assert clocks.flag_if_expired(match_id=self.match.pk)

    def adjudicate(self, winner: int, scope: str, referee: Any, points: int | None = None,
                   reason: str = "Referee decision") -> None:
        self._script(Adjudicate(winner, AdjudicationScope(scope), points, reason))
        services.match_adjudicate(match_id=self.match.pk, referee=referee,
                                  winner=self.match.players()[winner], scope=scope,
                                  reason=reason, points=points)

    def forfeit(self, loser: int, reason: str = "No-show") -> None:
        self._script(Forfeit(loser))
        services.match_forfeit(match_id=self.match.pk, loser=self.match.players()[loser],
                               reason=reason)

    def end_session(self, seat: int) -> None:
        state = self.state
        if state.phase.in_game:
            state = state.apply(Resign(seat))
        state.apply(EndSession())  # must be legal on the engine as well
        services.match_end_session(match_id=self.match.pk, player=self.match.players()[seat],
                                   expected_version=self.match.version)

    def games(self) -> list[tuple[str, int, int]]:
        """(ending, winner seat, points) of every finished game."""
        rows = self.match.games.order_by("number")
        return [(g.ending, self.match.seat_of(g.winner), g.points) for g in rows]


@pytest.fixture
def driver(start_match: Callable[..., Match]) -> Callable[..., Driver]:
    """A match at a new table (options as keywords) whose dice come from ``oracle``."""

    def make(oracle: Oracle, **table: Any) -> Driver:
        opening = oracle(MatchState.new(Rules()))
        return Driver(start_match(dice=[opening], **table), oracle)

    return make


def assert_verified(match: Match) -> None:
    result = services.match_verify(match_id=match.pk)
    assert result.ok, result.detail
    sequences = list(match.events.order_by("sequence").values_list("sequence", flat=True))
    assert sequences == list(range(len(sequences)))


# -- endings by bear-off ------------------------------------------------------------------------


def test_a_match_to_six_points_single_gammon_backgammon(driver):
    d = driver(per_game(dice((6, 6), (4, 4)), dice((6, 6), (2, 1)), dice((6, 6), (2, 1))),
               match_length=6, is_rated=True)
    d.play_game()  # single: player 1 has borne off when player 0 finishes
    assert d.games() == [(GameEnding.SINGLE, 0, 1)]
    d.play_game(race, escape)  # player 1 never bears off, but gets out of player 0's home
    assert d.games()[-1] == (GameEnding.GAMMON, 0, 2)
    d.play_game(race, stay_back)  # player 1 still on player 0's 1 point: backgammon
    assert d.games()[-1] == (GameEnding.BACKGAMMON, 0, 3)
    match = d.match
    match.refresh_from_db()
    assert match.status == MatchStatus.FINISHED and match.winner == match.player0
    assert (match.score0, match.score1) == (6, 0) and match.seed_revealed
    assert match.finished_at is not None and match.deadline is None
    assert RatingRecord.objects.filter(match=match).count() == 2
    match.player0.refresh_from_db()
    assert match.player0.experience == 6 and match.player0.rating > 1500
    kinds = list(match.events.order_by("sequence").values_list("kind", flat=True))
    assert kinds[0] == LogKind.START and kinds[-1] == LogKind.MATCH_END
    assert kinds.count(LogKind.GAME_END) == 3 and kinds.count(LogKind.NEW_GAME) == 2
    assert_verified(match)


def test_gammons_off_scores_every_win_as_one_point(driver):
    d = driver(dice((6, 6), (2, 1)), match_length=3, gammons_enabled=False)
    d.play_game(race, stay_back)  # a backgammon position, worth 1 on this table
    assert d.games() == [(GameEnding.SINGLE, 0, 1)]
    assert load_state(d.match).score == (1, 0)
    assert_verified(d.match)


# -- the cube --------------------------------------------------------------------------------


def test_cube_ownership_take_redouble_and_drop(driver):
    d = driver(dice((6, 6), (4, 4)), match_length=7)
    d.act("play", "24/13")  # player 0 wins the opening roll 6-5 and runs
    state = d.state
    assert state.phase is Phase.TURN_START and state.player_on_roll == 1
    d.act("double")
    d.act("take")
    state = d.state
    assert (state.cube_value, state.cube_owner) == (2, 0)
    # Player 1 doubled and rolls on; player 0 owns the cube now.
    assert state.phase is Phase.MOVE and state.player_on_roll == 1
    d.act("play", min(state.legal_plays(), key=race).notation())
    state = d.state
    assert state.phase is Phase.TURN_START and state.player_on_roll == 0
    d.act("double")  # the owner redoubles
    d.act("take")
    state = d.state
    assert (state.cube_value, state.cube_owner) == (4, 1)
    # Player 0 no longer owns the cube: the server rolled for them at once.
    assert state.phase is Phase.MOVE and state.player_on_roll == 0
    with pytest.raises(services.ServiceError) as refused:
        services.match_act(match_id=d.match.pk, player=d.match.player0, action="double",
                           expected_version=d.match.version)
    assert refused.value.code == "illegal_action"
    d.act("play", min(state.legal_plays(), key=race).notation())
    d.act("double")  # player 1 owns the cube at 4 and redoubles to 8
    d.act("drop")  # player 0 drops: player 1 wins the cube value before the double
    assert d.games() == [(GameEnding.DROP, 1, 4)]
    game = d.match.games.get(number=1)
    assert game.cube_value == 4
    assert_verified(d.match)


def test_the_cube_stops_at_64_and_then_the_server_rolls(driver):
    d = driver(dice((1, 2), (2, 1), opening=(2, 1)), match_length=None, is_rated=False)
    d.act("play", min(d.state.legal_plays(), key=race).notation())
    for value in (2, 4, 8, 16, 32, 64):
        d.act("double")
        d.act("take")
        state = d.state
        assert state.cube_value == value
        d.act("play", min(state.legal_plays(), key=race).notation())
    state = d.state
    assert state.cube_value == 64 and not state.may_double()
    assert state.phase is Phase.MOVE  # the owner's turn began with an automatic roll
    d.act("resign", seat=state.player_on_roll)
    assert d.games()[0][1:] == (1 - state.player_on_roll, 64)
    assert_verified(d.match)


def test_crawford_game_has_no_cube_and_the_next_game_has(driver, start_match):
    d = driver(per_game(dice((6, 6), (2, 1)), dice((4, 4), (6, 6), opening=(5, 6)),
                        dice((6, 6), (4, 4))), match_length=3)
    d.play_game(race, escape)  # gammon: player 0 at 2 = match length - 1
    assert d.games() == [(GameEnding.GAMMON, 0, 2)]
    state = d.state
    assert state.game_number == 2 and state.crawford
    assert state.phase is Phase.MOVE and state.player_on_roll == 1  # player 1 won the opening
    d.act("play", min(state.legal_plays(), key=race).notation())
    state = d.state
    # Nobody may double in the Crawford game: player 0's roll was automatic.
    assert state.phase is Phase.MOVE and state.player_on_roll == 0 and not state.may_double()
    double = Event.objects.filter(match=d.match, kind=LogKind.ROLL).last()
    assert double is not None and double.actor is None
    d.play_game()  # player 1 (6-6) wins the Crawford game: 2-1
    assert d.games()[-1] == (GameEnding.SINGLE, 1, 1)
    state = d.state
    assert state.game_number == 3 and not state.crawford and state.post_crawford
    d.play_game()
    # Post-Crawford: the trailer may double again (player 1 at turn start in game 3).
    rolls = d.match.events.filter(game_number=3, kind=LogKind.ROLL)
    assert rolls.exclude(actor=None).exists()  # somebody chose to roll: a cube decision
    match = d.match
    match.refresh_from_db()
    assert match.status == MatchStatus.FINISHED and (match.score0, match.score1) == (3, 1)
    crawford_flags = [g["crawford"] for g in load_state(match).to_dict()["games"]]
    assert crawford_flags == [False, True, False]
    assert_verified(match)


# -- drop, resign, timeout, adjudication, forfeit ----------------------------------------------


FAST = PRESETS["fast"]
assert FAST is not None
CLOCKED = {"clock_enabled": True, "clock_delay": FAST.delay,
           "clock_reserve_per_point": FAST.reserve_per_point, "clock_reserve_seconds": 0.0}


def test_every_other_ending_resign_timeout_adjudicated_forfeit(driver, django_user_model):
    referee = django_user_model.objects.create_user("referee", password="x-referee-1")
    d = driver(dice((6, 6), (4, 4)), match_length=9, **CLOCKED)
    match = d.match
    assert match.clock is not None and match.deadline is not None

    d.act("resign", seat=1)  # player 1 resigns while player 0 is to play
    assert d.games() == [(GameEnding.RESIGN, 0, 1)]

    state = d.state
    loser = state.player_to_act
    assert loser is not None and d.match.deadline is not None
    d.flag()  # the flag falls: a single game (times the cube) for the opponent
    assert d.games()[-1] == (GameEnding.TIMEOUT, 1 - loser, 1)
    timeout = Event.objects.get(match=match, kind=LogKind.TIMEOUT)
    assert timeout.payload["action"] == {"type": "timeout", "player": loser}
    assert not clocks.flag_if_expired(match_id=match.pk)  # nothing more to flag

    d.adjudicate(1, "game", referee, points=2, reason="Illegal dice throw")
    assert d.games()[-1] == (GameEnding.ADJUDICATED, 1, 2)
    decision = Event.objects.get(match=match, kind=LogKind.ADJUDICATE)
    assert decision.actor == referee
    assert decision.payload["action"]["reason"] == "Illegal dice throw"

    d.forfeit(1, reason="Disconnected past the grace period")
    match.refresh_from_db()
    assert match.status == MatchStatus.FORFEITED and match.winner == match.player0
    assert d.games()[-1][:2] == (GameEnding.FORFEIT, 0)
    assert match.score0 >= 9 and match.deadline is None
    assert Event.objects.get(match=match, kind=LogKind.FORFEIT).payload["reason"] == (
        "Disconnected past the grace period")
    assert_verified(match)


def test_a_flag_loses_the_match_when_the_table_says_so(driver):
    d = driver(dice((6, 6), (4, 4)), match_length=5, flag_penalty="match", **CLOCKED)
    d.flag()
    match = d.match
    match.refresh_from_db()
    assert match.status == MatchStatus.FINISHED and match.winner == match.player1
    assert d.games() == [(GameEnding.TIMEOUT, 1, 5)]
    assert_verified(match)


def test_a_flag_before_the_deadline_does_nothing(driver):
    d = driver(dice((6, 6), (4, 4)), match_length=5, **CLOCKED)
    before = (d.match.version, d.match.events.count())
    assert not clocks.flag_if_expired(match_id=d.match.pk)
    d.match.refresh_from_db()
    assert (d.match.version, d.match.events.count()) == before


def test_adjudicating_the_whole_match(driver, django_user_model):
    referee = django_user_model.objects.create_user("referee", password="x-referee-1")
    d = driver(dice((6, 6), (4, 4)), match_length=5)
    d.adjudicate(1, "match", referee, reason="Player 0 used a bot")
    match = d.match
    match.refresh_from_db()
    assert match.status == MatchStatus.ADJUDICATED and match.winner == match.player1
    assert (match.score0, match.score1) == (0, 5)
    with pytest.raises(services.ServiceError) as over:
        services.match_adjudicate(match_id=match.pk, referee=referee, winner=match.player0,
                                  scope="game", reason="Too late")
    assert over.value.code == "match_over"
    with pytest.raises(services.ServiceError) as no_reason:
        services.match_adjudicate(match_id=match.pk, referee=referee, winner=match.player0,
                                  scope="game", reason="  ")
    assert no_reason.value.code == "reason_required"
    assert_verified(match)


# -- money session -----------------------------------------------------------------------------


def test_money_session_scores_the_cube_and_ends_on_request(driver):
    d = driver(dice((6, 6), (2, 1)), match_length=None, is_rated=False)
    d.play_game(race, escape, double=lambda s: s.player_on_roll == 0 and s.cube_value == 1)
    assert d.games() == [(GameEnding.GAMMON, 0, 4)]  # gammon with the cube at 2
    state = d.state
    assert state.game_number == 2 and state.phase.in_game  # the next game started by itself
    d.end_session(1)  # player 1 leaves mid-game: resigns game 2 first
    match = d.match
    match.refresh_from_db()
    assert match.status == MatchStatus.FINISHED and match.winner == match.player0
    assert (match.score0, match.score1) == (5, 0)
    assert d.games()[-1] == (GameEnding.RESIGN, 0, 1)
    assert load_state(match).end_reason is not None
    assert load_state(match).end_reason.value == "session_ended"
    assert not RatingRecord.objects.filter(match=match).exists()  # money is unrated
    assert_verified(match)


def test_a_match_cannot_be_ended_like_a_session(driver):
    d = driver(dice((6, 6), (2, 1)), match_length=3)
    with pytest.raises(services.ServiceError) as refused:
        services.match_end_session(match_id=d.match.pk, player=d.match.player0)
    assert refused.value.code == "illegal_action"
    d.match.refresh_from_db()
    assert d.match.status == MatchStatus.PLAYING


# -- automatic rolls and passes -----------------------------------------------------------------


def test_automatic_roll_and_automatic_pass(start_match):
    # Player 1 wins the opening 2-1 and leaves a blot; player 0 hits it with 4-2; player 1
    # rolls 6-6 on the bar against player 0's closed 6 point: no legal play, the turn passes.
    match = start_match(dice=[[1, 2], [4, 2], [6, 6], [5, 3]], match_length=3,
                        cube_enabled=False)
    d = Driver(match, dice((5, 3), (6, 6)))
    services.match_act(match_id=match.pk, player=match.player1, action="play",
                       play="13/11 6/5", expected_version=match.version)
    state = d.state
    # No cube on this table: player 0's turn began with the server's roll.
    assert state.phase is Phase.MOVE and state.player_on_roll == 0 and state.dice == (4, 2)
    services.match_act(match_id=match.pk, player=match.player0, action="play",
                       play="24/20* 13/11", expected_version=match.version)
    state = d.state
    assert state.board.opponent[24] == 1  # player 1 on the bar
    passes = [e for e in state.current_game.events if e.kind is EventKind.AUTO_PASS]
    assert len(passes) == 1 and passes[0].player == 1 and passes[0].dice == (6, 6)
    # Player 0 is to play again, with the next automatic roll.
    assert state.phase is Phase.MOVE and state.player_on_roll == 0 and state.dice == (5, 3)
    log = list(match.events.order_by("sequence").values_list("kind", "actor"))
    assert log[-2:] == [(LogKind.ROLL, None), (LogKind.ROLL, None)]
    assert_verified(match)


def test_a_tied_opening_roll_is_rolled_again(start_match):
    match = start_match(dice=[[3, 3], [2, 5]], cube_enabled=False)
    state = load_state(match)
    assert state.player_on_roll == 1 and state.dice == (5, 2)
    openings = match.events.filter(kind=LogKind.OPENING_ROLL)
    assert [e.payload["action"]["dice"] for e in openings] == [[3, 3], [2, 5]]


# -- the hot path ------------------------------------------------------------------------------


def test_an_action_takes_a_bounded_number_of_queries(start_match,
                                                     django_assert_max_num_queries):
    match = start_match(dice=[[3, 1], [5, 2]], cube_enabled=False)
    player = match.player0
    player.user  # noqa: B018 - loaded, as a caller that has the user would have it
    # the locked read, one insert of the events, the match's update, the test's savepoint
    with django_assert_max_num_queries(5):
        services.match_act(match_id=match.pk, player=player, action="play", play="8/5 6/5",
                           expected_version=match.version)
