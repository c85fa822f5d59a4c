"""Progressive consolation, last chance, the third-place match and placings, played out with
random results and checked against what the rules say, not against the generator's code."""

import random
from collections import Counter, defaultdict

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tournaments.formats import (
    Bracket,
    DoubleElimination,
    PairingError,
    Placing,
    ProgressiveConsolation,
    Result,
    RoundRobin,
    SingleElimination,
    SlotRef,
    Swiss,
    TournamentState,
    get_format,
    next_power_of_two,
)
from tournaments.formats.simulation import Playthrough, play_out

FAST = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def seeds_for(n: int) -> list[int]:
    return [500 + 3 * i for i in range(n)]


def check_no_double_booking(run: Playthrough) -> None:
    for offer in run.offered:
        seated = Counter(e for p in offer if p.is_playable for e in p.entrants)
        assert all(count == 1 for count in seated.values()), offer
    per_round: dict[tuple[str, int], Counter[int]] = defaultdict(Counter)
    for pairing in run.state.pairings:
        for entrant in pairing.entrants:
            per_round[pairing.bracket, pairing.round][entrant] += 1
    assert all(max(c.values(), default=1) == 1 for c in per_round.values())


def results_in(state: TournamentState, bracket: Bracket) -> list[Result]:
    slots = {p.slot for p in state.pairings if p.bracket is bracket}
    return [r for r in state.results if r.slot in slots]


def main_round(slot: str) -> int:
    return int(slot[1:].split("-")[0])


def check_progressive(n: int, fmt: ProgressiveConsolation, run: Playthrough) -> None:
    state, seeds = run.state, seeds_for(n)
    check_no_double_booking(run)
    assert fmt.is_finished(state)
    rounds = next_power_of_two(n).bit_length() - 1
    has_third = any(p.bracket is Bracket.THIRD_PLACE for p in run.state.pairings)
    entry_rounds = min(fmt.options["entry_rounds"], rounds - 1 - has_third)

    # The main flight is plain single elimination.
    main = results_in(state, Bracket.MAIN)
    assert len(main) == n - 1
    main_losses = Counter(r.loser for r in main)
    champion = fmt.champion(state)
    assert [e for e in seeds if main_losses[e] == 0] == [champion]

    # The consolation: exactly the losers of main rounds 1..entry_rounds, each losing once
    # at most, down to one champion.
    entering = {r.loser for r in main if main_round(r.slot) <= entry_rounds}
    consolation = results_in(state, Bracket.CONSOLATION)
    players = {e for r in consolation for e in (r.winner, r.loser)}
    if len(entering) < 2:
        assert not consolation
        assert fmt.consolation_champion(state) is None
    else:
        assert players == entering
        assert len(consolation) == len(entering) - 1
        c_losses = Counter(r.loser for r in consolation)
        unbeaten = [e for e in entering if c_losses[e] == 0]
        assert unbeaten == [fmt.consolation_champion(state)]
        assert max(c_losses.values()) == 1
    # ...entering at the matching stage: a main round-r loser plays no consolation match
    # before consolation round 2(r - 1) (exactly then when the field has no byes).
    first_round: dict[int, int] = {}
    for pairing in sorted(state.pairings, key=lambda p: p.round):
        if pairing.bracket is Bracket.CONSOLATION:
            for entrant in pairing.entrants:
                first_round.setdefault(entrant, pairing.round)
    lost_in = {r.loser: main_round(r.slot) for r in main}
    for entrant, c_round in first_round.items():
        stage = max(1, 2 * (lost_in[entrant] - 1))
        assert c_round >= stage
        if n == next_power_of_two(n):
            assert c_round == stage
    assert not any(p.is_bye for p in state.pairings if p.bracket is not Bracket.MAIN)

    # The last chance: the losers of consolation rounds 1..N, by the stated rule.
    last_rounds = fmt.options["last_chance_rounds"]
    c_round_of = {p.slot: p.round for p in state.pairings if p.bracket is Bracket.CONSOLATION}
    lc_entering = {r.loser for r in consolation if c_round_of[r.slot] <= last_rounds}
    last_chance = results_in(state, Bracket.LAST_CHANCE)
    if len(lc_entering) < 2:
        assert not last_chance
        assert fmt.last_chance_champion(state) is None
    else:
        assert {e for r in last_chance for e in (r.winner, r.loser)} == lc_entering
        assert len(last_chance) == len(lc_entering) - 1
        lc_losses = Counter(r.loser for r in last_chance)
        assert [e for e in lc_entering if lc_losses[e] == 0] == [fmt.last_chance_champion(state)]

    check_placings(fmt, state)


