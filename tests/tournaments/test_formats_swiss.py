"""Swiss pairing: score groups, byes, rematch avoidance (checked against brute force)."""

import random
import time
from collections import Counter
from functools import cache

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tournaments.formats import (
    BYE,
    Bracket,
    Pairing,
    PairingError,
    Result,
    Swiss,
    TournamentState,
    swiss_pairs,
)
from tournaments.formats.simulation import play_out

FAST = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def seeds_for(n: int) -> list[int]:
    return [500 + 3 * i for i in range(n)]


def rounds_of(state: TournamentState) -> list[list[Pairing]]:
    last = max((p.round for p in state.pairings), default=0)
    return [[p for p in state.pairings if p.round == r] for r in range(1, last + 1)]


def max_rematch_free_pairs(players: tuple[int, ...], played: dict[int, set[int]]) -> int:
    """Brute force over subsets: the most disjoint pairs of players who have not met."""

    @cache
    def best(mask: int) -> int:
        if mask == 0:
            return 0
        i = (mask & -mask).bit_length() - 1
        rest = mask & ~(1 << i)
        result = best(rest)
        for j in range(len(players)):
            if rest >> j & 1 and players[j] not in played[players[i]]:
                result = max(result, 1 + best(rest & ~(1 << j)))
        return result

    return best((1 << len(players)) - 1)


def check_swiss(n: int, rounds: int, state: TournamentState, oracle: bool) -> None:
    """Replay the tournament round by round and check every round against the rules."""
    fmt = Swiss(rounds=rounds)
    seeds = seeds_for(n)
    results = {r.slot: r for r in state.results}
    played: dict[int, set[int]] = {e: set() for e in seeds}
    byes: Counter[int] = Counter()
    score: Counter[int] = Counter()
    all_rounds = rounds_of(state)
    assert len(all_rounds) == rounds
    for number, pairings in enumerate(all_rounds, start=1):
        seated = Counter(e for p in pairings for e in p.entrants)
        assert sorted(seated) == sorted(seeds) and set(seated.values()) == {1}
        bye_pairings = [p for p in pairings if p.is_bye]
        assert len(bye_pairings) == n % 2
        assert [p.slot for p in pairings] == [f"R{number}-{b}" for b in range(1, len(pairings) + 1)]
        if bye_pairings:
            (bye,) = bye_pairings
            assert bye.b == BYE and bye.slot == pairings[-1].slot
            # Nobody gets a second bye while someone has had none (fewer, in general).
            assert byes[bye.a] == min(byes[e] for e in seeds)
        matches = [p for p in pairings if p.is_playable]
        rematches = sum(1 for p in matches if p.b in played[p.a])
        if oracle:
            # As few rematches as any pairing of the round could have, given the bye rule.
            fewest_byes = min(byes[e] for e in seeds)
            candidates = [e for e in seeds if byes[e] == fewest_byes] if n % 2 else [None]
            best = max(
                max_rematch_free_pairs(tuple(e for e in seeds if e != c), played)
                for c in candidates
            )
            assert rematches == len(matches) - best, (number, rematches, best)
        elif n >= 2 * (number - 1) + 2:
            assert rematches == 0  # Dirac: a rematch-free round always exists
        for p in pairings:
            if p.is_bye:
                byes[p.a] += 1
                score[p.a] += 1
            else:
                played[p.a].add(p.b)
                played[p.b].add(p.a)
                score[results[p.slot].winner] += 1
    assert fmt.is_finished(state)
    standings = fmt.standings(state)
    assert [s.entrant for s in standings][0] == fmt.champion(state)
    assert [s.rank for s in standings] == list(range(1, n + 1))
    assert all(s.wins == score[s.entrant] and s.byes == byes[s.entrant] for s in standings)
    assert sum(s.wins for s in standings) == len(state.results) + byes.total()
    keys = [
        (s.wins, s.tiebreak("buchholz"), s.tiebreak("median_buchholz"),
         s.tiebreak("sonneborn_berger"), -s.seed)
        for s in standings
    ]  # fmt: skip
    assert keys == sorted(keys, reverse=True)


@pytest.mark.parametrize("n", range(2, 13))
def test_small_fields_avoid_rematches_exactly_as_far_as_possible(n):
    for rounds in sorted({1, 3, n - 1 if n > 2 else 1, n + 2}):
        for rng_seed in range(3):
            run = play_out(Swiss(rounds=rounds), seeds_for(n), random.Random(rng_seed))
            check_swiss(n, rounds, run.state, oracle=True)


@FAST
@given(
    n=st.integers(min_value=2, max_value=14),
    rounds=st.integers(min_value=1, max_value=16),
    rng_seed=st.integers(0, 2**32),
)
def test_random_small_tournaments_match_the_brute_force_oracle(n, rounds, rng_seed):
    run = play_out(Swiss(rounds=rounds), seeds_for(n), random.Random(rng_seed))
    check_swiss(n, rounds, run.state, oracle=True)


