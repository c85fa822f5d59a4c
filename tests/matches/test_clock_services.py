"""Clocks in the service layer, with ``now`` passed in so nothing sleeps: delay accounting,
whose clock runs, flags and what they cost, presets, the sweep and the grace period."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from matches import services
from matches.models import GameEnding, LogKind, Match, MatchStatus, Table
from matches.selectors import match_state
from matches.services import clocks, presence
from matches.state import load_state
from tavla.engine.clock import Clock
from tavla.engine.game import Phase
from tests.matches.conftest import forget_presence

pytestmark = pytest.mark.django_db

DELAY = 10.0
RESERVE = 100.0


def at(stamp: float) -> datetime:
    return datetime.fromtimestamp(stamp, tz=UTC)


def clock_of(match: Match) -> Clock:
    match.refresh_from_db()
    assert match.clock is not None
    return Clock.from_dict(match.clock)


@pytest.fixture
def clocked(start_match: Callable[..., Match]) -> Callable[..., Match]:
    """A match with a clock of DELAY s per move and RESERVE s each (options override)."""

    def start(*, dice: list[list[int]], **options: Any) -> Match:
        options = {"clock_enabled": True, "clock_delay": DELAY,
                   "clock_reserve_seconds": RESERVE, "clock_reserve_per_point": 0,
                   **options}
        match = start_match(dice=dice, **options)
        for player_id in (match.player0_id, match.player1_id):
            forget_presence(table_id=match.table_id, player_id=player_id)
        return match

    return start


def act_at(match: Match, seat: int, action: str, now: float, play: str | None = None) -> Match:
    match.refresh_from_db()
    services.match_act(match_id=match.pk, player=match.players()[seat], action=action,
                       expected_version=match.version, play=play, now=at(now))
    match.refresh_from_db()
    return match


def kinds(match: Match) -> list[str]:
    return list(match.events.order_by("sequence").values_list("kind", flat=True))


# -- delay accounting and whose clock runs ---------------------------------------------------


def test_a_play_within_the_delay_costs_no_reserve(clocked):
    match = clocked(dice=[[3, 1], [5, 2]])
    start = clock_of(match)
    assert start.running == 0 and start.reserves == (RESERVE, RESERVE)
    assert match.deadline == at(start.started_at + DELAY + RESERVE)
    match = act_at(match, 0, "play", start.started_at + DELAY - 0.5, "8/5 6/5")
    assert clock_of(match).reserves == (RESERVE, RESERVE)


def test_a_play_after_the_delay_plus_x_costs_x(clocked):
    match = clocked(dice=[[3, 1], [5, 2]])
    started = clock_of(match).started_at
    match = act_at(match, 0, "play", started + DELAY + 7, "8/5 6/5")
    assert clock_of(match).reserves[0] == pytest.approx(RESERVE - 7)
    assert clock_of(match).reserves[1] == RESERVE


def test_one_delay_per_turn_covers_the_roll_decision_and_the_play(clocked):
    # Player 1 may double, so their clock runs on the roll decision, and keeps running
    # through the play: the delay is granted once per turn, not once per action.
    match = clocked(dice=[[3, 1], [5, 2]])
    t0 = clock_of(match).started_at
    match = act_at(match, 0, "play", t0 + 1, "8/5 6/5")
    turn = clock_of(match)
    assert turn.running == 1 and turn.started_at == pytest.approx(t0 + 1)
    deadline = match.deadline
    match = act_at(match, 1, "roll", t0 + 1 + 6)
    assert clock_of(match).started_at == pytest.approx(t0 + 1) and match.deadline == deadline
    match = act_at(match, 1, "play", t0 + 1 + DELAY + 3, "13/8 13/11")
    assert clock_of(match).reserves == (RESERVE, pytest.approx(RESERVE - 3))


def test_the_taker_clock_runs_on_a_take_decision_and_the_doubler_gets_a_fresh_delay(clocked):
    match = clocked(dice=[[3, 1], [5, 2]])
    t0 = clock_of(match).started_at
    match = act_at(match, 0, "play", t0 + 1, "8/5 6/5")
    match = act_at(match, 1, "double", t0 + 3)
    offered = clock_of(match)
    assert load_state(match).phase is Phase.CUBE_OFFERED
    assert offered.running == 0 and offered.started_at == pytest.approx(t0 + 3)
    match = act_at(match, 0, "take", t0 + 3 + DELAY + 5)
    after = clock_of(match)
    assert after.reserves == (pytest.approx(RESERVE - 5), RESERVE)
    # Player 1 cannot redouble, so the server rolled for them at once: their clock starts
    # at the take, with a full delay.
    assert load_state(match).phase is Phase.MOVE
    assert after.running == 1 and after.started_at == pytest.approx(t0 + 3 + DELAY + 5)


def test_automatic_rolls_and_a_new_game_charge_nobody(clocked):
    match = clocked(dice=[[3, 1], [5, 2], [4, 1]], cube_enabled=False)
    t0 = clock_of(match).started_at
    # Without a cube the server rolls for player 1 at once; their clock starts then.
    match = act_at(match, 0, "play", t0 + 4, "8/5 6/5")
    clock = clock_of(match)
    assert clock.running == 1 and clock.started_at == pytest.approx(t0 + 4)
    assert match.deadline == at(t0 + 4 + DELAY + RESERVE)
    # Player 1 resigns: the next game's opening roll is made by the server; the winner of
    # it (player 0 with 4-1) starts with a full delay from the resignation.
    match = act_at(match, 1, "resign", t0 + 4 + DELAY + 2)
    clock = clock_of(match)
    assert load_state(match).game_number == 2
    assert clock.reserves == (RESERVE, pytest.approx(RESERVE - 2))
    assert clock.running == 0 and clock.started_at == pytest.approx(t0 + 4 + DELAY + 2)


def test_the_state_carries_each_remaining_reserve_and_the_absolute_deadline(clocked):
    match = clocked(dice=[[3, 1], [5, 2]])
    state = match_state(match)
    assert state["deadline"] == match.deadline.isoformat()
    assert [p["reserve"] for p in state["players"]] == [RESERVE, RESERVE]
    assert state["clock"]["running"] == 0 and state["clock"]["delay"] == DELAY


# -- flags -----------------------------------------------------------------------------------


def test_a_flag_loses_the_game_single_times_the_cube_and_leaves_the_player_on_delay_only(
        clocked):
    match = clocked(dice=[[3, 1], [3, 1]])
    deadline = match.deadline
    assert not clocks.flag_if_expired(match_id=match.pk, now=deadline - timedelta(seconds=.001))
    assert clocks.flag_if_expired(match_id=match.pk, now=deadline)
    assert not clocks.flag_if_expired(match_id=match.pk, now=deadline)
    match.refresh_from_db()
    game = match.games.get(number=1)
    assert (game.ending, game.points, game.winner_id) == (GameEnding.TIMEOUT, 1, match.player1_id)
    assert (match.score0, match.score1) == (0, 1) and match.status == MatchStatus.PLAYING
    timeout = match.events.get(kind=LogKind.TIMEOUT)
    assert timeout.payload["action"]["player"] == 0 and timeout.payload["absent"] is True
    assert timeout.payload["flagged_at"] == deadline.timestamp()
    # Game 2: player 0 won the opening roll again and is on delay only.
    clock = clock_of(match)
    assert clock.running == 0 and clock.reserves == (0.0, RESERVE)
    assert match.deadline == deadline + timedelta(seconds=DELAY)
    assert services.match_verify(match_id=match.pk).ok


def test_usbgf_option_a_flag_loses_the_match(clocked):
    match = clocked(dice=[[3, 1]], flag_penalty="match", match_length=5)
    assert clocks.flag_if_expired(match_id=match.pk, now=match.deadline)
    match.refresh_from_db()
    assert match.status == MatchStatus.FINISHED and match.winner_id == match.player1_id
    assert match.deadline is None and kinds(match)[-1] == LogKind.MATCH_END
    assert match.events.get(kind=LogKind.MATCH_END).payload["reason"] == "timeout"


def test_a_move_after_the_deadline_records_the_flag_instead(clocked):
    match = clocked(dice=[[3, 1], [4, 2]], match_length=1)
    late = match.deadline + timedelta(milliseconds=1)
    with pytest.raises(services.ServiceError) as refused:
        services.match_act(match_id=match.pk, player=match.player0, action="play",
                           play="8/5 6/5", expected_version=match.version, now=late)
    assert refused.value.code == "flag_fell"
    match.refresh_from_db()
    assert match.status == MatchStatus.FINISHED and match.winner_id == match.player1_id
    assert LogKind.PLAY not in kinds(match) and kinds(match).count(LogKind.TIMEOUT) == 1
    assert services.match_verify(match_id=match.pk).ok


def test_a_move_just_before_the_deadline_is_played_and_spends_the_reserve(clocked):
    match = clocked(dice=[[3, 1], [4, 2]], match_length=1)
    just = match.deadline.timestamp() - 0.001
    match = act_at(match, 0, "play", just, "8/5 6/5")
    assert clock_of(match).reserves[0] == pytest.approx(0.001, abs=1e-6)
    assert not clocks.flag_if_expired(match_id=match.pk, now=at(just + 0.002))
    assert LogKind.TIMEOUT not in kinds(match)


def test_a_check_before_the_deadline_takes_no_lock(clocked, django_assert_num_queries):
    match = clocked(dice=[[3, 1]])
    with django_assert_num_queries(1):
        assert not clocks.match_check_clock(match_id=match.pk)


def test_a_client_check_after_the_deadline_flags(clocked):
    match = clocked(dice=[[3, 1]], clock_delay=0, clock_reserve_seconds=0.01, match_length=1)
    Match.objects.filter(pk=match.pk).update(deadline=match.deadline - timedelta(seconds=1))
    assert clocks.match_check_clock(match_id=match.pk)
    assert not clocks.match_check_clock(match_id=match.pk)
    match.refresh_from_db()
    assert match.status == MatchStatus.FINISHED


# -- presets ---------------------------------------------------------------------------------


def test_tables_take_clock_presets():
    fast = services.table_create(name="Fast", clock_preset="fast", match_length=3)
    assert (fast.clock_enabled, fast.clock_delay, fast.clock_reserve_per_point) == (True, 8, 20)
    control = fast.time_control()
    assert control is not None and control.reserve_for(fast.match_length) == 60
    usbgf = services.table_create(name="USBGF", clock_preset="usbgf", clock_delay=15)
    assert (usbgf.clock_delay, usbgf.clock_reserve_per_point) == (15, 120)
    casual = Table.objects.get(pk=services.table_create(name="C", clock_preset="casual").pk)
    assert (casual.clock_delay, casual.clock_reserve_per_point) == (15, 180)
    assert not services.table_create(name="None", clock_preset="none").clock_enabled
    with pytest.raises(services.ServiceError) as unknown:
        services.table_create(name="Bullet", clock_preset="bullet")
    assert unknown.value.code == "invalid_option"


# -- the sweep and the grace period ------------------------------------------------------------

GRACE = 30.0
LONG_DELAY = 60.0  # longer than the grace: no second flag while the grace runs


@pytest.fixture
def absent_flag(clocked) -> Callable[..., Match]:
    """A 3-point match whose player 0 flagged with no board open (the sweep did it)."""

    def make(**options: Any) -> Match:
        match = clocked(dice=[[3, 1], [3, 1], [4, 2]], clock_delay=LONG_DELAY,
                        grace_seconds=GRACE, **options)
        result = clocks.sweep_expired_clocks(now=match.deadline)
        assert result.flagged == [match.pk] and result.forfeited == []
        match.refresh_from_db()
        return match

    return make


def flagged_at(match: Match) -> float:
    return float(match.events.get(kind=LogKind.TIMEOUT).payload["flagged_at"])


def test_the_sweep_flags_only_expired_matches_and_only_once(clocked):
    due = clocked(dice=[[3, 1]], match_length=1)
    later = clocked(dice=[[3, 1]], match_length=1, clock_reserve_seconds=RESERVE * 2)
    now = due.deadline + timedelta(seconds=1)
    assert clocks.sweep_expired_clocks(now=now).flagged == [due.pk]
    assert clocks.sweep_expired_clocks(now=now).flagged == []
    later.refresh_from_db()
    assert later.status == MatchStatus.PLAYING and LogKind.TIMEOUT not in kinds(later)
    assert kinds(due).count(LogKind.TIMEOUT) == 1


def test_absent_past_the_grace_forfeits_the_match(absent_flag):
    match = absent_flag()
    flag_time = flagged_at(match)
    assert clocks.sweep_expired_clocks(now=at(flag_time + GRACE - 0.5)).forfeited == []
    result = clocks.sweep_expired_clocks(now=at(flag_time + GRACE + 0.5))
    assert result.forfeited == [match.pk]
    match.refresh_from_db()
    assert match.status == MatchStatus.FORFEITED and match.winner_id == match.player1_id
    forfeit = match.events.get(kind=LogKind.FORFEIT)
    assert forfeit.payload["reason"] == clocks.GRACE_FORFEIT_REASON
    assert forfeit.payload["action"]["player"] == 0
    assert kinds(match).count(LogKind.TIMEOUT) == 1
    assert services.match_verify(match_id=match.pk).ok
    assert clocks.sweep_expired_clocks(now=at(flag_time + GRACE + 5)).forfeited == []


def test_a_board_open_again_within_the_grace_saves_the_match(absent_flag):
    match = absent_flag()
    presence.connected(table_id=match.table_id, player_id=match.player0_id, channel_name="b1")
    assert clocks.sweep_expired_clocks(now=at(flagged_at(match) + GRACE + 1)).forfeited == []
    match.refresh_from_db()
    assert match.status == MatchStatus.PLAYING
    forget_presence(table_id=match.table_id, player_id=match.player0_id)


def test_back_within_the_grace_and_gone_again_still_saves_the_match(absent_flag):
    match = absent_flag()
    flag_time = flagged_at(match)
    ids = {"table_id": match.table_id, "player_id": match.player0_id}
    presence.connected(**ids, channel_name="b1")
    presence.disconnected(**ids, channel_name="b1", now=flag_time + 5)
    assert not presence.is_connected(**ids)
    assert clocks.sweep_expired_clocks(now=at(flag_time + GRACE + 1)).forfeited == []
    forget_presence(**ids)


def test_acting_within_the_grace_without_a_board_saves_the_match(absent_flag):
    # A REST client or a bot never opens a board: acting in the match is coming back.
    match = absent_flag()
    flag_time = flagged_at(match)
    assert load_state(match).player_to_act == 0  # game 2: player 0 won the opening roll
    act_at(match, 0, "play", flag_time + 3, "8/5 6/5")
    assert clocks.sweep_expired_clocks(now=at(flag_time + GRACE + 1)).forfeited == []


def test_a_flag_with_the_board_open_starts_no_grace(clocked):
    match = clocked(dice=[[3, 1], [3, 1]], clock_delay=LONG_DELAY, grace_seconds=GRACE)
    ids = {"table_id": match.table_id, "player_id": match.player0_id}
    presence.connected(**ids, channel_name="b1")
    assert clocks.flag_if_expired(match_id=match.pk, now=match.deadline)
    presence.disconnected(**ids, channel_name="b1")
    assert match.events.get(kind=LogKind.TIMEOUT).payload["absent"] is False
    assert clocks.sweep_expired_clocks(
        now=match.deadline + timedelta(seconds=GRACE + 1)).forfeited == []
    forget_presence(**ids)


# -- the demo club ---------------------------------------------------------------------------


def test_the_clock_demo_seats_an_idle_player_again_after_each_match(make_player):
    from matches.demo.clock import CLOCK_DEMO_TABLE, seed_clock_demo

    dave = make_player("dave")
    seed_clock_demo(print)
    seed_clock_demo(print)
    table = Table.objects.get(name=CLOCK_DEMO_TABLE)
    assert table.seat0_id == dave.pk and table.time_control() is not None
    services.table_sit(table_id=table.pk, player=make_player("visitor"))
    match = Match.objects.get(table=table)
    control = table.time_control()
    assert control is not None and match.deadline is not None
    assert clock_of(match).reserves == (15.0, 15.0) and control.delay == 5.0
    services.match_void(match_id=match.pk, referee=None, reason="demo over")
    seed_clock_demo(print)
    table.refresh_from_db()
    assert dave.pk in (table.seat0_id, table.seat1_id)
