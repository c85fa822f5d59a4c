"""Withdrawn players and double forfeits in the pure formats: who is paired, who goes
through, how standings count them."""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import replace

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tournaments.formats import (
    BYE,
    DoubleElimination,
    Format,
    Pairing,
    Result,
    RoundRobin,
    SingleElimination,
    Swiss,
    TournamentState,
    get_format,
)

Decide = Callable[[Pairing], Result]


def better_seed_wins(pairing: Pairing) -> Result:
    assert isinstance(pairing.a, int) and isinstance(pairing.b, int)
    return Result(pairing.slot, min(pairing.a, pairing.b), max(pairing.a, pairing.b))


def step(fmt: Format, state: TournamentState, decide: Decide = better_seed_wins
         ) -> TournamentState:
    """Store what the format offers and decide every playable pairing (seeds are their own
    ids here, so the lower id is the better seed)."""
    ready = fmt.next_pairings(state)
    state = state.with_pairings(ready)
    for pairing in ready:
        if pairing.is_playable:
            state = state.with_result(decide(pairing))
    return state


def round_of(state: TournamentState, number: int) -> list[Pairing]:
    return [p for p in state.pairings if p.round == number]


def seated(pairings: list[Pairing]) -> set[int]:
    return {e for p in pairings for e in p.entrants}


# -- Swiss -----------------------------------------------------------------------------------


def test_swiss_pairs_a_withdrawn_player_no_more_and_their_results_stand():
    fmt = Swiss(rounds=5)
    seeds = list(range(1, 9))
    state = TournamentState(seeds, fmt.start(seeds))
    state = step(fmt, state)  # round 1: 1-4 beat 5-8
    state = step(fmt, state)  # round 2
    # Entrant 1 (2 wins) is disqualified after round 2; the round-3 pairing has 7 players.
    state = replace(state, withdrawn=frozenset({1}))
    state = step(fmt, state)
    round3 = round_of(state, 3)
    assert 1 not in seated(round3)
    assert seated(round3) == set(range(2, 9))
    byes = [p for p in round3 if p.is_bye]
    assert len(byes) == 1 and byes[0].b is BYE
    while not fmt.is_finished(state):
        state = step(fmt, state)
    for number in (4, 5):
        assert 1 not in seated(round_of(state, number))
    lines = {line.entrant: line for line in fmt.standings(state)}
    assert (lines[1].wins, lines[1].losses) == (2, 0)  # their results stand
    # The opponents 1 beat count 1's two wins in their Buchholz.
    beaten_by_1 = [r.loser for r in state.results if r.winner == 1]
    assert len(beaten_by_1) == 2
    for opponent in beaten_by_1:
        opponents = [e for p in state.pairings if opponent in p.entrants
                     for e in p.entrants if e != opponent]
        wins = {line.entrant: line.wins for line in lines.values()}
        assert lines[opponent].tiebreak("buchholz") == sum(wins[o] for o in opponents)


def test_swiss_double_forfeit_is_a_loss_for_both_and_a_win_for_neither():
    fmt = Swiss(rounds=3)
    seeds = [1, 2, 3, 4]
    state = TournamentState(seeds, fmt.start(seeds))  # R1: 1 v 3, 2 v 4
    state = state.with_pairings(fmt.next_pairings(state))
    first = next(p for p in state.pairings if 1 in p.entrants)
    other = next(p for p in state.pairings if p is not first)
    state = state.with_result(Result.double_forfeit(first.slot, 1, 3))
    state = state.with_result(better_seed_wins(other))
    lines = {line.entrant: line for line in fmt.standings(state)}
    assert (lines[1].wins, lines[1].losses) == (0, 1)
    assert (lines[3].wins, lines[3].losses) == (0, 1)
    # Both absent players withdrawn: round 2 pairs the two who played.
    state = replace(state, withdrawn=frozenset({1, 3}))
    state = step(fmt, state)
    assert [sorted(p.entrants) for p in round_of(state, 2)] == [[2, 4]]


def test_swiss_with_fewer_than_two_players_left_ends():
    fmt = Swiss(rounds=4)
    seeds = [1, 2, 3, 4]
    state = TournamentState(seeds, fmt.start(seeds))
    state = state.with_pairings(fmt.next_pairings(state))
    state = replace(state, withdrawn=frozenset(seeds))
    for pairing in list(state.pairings):
        assert isinstance(pairing.a, int) and isinstance(pairing.b, int)
        state = state.with_result(Result.double_forfeit(pairing.slot, pairing.a, pairing.b))
    assert fmt.next_pairings(state) == []
    assert fmt.is_finished(state)