@FAST
@given(
    n=st.integers(min_value=2, max_value=256),
    rounds=st.integers(min_value=1, max_value=9),
    rng_seed=st.integers(0, 2**32),
)
def test_any_field_plays_out(n, rounds, rng_seed):
    run = play_out(Swiss(rounds=rounds), seeds_for(n), random.Random(rng_seed))
    check_swiss(n, rounds, run.state, oracle=False)


@pytest.mark.parametrize("n", [2, 7, 8, 9, 16, 33])
def test_round_one_is_top_half_against_bottom_half(n):
    seeds = seeds_for(n)
    pairings = Swiss(rounds=3).start(seeds)
    half = n // 2
    expected = [(seeds[i], seeds[i + half]) for i in range(half)]
    assert [(p.a, p.b) for p in pairings if p.is_playable] == expected
    if n % 2:
        assert (pairings[-1].a, pairings[-1].b) == (seeds[-1], BYE)


def test_round_two_pairs_within_score_groups():
    seeds = list(range(1, 9))
    fmt = Swiss(rounds=3)
    state = TournamentState(seeds, fmt.start(seeds))
    # Round 1: 1-5 2-6 3-7 4-8; the top four seeds win except 6 beats 2.
    for result in (Result("R1-1", 1, 5), Result("R1-2", 6, 2), Result("R1-3", 3, 7)):
        state = state.with_result(result)
    assert fmt.next_pairings(state) == [p for p in state.pairings if p.slot == "R1-4"]
    state = state.with_result(Result("R1-4", 4, 8))
    round_two = fmt.next_pairings(state)
    # Winners 1 3 4 6 (top half 1 3 v bottom half 4 6); losers 2 5 7 8 likewise.
    assert [(p.slot, p.a, p.b) for p in round_two] == [
        ("R2-1", 1, 4),
        ("R2-2", 3, 6),
        ("R2-3", 2, 7),
        ("R2-4", 5, 8),
    ]


def test_a_rematch_is_avoided_by_swapping_within_the_group():
    # 1 and 3 already met: 1 takes 4 instead, 2 takes 3.
    played = {1: {3}, 2: set(), 3: {1}, 4: set()}
    pairs, bye = swiss_pairs([1, 2, 3, 4], dict.fromkeys(played, 1), played, Counter())
    assert bye is None
    assert pairs == [(1, 4), (2, 3)]


def test_a_player_who_cannot_be_paired_in_the_group_floats_down():
    # Score groups {1, 2} and {3, 4}; 1 and 2 have met, so both float across.
    played = {1: {2}, 2: {1}, 3: set(), 4: set()}
    score = {1: 2, 2: 2, 3: 1, 4: 1}
    pairs, _ = swiss_pairs([1, 2, 3, 4], score, played, Counter())
    assert pairs == [(1, 3), (2, 4)]


def test_the_bye_goes_to_the_lowest_ranked_player_without_one():
    score = {1: 1, 2: 1, 3: 0, 4: 0, 5: 0}
    played = {e: set() for e in score}
    _, bye = swiss_pairs([1, 2, 3, 4, 5], score, played, Counter({5: 1}))
    assert bye == 4
    _, bye = swiss_pairs([1, 2, 3, 4, 5], score, played, Counter({5: 1, 4: 1, 3: 1, 2: 1}))
    assert bye == 1


def test_the_bye_counts_as_a_win_and_needs_no_result():
    fmt = Swiss(rounds=1)
    state = TournamentState([1, 2, 3], fmt.start([1, 2, 3]))
    assert [(p.a, p.b) for p in state.pairings] == [(1, 2), (3, BYE)]
    with pytest.raises(PairingError) as info:
        fmt.check_result(state, Result("R1-2", 3, 1))
    assert info.value.code == "bye_result"
    state = state.with_result(Result("R1-1", 2, 1))
    assert fmt.is_finished(state)
    assert [(s.entrant, s.wins, s.byes) for s in fmt.standings(state)] == [
        (2, 1, 0),
        (3, 1, 1),
        (1, 0, 0),
    ]


def test_the_next_round_waits_for_the_current_one():
    fmt = Swiss(rounds=2)
    seeds = [1, 2, 3, 4]
    state = TournamentState(seeds, fmt.start(seeds)).with_result(Result("R1-1", 1, 3))
    assert [p.slot for p in fmt.next_pairings(state)] == ["R1-2"]
    state = state.with_result(Result("R1-2", 4, 2))
    round_two = fmt.next_pairings(state)
    assert [p.round for p in round_two] == [2, 2]
    assert fmt.next_pairings(state) == round_two  # the same until stored and played
    state = state.with_pairings(round_two)
    for p in round_two:
        state = state.with_result(Result(p.slot, p.a, p.b))
    assert fmt.next_pairings(state) == []
    assert fmt.is_finished(state)


