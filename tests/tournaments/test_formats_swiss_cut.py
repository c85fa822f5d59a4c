"""A Swiss with a cut to a single-elimination final stage: the top ``cut`` of the Swiss
standings (players still in), seeded by their Swiss rank, play a knockout for the title."""

from __future__ import annotations

import random

import pytest

from tournaments.formats import (
    BYE,
    Bracket,
    PairingError,
    Result,
    TournamentState,
    get_format,
)
from tournaments.formats.simulation import play_out

SEEDS = list(range(101, 111))  # ten players


def swiss_part(fmt, state: TournamentState) -> TournamentState:
    return fmt._swiss_state(state)


def play_swiss(fmt, seeds, rng, withdrawn=frozenset()):
    """Play the Swiss only: results for every main pairing until the knockout appears."""
    state = TournamentState(seeds, fmt.start(seeds), withdrawn=withdrawn)
    while True:
        ready = fmt.next_pairings(state)
        state = state.with_pairings(ready)
        if any(p.bracket is Bracket.KNOCKOUT for p in ready):
            return state
        results = [Result(p.slot, *rng.sample([p.a, p.b], 2)) for p in ready if p.is_playable]
        assert results, "the Swiss stalled"
        state = TournamentState(state.seeds, state.pairings, (*state.results, *results),
                                state.withdrawn)


@pytest.mark.parametrize("seed", range(8))
def test_the_cut_takes_the_swiss_top_n_seeded_by_rank(seed):
    fmt = get_format("swiss_cut", rounds=3, cut=4)
    rng = random.Random(seed)
    state = play_swiss(fmt, SEEDS, rng)
    top = [line.entrant for line in fmt.swiss.standings(swiss_part(fmt, state))][:4]
    first_round = {p.slot: p for p in state.pairings if p.bracket is Bracket.KNOCKOUT}
    assert sorted(first_round) == ["K1-1", "K1-2"]
    assert (first_round["K1-1"].a, first_round["K1-1"].b) == (top[0], top[3])
    assert (first_round["K1-2"].a, first_round["K1-2"].b) == (top[1], top[2])
    # Nothing more of the Swiss is offered; the champion is the knockout's.
    assert not fmt.is_finished(state) and fmt.champion(state) is None
    final = play_out(fmt, SEEDS, rng)
    assert fmt.is_finished(final.state)
    champion = fmt.champion(final.state)
    decided = [r for r in final.state.results if r.slot == "K2-1"]
    assert decided and champion == decided[0].winner
    lines = fmt.standings(final.state)
    assert lines[0].entrant == champion and lines[0].rank == 1
    assert {line.entrant for line in lines} == set(SEEDS)
    assert [line.rank for line in lines[4:]] == list(range(5, 11))


def test_a_cut_that_is_not_a_power_of_two_gives_byes_to_the_top():
    fmt = get_format("swiss_cut", rounds=2, cut=3)
    state = play_swiss(fmt, SEEDS[:6], random.Random(1))
    top = [line.entrant for line in fmt.swiss.standings(swiss_part(fmt, state))][:3]
    first = {p.slot: p for p in state.pairings if p.bracket is Bracket.KNOCKOUT}
    assert (first["K1-1"].a, first["K1-1"].b) == (top[0], BYE)
    assert (first["K1-2"].a, first["K1-2"].b) == (top[1], top[2])


def test_a_player_who_left_does_not_make_the_cut():
    fmt = get_format("swiss_cut", rounds=2, cut=2)
    rng = random.Random(3)
    state = play_swiss(fmt, SEEDS[:6], rng)
    leader = fmt.swiss.standings(swiss_part(fmt, state))[0].entrant
    without_knockout = TournamentState(
        state.seeds, [p for p in state.pairings if p.bracket is Bracket.MAIN], state.results,
        withdrawn={leader})
    final = fmt.next_pairings(without_knockout)
    (pairing,) = final
    swiss_lines = [line.entrant for line in
                   fmt.swiss.standings(swiss_part(fmt, without_knockout))]
    assert leader not in (pairing.a, pairing.b)
    assert (pairing.a, pairing.b) == tuple(e for e in swiss_lines if e != leader)[:2]


def test_the_cut_once_drawn_is_read_back_from_the_stored_first_round():
    fmt = get_format("swiss_cut", rounds=2, cut=4, third_place=True)
    state = play_swiss(fmt, SEEDS[:8], random.Random(5))
    drawn = [p for p in state.pairings if p.bracket is Bracket.KNOCKOUT]
    # A later withdrawal of a player of the cut does not redraw it.
    someone = drawn[0].a
    assert isinstance(someone, int)
    later = TournamentState(state.seeds, state.pairings, state.results, withdrawn={someone})
    assert [p for p in fmt.resolved_pairings(later) if p.bracket is Bracket.KNOCKOUT
            and p.round == 1] == drawn
    # The third-place match is in the knockout's last round.
    slots = {p.slot: p for p in fmt.resolved_pairings(later)}
    assert slots["3P"].bracket is Bracket.THIRD_PLACE and slots["3P"].round == 2


def test_fewer_than_two_players_left_makes_the_swiss_winner_champion():
    fmt = get_format("swiss_cut", rounds=1, cut=4)
    state = TournamentState([1, 2], fmt.start([1, 2]))
    state = state.with_result(Result("R1-1", 1, 2))
    state = TournamentState(state.seeds, state.pairings, state.results, withdrawn={2})
    assert fmt.next_pairings(state) == [] and fmt.champion(state) == 1


def test_knockout_pairings_before_the_cut_are_refused():
    fmt = get_format("swiss_cut", rounds=2, cut=2)
    state = TournamentState(SEEDS[:4], fmt.start(SEEDS[:4]))
    bogus = [*state.pairings, *get_format("single_elimination").start(SEEDS[:2])]
    with pytest.raises(PairingError) as error:
        fmt.resolved_pairings(TournamentState(SEEDS[:4], bogus))
    assert error.value.code == "bad_pairing"