def check_placings(fmt, state: TournamentState) -> None:
    """Each flight's 1st is its champion, 2nd the loser of its final, 3rd and 4th from the
    third-place match or both semi-final losers; recomputed from the results alone."""
    placings = fmt.placings(state)
    by_flight: dict[Bracket, list[Placing]] = defaultdict(list)
    for placing in placings:
        by_flight[placing.flight].append(placing)
    for flight, bracket, champion in (
        (Bracket.MAIN, Bracket.MAIN, fmt.champion(state)),
        (Bracket.CONSOLATION, Bracket.CONSOLATION, fmt.consolation_champion(state)),
        (
            Bracket.LAST_CHANCE,
            Bracket.LAST_CHANCE,
            getattr(fmt, "last_chance_champion", lambda s: None)(state),
        ),
    ):
        lines = by_flight.get(flight, [])
        played = results_in(state, bracket)
        if champion is None:
            assert not lines
            continue
        final = max(played, key=lambda r: _round_of(state, r.slot))
        last_round = [r for r in played if _round_of(state, r.slot) == _round_of(state, final.slot)]
        assert len(last_round) == 1
        expected = {(1, champion), (2, final.loser)}
        semis = [r for r in played if _round_of(state, r.slot) == _round_of(state, final.slot) - 1]
        third = results_in(state, Bracket.THIRD_PLACE) if flight is Bracket.MAIN else []
        if third:
            (match,) = third
            expected |= {(3, match.winner), (4, match.loser)}
        elif len(semis) == 2:
            expected |= {(3, r.loser) for r in semis}
        elif len(semis) == 1:
            expected |= {(3, semis[0].loser)}
        got = {(p.place, p.entrant) for p in lines}
        assert expected <= got
        assert all(p.place <= 4 for p in lines)
        assert [p.place for p in lines] == sorted(p.place for p in lines)


def _round_of(state: TournamentState, slot: str) -> int:
    return next(p.round for p in state.pairings if p.slot == slot)


@pytest.mark.parametrize("n", range(2, 35))
def test_progressive_consolation_small_fields_exhaustively(n):
    for options in (
        {},
        {"entry_rounds": 1},
        {"entry_rounds": 3, "last_chance_rounds": 2},
        {"third_place": True, "last_chance_rounds": 1},
    ):
        fmt = ProgressiveConsolation(**options)
        for one_at_a_time in (False, True):
            run = play_out(fmt, seeds_for(n), random.Random(n), one_at_a_time=one_at_a_time)
            check_progressive(n, fmt, run)


@FAST
@given(
    n=st.integers(2, 130),
    entry_rounds=st.integers(1, 8),
    last_chance_rounds=st.integers(0, 6),
    third_place=st.booleans(),
    rng_seed=st.integers(0, 2**32),
)
def test_progressive_consolation_plays_out_for_any_field(
    n, entry_rounds, last_chance_rounds, third_place, rng_seed
):
    fmt = ProgressiveConsolation(
        entry_rounds=entry_rounds, last_chance_rounds=last_chance_rounds, third_place=third_place
    )
    run = play_out(fmt, seeds_for(n), random.Random(rng_seed), one_at_a_time=True)
    check_progressive(n, fmt, run)


def test_sixteen_player_layout_by_hand():
    """ABT's shape: main round-1 losers meet in consolation round 1, main round-2 losers
    drop into round 2 (the other half of the draw's survivors), then play down."""
    seeds = list(range(1, 17))
    fmt = ProgressiveConsolation(last_chance_rounds=1)
    layout = {p.slot: p for p in fmt.start(seeds)}
    loser = SlotRef.loser_of
    winner = SlotRef.winner_of
    assert [(layout[f"C1-{i}"].a, layout[f"C1-{i}"].b) for i in range(1, 5)] == [
        (loser("M1-1"), loser("M1-2")),
        (loser("M1-3"), loser("M1-4")),
        (loser("M1-5"), loser("M1-6")),
        (loser("M1-7"), loser("M1-8")),
    ]
    # The first drop is reversed: the loser of the bottom main round-2 match meets the
    # survivor from the top, so nobody meets a player from their own quarter again.
    assert [(layout[f"C2-{i}"].a, layout[f"C2-{i}"].b) for i in range(1, 5)] == [
        (winner("C1-1"), loser("M2-4")),
        (winner("C1-2"), loser("M2-3")),
        (winner("C1-3"), loser("M2-2")),
        (winner("C1-4"), loser("M2-1")),
    ]
    assert (layout["C3-1"].a, layout["C3-1"].b) == (winner("C2-1"), winner("C2-2"))
    assert (layout["C4-1"].a, layout["C4-1"].b) == (winner("C3-1"), winner("C3-2"))
    assert not any(slot.startswith("C5") for slot in layout)
    # Main round-3 losers (the quarter-finals) do not enter with entry_rounds=2.
    assert not any(side == loser("M3-1") for p in layout.values() for side in (p.a, p.b))
    # Last chance: the four consolation round-1 losers.
    lc = sorted(slot for slot in layout if slot.startswith("LC"))
    assert lc == ["LC1-1", "LC1-2", "LC2-1"]
    assert {layout["LC1-1"].a, layout["LC1-1"].b, layout["LC1-2"].a, layout["LC1-2"].b} == {
        loser(f"C1-{i}") for i in range(1, 5)
    }