def test_a_reinstated_swiss_player_is_paired_again():
    fmt = Swiss(rounds=4)
    seeds = [1, 2, 3, 4, 5, 6]
    state = step(fmt, TournamentState(seeds, fmt.start(seeds)))
    state = step(fmt, replace(state, withdrawn=frozenset({6})))
    assert 6 not in seated(round_of(state, 2))
    state = step(fmt, replace(state, withdrawn=frozenset()))
    assert 6 in seated(round_of(state, 3))


# -- round robin -----------------------------------------------------------------------------


def games_of(fmt: Format, state: TournamentState, entrant: int) -> list[Pairing]:
    return [p for p in fmt.resolved_pairings(state) if entrant in p.entrants]


def test_round_robin_annuls_the_results_of_a_player_who_played_under_half():
    fmt = RoundRobin()
    seeds = list(range(1, 7))  # 5 rounds, 5 games each
    state = TournamentState(seeds, fmt.start(seeds))
    state = step(fmt, state)  # round 1
    state = step(fmt, state)  # round 2: 6 has played 2 of 5 (lost both)
    state = replace(state, withdrawn=frozenset({6}))
    beat_6 = {r.winner for r in state.results if r.loser == 6}
    assert len(beat_6) == 2
    before = {line.entrant: line.wins for line in fmt.standings(state)}
    lines = {line.entrant: line for line in fmt.standings(state)}
    for winner in beat_6:
        assert lines[winner].wins == before[winner]  # computed with the annulment already
    assert (lines[6].wins, lines[6].losses) == (0, 0)
    assert fmt.standings(state)[-1].entrant == 6  # listed last
    # Their three remaining games are not played: each opponent has a bye, worth nothing.
    remaining = [p for p in fmt.resolved_pairings(state) if p.round >= 3 and p.is_bye]
    assert len(remaining) == 3 and all(6 not in p.entrants for p in remaining)
    while not fmt.is_finished(state):
        state = step(fmt, state)
    assert all(6 not in {r.winner, r.loser} for r in state.results if int(r.slot[1]) >= 3)
    final = {line.entrant: line for line in fmt.standings(state)}
    for entrant in range(1, 6):
        assert final[entrant].wins + final[entrant].losses == 4  # games against 6 annulled


def test_round_robin_keeps_the_results_of_a_player_who_played_half_and_forfeits_the_rest():
    fmt = RoundRobin()
    seeds = list(range(1, 7))
    state = TournamentState(seeds, fmt.start(seeds))
    for _ in range(3):
        state = step(fmt, state)  # 6 has played 3 of 5
    state = replace(state, withdrawn=frozenset({6}))
    # Their remaining games are still to be decided (the manager forfeits them).
    later = [p for p in games_of(fmt, state, 6) if p.round >= 4]
    assert len(later) == 2 and all(p.is_playable for p in later)
    lines = {line.entrant: line for line in fmt.standings(state)}
    assert lines[6].losses == 3
    forfeited = RoundRobin()
    while not forfeited.is_finished(state):
        state = step(forfeited, state, lambda p: Result(
            p.slot, next(e for e in p.entrants if e != 6), 6, forfeit=True)
            if 6 in p.entrants else better_seed_wins(p))
    final = {line.entrant: line for line in fmt.standings(state)}
    assert final[6].losses == 5
    # Forfeits are not games played: the results stand because 3 of 5 were played.
    assert all(final[e].wins + final[e].losses == 5 for e in range(1, 7))


def test_round_robin_double_forfeit_is_a_loss_for_both():
    fmt = RoundRobin()
    seeds = [1, 2, 3, 4]
    state = TournamentState(seeds, fmt.start(seeds))
    ready = fmt.next_pairings(state)
    state = state.with_pairings(ready)
    first = ready[0]
    assert isinstance(first.a, int) and isinstance(first.b, int)
    state = state.with_result(Result.double_forfeit(first.slot, first.a, first.b))
    lines = {line.entrant: line for line in fmt.standings(state)}
    assert (lines[first.a].wins, lines[first.a].losses) == (0, 1)
    assert (lines[first.b].wins, lines[first.b].losses) == (0, 1)


# -- elimination -----------------------------------------------------------------------------


def test_single_elimination_double_forfeit_gives_the_next_opponent_a_bye():
    fmt = SingleElimination()
    seeds = list(range(1, 9))  # M1: 1v8, 4v5, 2v7, 3v6
    state = TournamentState(seeds, fmt.start(seeds))
    state = state.with_pairings(fmt.next_pairings(state))
    state = state.with_result(Result.double_forfeit("M1-1", 1, 8))
    state = state.with_result(Result("M1-2", 4, 5))
    resolved = {p.slot: p for p in fmt.resolved_pairings(state)}
    assert resolved["M2-1"].is_bye and resolved["M2-1"].entrants == (4,)
    # The bye is decided at once: 4 waits for the winner of M2-2 in the final.
    state = state.with_result(Result("M1-3", 2, 7)).with_result(Result("M1-4", 3, 6))
    state = state.with_pairings(fmt.next_pairings(state))
    state = state.with_result(Result("M2-2", 2, 3))
    final = {p.slot: p for p in fmt.next_pairings(state)}["M3-1"]
    assert set(final.entrants) == {4, 2}
    standings = {line.entrant: line for line in fmt.standings(state)}
    assert standings[1].losses == 1 and standings[8].losses == 1
    assert standings[1].rank == standings[8].rank == standings[5].rank  # out in round 1