def test_standings_use_buchholz_then_median_then_sonneborn_berger():
    fmt = Swiss(rounds=2)
    seeds = [1, 2, 3, 4]
    state = TournamentState(seeds, fmt.start(seeds))
    state = state.with_result(Result("R1-1", 1, 3)).with_result(Result("R1-2", 4, 2))
    state = state.with_pairings(fmt.next_pairings(state))
    # Round 2: 1 v 4 (winners), 2 v 3 (losers).
    assert [(p.a, p.b) for p in state.pairings if p.round == 2] == [(1, 4), (2, 3)]
    state = state.with_result(Result("R2-1", 4, 1)).with_result(Result("R2-2", 3, 2))
    lines = {s.entrant: s for s in fmt.standings(state)}
    # Wins: 4 -> 2, 1 -> 1, 3 -> 1, 2 -> 0. Buchholz: 1 met 3 and 4 (1 + 2 = 3),
    # 3 met 1 and 2 (1 + 0 = 1).
    assert lines[1].tiebreak("buchholz") == 3 and lines[3].tiebreak("buchholz") == 1
    assert [s.entrant for s in fmt.standings(state)] == [4, 1, 3, 2]
    assert lines[4].tiebreak("sonneborn_berger") == 1 + 0


def test_more_rounds_than_opponents_means_as_few_rematches_as_possible():
    run = play_out(Swiss(rounds=5), [1, 2, 3, 4], random.Random(3))
    met = Counter(frozenset(p.entrants) for p in run.state.pairings)
    assert sorted(met.values()) in ([1, 1, 2, 2, 2, 2], [1, 1, 1, 1, 3, 3])
    assert len(met) == 6  # every pair met before anyone met twice


@pytest.mark.parametrize(
    ("pairings", "message"),
    [
        (
            [Pairing("R1-1", 1, Bracket.MAIN, 1, 2), Pairing("R1-2", 1, Bracket.MAIN, 2, 3)],
            "seats an entrant twice",
        ),
        (
            [Pairing("R2-1", 2, Bracket.MAIN, 1, 2), Pairing("R2-2", 2, Bracket.MAIN, 3, 4)],
            "numbered",
        ),
        (
            [Pairing("R1-1", 1, Bracket.MAIN, 1, 9), Pairing("R1-2", 1, Bracket.MAIN, 3, 4)],
            "not a Swiss",
        ),
    ],
)
def test_inconsistent_stored_rounds_are_refused(pairings, message):
    with pytest.raises(PairingError, match=message):
        Swiss(rounds=3).next_pairings(TournamentState([1, 2, 3, 4], pairings))


def test_a_round_cannot_be_paired_over_an_unfinished_one():
    fmt = Swiss(rounds=3)
    seeds = [1, 2, 3, 4]
    state = TournamentState(seeds, fmt.start(seeds))
    state = state.with_result(Result("R1-1", 1, 3)).with_result(Result("R1-2", 4, 2))
    state = state.with_pairings(fmt.next_pairings(state))
    broken = TournamentState(seeds, state.pairings, state.results[:1])
    with pytest.raises(PairingError, match="Round 1 is not finished"):
        fmt.next_pairings(broken)


def test_a_mid_tournament_round_of_1024_players_is_paired_fast():
    """The benchmark's figure as a guard (generous, for slow CI machines): well under 1 s."""
    fmt = Swiss(rounds=5)
    rng = random.Random(1024)
    seeds = list(range(1, 1025))
    state = TournamentState(seeds)
    for _ in range(4):
        pairings = fmt.next_pairings(state)
        state = state.with_pairings(pairings)
        results = [
            Result(p.slot, *((p.a, p.b) if rng.random() < 0.5 else (p.b, p.a)))
            for p in pairings
            if p.is_playable
        ]
        state = TournamentState(seeds, state.pairings, (*state.results, *results))
    started = time.perf_counter()
    round_five = fmt.next_pairings(state)
    elapsed = time.perf_counter() - started
    assert len(round_five) == 512 and all(p.round == 5 for p in round_five)
    met = {frozenset(p.entrants) for p in state.pairings}
    assert not any(frozenset(p.entrants) in met for p in round_five)
    assert elapsed < 1.0


def test_the_top_of_a_group_does_not_take_a_partner_that_forces_others_to_float():
    # Group {1, 2, 3, 4}: 1 v 3 and 2 v 4 is the textbook pairing, but 2 and 4 have met.
    # 1 v 4, 2 v 3 keeps everybody in the group; 1 v 3 would float 2 and 4 down.
    played = {e: set() for e in range(1, 7)}
    played[2], played[4] = {4}, {2}
    score = {1: 2, 2: 2, 3: 2, 4: 2, 5: 1, 6: 1}
    pairs, _ = swiss_pairs(list(range(1, 7)), score, played, Counter())
    assert pairs == [(1, 4), (2, 3), (5, 6)]
