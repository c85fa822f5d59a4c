"""Round robin: the circle method, byes for odd fields, double cycles, tiebreaks."""

import random
from collections import Counter
from itertools import combinations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tournaments.formats import BYE, PairingError, Result, RoundRobin, TournamentState
from tournaments.formats.simulation import play_out

FAST = settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def seeds_for(n: int) -> list[int]:
    return [40 + 11 * i for i in range(n)]


def check_schedule(n: int, double: bool) -> None:
    seeds = seeds_for(n)
    schedule = RoundRobin(double=double).start(seeds)
    cycles = 2 if double else 1
    rounds_per_cycle = n - 1 if n % 2 == 0 else n
    assert max(p.round for p in schedule) == cycles * rounds_per_cycle
    for number in range(1, cycles * rounds_per_cycle + 1):
        pairings = [p for p in schedule if p.round == number]
        seated = Counter(e for p in pairings for e in p.entrants)
        assert sorted(seated) == sorted(seeds) and set(seated.values()) == {1}
        byes = [p for p in pairings if p.is_bye]
        assert len(byes) == n % 2
        assert all(p.b == BYE for p in byes)
    met = Counter(frozenset(p.entrants) for p in schedule if p.is_playable)
    assert set(met) == {frozenset(pair) for pair in combinations(seeds, 2)}
    assert set(met.values()) == {cycles}
    bye_count = Counter(p.a for p in schedule if p.is_bye)
    assert bye_count == (Counter({e: cycles for e in seeds}) if n % 2 else Counter())
    if double:
        # The second cycle is the first with sides swapped.
        sides = Counter((p.a, p.b) for p in schedule if p.is_playable)
        assert set(sides.values()) == {1}
    assert len({p.slot for p in schedule}) == len(schedule)


@pytest.mark.parametrize("double", [False, True])
@pytest.mark.parametrize("n", range(2, 41))
def test_everybody_meets_everybody_exactly_once_or_twice(n, double):
    check_schedule(n, double)


@FAST
@given(n=st.integers(min_value=41, max_value=256), double=st.booleans())
def test_schedules_are_complete_for_any_field(n, double):
    check_schedule(n, double)


@FAST
@given(
    n=st.integers(min_value=2, max_value=24),
    double=st.booleans(),
    rng_seed=st.integers(0, 2**32),
    one_at_a_time=st.booleans(),
)
def test_a_round_robin_plays_out_round_by_round(n, double, rng_seed, one_at_a_time):
    fmt = RoundRobin(double=double)
    run = play_out(
        fmt, seeds_for(n), random.Random(rng_seed), one_at_a_time=one_at_a_time, with_points=True
    )
    # What is offered at one time is one round, each player at most once.
    for offer in run.offered:
        assert len({p.round for p in offer}) <= 1
        seated = Counter(e for p in offer for e in p.entrants if p.is_playable)
        assert all(count == 1 for count in seated.values())
    matches = (n * (n - 1) // 2) * (2 if double else 1)
    assert len(run.state.results) == matches
    assert fmt.is_finished(run.state)
    standings = fmt.standings(run.state)
    assert sorted(s.entrant for s in standings) == sorted(seeds_for(n))
    assert sum(s.wins for s in standings) == matches
    assert all(s.wins + s.losses == (n - 1) * (2 if double else 1) for s in standings)
    keys = [
        (s.wins, s.tiebreak("head_to_head"), s.tiebreak("points_difference"), -s.seed)
        for s in standings
    ]
    assert keys == sorted(keys, reverse=True)
    assert fmt.champion(run.state) == standings[0].entrant


def test_rounds_are_offered_in_order():
    fmt = RoundRobin()
    seeds = [1, 2, 3, 4]
    state = TournamentState(seeds, fmt.start(seeds))
    first = fmt.next_pairings(state)
    assert {p.round for p in first} == {1} and len(first) == 2
    state = state.with_result(Result(first[0].slot, *first[0].entrants))
    assert fmt.next_pairings(state) == first[1:]
    state = state.with_result(Result(first[1].slot, *first[1].entrants))
    assert {p.round for p in fmt.next_pairings(state)} == {2}


def test_byes_are_worth_nothing_in_a_round_robin():
    fmt = RoundRobin()
    seeds = [1, 2, 3]
    run = play_out(fmt, seeds, random.Random(0))
    assert all(s.byes == 1 for s in fmt.standings(run.state))
    assert sum(s.wins for s in fmt.standings(run.state)) == 3


def test_head_to_head_separates_players_on_equal_wins():
    fmt = RoundRobin()
    seeds = [1, 2, 3, 4]
    state = TournamentState(seeds, fmt.start(seeds))
    meeting = {frozenset(p.entrants): p.slot for p in state.pairings}
    # 4 beats 1; 1 beats 2 and 3; 4 loses to 2 and 3; 2 beats 3.
    # Wins: 1 -> 2, 4 -> 1, 2 -> 2, 3 -> 1. Between 1 and 2 (two wins each): 1 beat 2.
    for winner, loser in ((4, 1), (1, 2), (1, 3), (2, 4), (3, 4), (2, 3)):
        state = state.with_result(Result(meeting[frozenset((winner, loser))], winner, loser))
    assert [(s.entrant, s.wins, s.tiebreak("head_to_head")) for s in fmt.standings(state)] == [
        (1, 2, 1),
        (2, 2, 0),
        (3, 1, 1),
        (4, 1, 0),
    ]


def test_points_difference_comes_after_head_to_head():
    fmt = RoundRobin()
    seeds = [1, 2, 3]
    state = TournamentState(seeds, fmt.start(seeds))
    meeting = {frozenset(p.entrants): p.slot for p in state.pairings if p.is_playable}
    # A three-way tie on one win each and one head-to-head win each; margins decide.
    for winner, loser, points in ((1, 2, (7, 6)), (2, 3, (7, 0)), (3, 1, (7, 5))):
        slot = meeting[frozenset((winner, loser))]
        state = state.with_result(Result(slot, winner, loser, *points))
    lines = fmt.standings(state)
    # 1: +1 - 2 = -1; 2: -1 + 7 = 6; 3: -7 + 2 = -5.
    assert [(s.entrant, s.tiebreak("points_difference")) for s in lines] == [
        (2, 6),
        (1, -1),
        (3, -5),
    ]


def test_a_result_for_a_bye_or_a_stranger_is_refused():
    fmt = RoundRobin()
    seeds = [1, 2, 3]
    state = TournamentState(seeds, fmt.start(seeds))
    bye = next(p for p in state.pairings if p.is_bye)
    with pytest.raises(PairingError) as info:
        fmt.check_result(state, Result(bye.slot, 1, 2))
    assert info.value.code == "bye_result"
    match = next(p for p in state.pairings if p.is_playable)
    stranger = next(e for e in seeds if e not in match.entrants)
    with pytest.raises(PairingError) as info:
        fmt.check_result(state, Result(match.slot, stranger, match.entrants[0]))
    assert info.value.code == "bad_result"