def test_two_double_forfeits_feeding_one_slot_make_it_void_and_the_bracket_goes_on():
    fmt = SingleElimination()
    seeds = [1, 2, 3, 4]  # M1-1: 1v4, M1-2: 2v3
    state = TournamentState(seeds, fmt.start(seeds))
    state = state.with_result(Result.double_forfeit("M1-1", 1, 4))
    state = state.with_result(Result.double_forfeit("M1-2", 2, 3))
    resolved = {p.slot: p for p in fmt.resolved_pairings(state)}
    assert resolved["M2-1"].is_void
    assert fmt.is_finished(state) and fmt.champion(state) is None


def test_a_double_forfeit_in_the_final_finishes_without_a_champion():
    fmt = SingleElimination()
    state = TournamentState([1, 2], fmt.start([1, 2]))
    state = state.with_result(Result.double_forfeit("M1-1", 1, 2))
    assert fmt.is_finished(state) and fmt.champion(state) is None


def test_double_elimination_double_forfeit_drops_nobody_into_the_losers_bracket():
    fmt = DoubleElimination()
    seeds = [1, 2, 3, 4]  # W1-1: 1v4, W1-2: 2v3; L1-1: losers of both
    state = TournamentState(seeds, fmt.start(seeds))
    state = state.with_result(Result.double_forfeit("W1-1", 1, 4))
    state = state.with_result(Result("W1-2", 2, 3))
    resolved = {p.slot: p for p in fmt.resolved_pairings(state)}
    assert resolved["W2-1"].is_bye and resolved["W2-1"].entrants == (2,)
    assert resolved["L1-1"].is_bye and resolved["L1-1"].entrants == (3,)
    while not fmt.is_finished(state):
        state = step(fmt, state)
    assert fmt.champion(state) == 2
    assert {e for p in state.pairings for e in p.entrants if p.round > 1} <= {2, 3}


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    name=st.sampled_from(["swiss", "round_robin", "single", "double", "progressive"]),
    n=st.integers(min_value=2, max_value=12),
    rng_seed=st.integers(min_value=0, max_value=10_000),
)
def test_any_format_finishes_with_random_withdrawals_and_double_forfeits(name, n, rng_seed):
    rng = random.Random(rng_seed)
    fmt: Format = {
        "swiss": lambda: Swiss(rounds=4),
        "round_robin": RoundRobin,
        "single": lambda: SingleElimination(consolation=True, third_place=True),
        "double": DoubleElimination,
        "progressive": lambda: get_format("progressive_consolation", third_place=True),
    }[name]()
    seeds = list(range(1, n + 1))
    state = TournamentState(seeds, fmt.start(seeds))
    withdrawn_in_round: dict[int, int] = {}
    for _ in range(500):
        if fmt.is_finished(state):
            break
        ready = fmt.next_pairings(state)
        state = state.with_pairings(ready)
        playable = [p for p in ready if p.is_playable]
        if not playable:
            break
        for pairing in playable:
            assert isinstance(pairing.a, int) and isinstance(pairing.b, int)
            if name == "swiss":
                # Nobody is paired in a round after the one they withdrew in.
                for entrant in pairing.entrants:
                    assert pairing.round <= withdrawn_in_round.get(entrant, pairing.round)
            roll = rng.random()
            if roll < 0.1:
                result = Result.double_forfeit(pairing.slot, pairing.a, pairing.b)
            else:
                result = better_seed_wins(pairing) if roll < 0.6 else Result(
                    pairing.slot, max(pairing.a, pairing.b), min(pairing.a, pairing.b))
            state = state.with_result(result)
        if rng.random() < 0.3:
            leaving = rng.choice(seeds)
            withdrawn_in_round.setdefault(leaving, max(p.round for p in state.pairings))
            state = replace(state, withdrawn=state.withdrawn | {leaving})
    assert fmt.is_finished(state), "the format stalled"
    assert len(fmt.standings(state)) == n


@pytest.mark.parametrize("n", [3, 5, 7])
def test_swiss_never_pairs_a_withdrawn_player_in_a_later_round(n):
    fmt = Swiss(rounds=5)
    seeds = list(range(1, n + 1))
    state = step(fmt, TournamentState(seeds, fmt.start(seeds)))
    state = replace(state, withdrawn=frozenset({n}))
    while not fmt.is_finished(state):
        state = step(fmt, state)
    assert all(n not in seated(round_of(state, r)) for r in range(2, 6))
