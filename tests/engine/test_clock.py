import pytest

from tavla.engine.clock import PRESETS, Clock, TimeControl


def test_reserve_per_point_scales_with_match_length():
    assert TimeControl(delay=12, reserve_per_point=120).reserve_for(7) == 840
    assert TimeControl(delay=12, reserve_per_point=0, reserve_seconds=90).reserve_for(7) == 90
    assert TimeControl(reserve_per_point=60).reserve_for(None) == 60


def test_presets_match_the_rule_sheet():
    fast, normal, casual = PRESETS["fast"], PRESETS["normal"], PRESETS["casual"]
    assert fast and (fast.delay, fast.reserve_per_point) == (8, 20)
    assert normal and (normal.delay, normal.reserve_per_point) == (10, 60)
    assert casual and (casual.delay, casual.reserve_per_point) == (15, 180)
    assert PRESETS["none"] is None


def test_play_within_delay_costs_no_reserve():
    clock = Clock(delay=10, reserves=(60.0, 60.0)).start(0, now=1000.0)
    assert clock.stop(now=1009.9).reserves == (60.0, 60.0)


def test_play_after_delay_costs_the_excess():
    clock = Clock(delay=10, reserves=(60.0, 60.0)).start(0, now=1000.0)
    assert clock.stop(now=1017.5).reserves == (52.5, 60.0)


def test_switching_players_charges_the_one_who_was_running():
    clock = Clock(delay=5, reserves=(30.0, 30.0)).start(0, now=0.0).start(1, now=20.0)
    assert clock.reserves == (15.0, 30.0)
    assert clock.running == 1
    assert clock.deadline() == pytest.approx(20 + 5 + 30)


def test_deadline_and_expiry():
    clock = Clock(delay=12, reserves=(2.0, 2.0)).start(1, now=100.0)
    assert clock.deadline() == 114.0
    assert not clock.is_expired(113.99)
    assert clock.is_expired(114.0)
    assert clock.remaining(1, 113.0) == 1.0
    assert clock.remaining(0, 113.0) == 2.0


def test_reserve_never_goes_negative_and_flag_leaves_delay_only():
    clock = Clock(delay=1, reserves=(2.0, 2.0)).start(0, now=0.0).stop(now=50.0)
    assert clock.reserves == (0.0, 2.0)
    flagged = Clock(delay=8, reserves=(5.0, 7.0)).flag(1)
    assert flagged.reserves == (5.0, 0.0)
    assert flagged.start(1, now=10.0).deadline() == 18.0


def test_dict_round_trip():
    clock = Clock(delay=12, reserves=(100.0, 80.5)).start(1, now=5.25)
    assert Clock.from_dict(clock.to_dict()) == clock


def test_extend_moves_the_running_turn_and_its_deadline_only():
    clock = Clock(delay=86400.0, reserves=(0.0, 0.0)).start(1, 1000.0)
    longer = clock.extend(3600.0)
    assert longer.deadline() == clock.deadline() + 3600.0
    assert longer.remaining(1, 1000.0 + 86400.0 + 1800.0) == 0.0  # within the moved delay
    assert longer.extend(-3600.0) == clock
    stopped = Clock(delay=10.0, reserves=(5.0, 5.0))
    assert stopped.extend(60.0) == stopped and stopped.deadline() is None