def test_options_are_checked():
    with pytest.raises(PairingError) as info:
        ProgressiveConsolation(entry_rounds=0)
    assert info.value.code == "bad_option"
    with pytest.raises(PairingError):
        ProgressiveConsolation(last_chance_rounds=-1)
    with pytest.raises(PairingError) as info:
        get_format("progressive_consolation", consolation=True)
    assert info.value.code == "unknown_option"


def test_two_players_have_only_a_final():
    fmt = ProgressiveConsolation(last_chance_rounds=2, third_place=True)
    assert [p.slot for p in fmt.start([1, 2])] == ["M1-1"]


# The third-place match in single elimination


@pytest.mark.parametrize("n", range(2, 20))
def test_third_place_match_is_the_semi_final_losers(n):
    fmt = SingleElimination(third_place=True, consolation=n % 2 == 0)
    run = play_out(fmt, seeds_for(n), random.Random(n), one_at_a_time=True)
    state = run.state
    check_no_double_booking(run)
    assert fmt.is_finished(state)
    third = results_in(state, Bracket.THIRD_PLACE)
    rounds = next_power_of_two(n).bit_length() - 1
    semi_losers = {
        r.loser for r in results_in(state, Bracket.MAIN) if main_round(r.slot) == rounds - 1
    }
    if n <= 3:
        assert not third
    else:
        (match,) = third
        assert {match.winner, match.loser} == semi_losers
        standings = {s.entrant: s.rank for s in fmt.standings(state)}
        assert standings[match.winner] == 3 and standings[match.loser] == 4
        assert sorted(standings.values())[:4] == [1, 2, 3, 4]
    check_placings(fmt, state)


def test_third_place_match_is_played_to_the_final_length_round():
    fmt = SingleElimination(third_place=True)
    layout = {p.slot: p for p in fmt.start(list(range(1, 9)))}
    assert layout["3P"].round == layout["M3-1"].round == 3
    assert (layout["3P"].a, layout["3P"].b) == (SlotRef.loser_of("M2-1"), SlotRef.loser_of("M2-2"))


# Placings of the other formats


def test_double_elimination_placings():
    for n in (4, 5, 8, 13, 16):
        fmt = DoubleElimination()
        run = play_out(fmt, seeds_for(n), random.Random(n))
        state = run.state
        losses = Counter(r.loser for r in state.results)
        placings = fmt.placings(state)
        assert all(p.flight is Bracket.MAIN for p in placings)
        places = {p.place: p.entrant for p in placings}
        assert places[1] == fmt.champion(state)
        finals = [r for r in state.results if r.slot.startswith("GF")]
        assert places[2] == finals[-1].loser
        losers_rounds = sorted(
            {_round_of(state, r.slot) for r in state.results if r.slot.startswith("L")}
        )
        last = [
            r
            for r in state.results
            if r.slot.startswith("L") and _round_of(state, r.slot) == losers_rounds[-1]
        ]
        assert places[3] == last[0].loser
        assert losses[places[3]] == 2
        if len(losers_rounds) > 1:
            before = [
                r
                for r in state.results
                if r.slot.startswith("L") and _round_of(state, r.slot) == losers_rounds[-2]
            ]
            if len(before) == 1:
                assert places[4] == before[0].loser


def test_swiss_and_round_robin_placings_are_the_top_four_once_finished():
    for fmt in (Swiss(rounds=3), RoundRobin()):
        seeds = seeds_for(7)
        state = TournamentState(seeds, fmt.start(seeds))
        assert fmt.placings(state) == []
        run = play_out(fmt, seeds, random.Random(3), with_points=True)
        top = [s for s in fmt.standings(run.state)][:4]
        assert fmt.placings(run.state) == [Placing(Bracket.MAIN, s.rank, s.entrant) for s in top]


def test_placings_wait_for_the_flight_to_finish():
    fmt = ProgressiveConsolation()
    seeds = seeds_for(8)
    state = TournamentState(seeds, fmt.start(seeds))
    assert fmt.placings(state) == []
    # Play the main only: the main's places are settled, the consolation's are not.
    while True:
        ready = [p for p in fmt.next_pairings(state) if p.is_playable and p.bracket is Bracket.MAIN]
        if not ready:
            break
        for pairing in ready:
            state = state.with_result(Result(pairing.slot, pairing.a, pairing.b))
    flights = {p.flight for p in fmt.placings(state)}
    assert flights == {Bracket.MAIN}
