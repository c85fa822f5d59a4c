"""A Swiss cut's knockout with a consolation flight (``consolation_rounds``): the losers of
knockout rounds 1 to N play on, ABT style, and the flight is placed on its own."""

from __future__ import annotations

import random

import pytest

from tests.tournaments.test_formats_swiss_cut import play_swiss
from tournaments.formats import Bracket, PairingError, Result, TournamentState, get_format
from tournaments.formats.simulation import play_out

SEEDS = list(range(201, 217))  # sixteen players


def losers_of(state: TournamentState, prefix: str) -> set[int]:
    return {r.loser for r in state.results if r.slot.startswith(prefix)}


def winners_of(state: TournamentState, prefix: str) -> set[int]:
    return {r.winner for r in state.results if r.slot.startswith(prefix)}


@pytest.mark.parametrize("seed", range(6))
def test_quarter_final_losers_play_a_consolation_of_their_own(seed):
    fmt = get_format("swiss_cut", rounds=4, cut=8, consolation_rounds=1)
    final = play_out(fmt, SEEDS, random.Random(seed)).state
    assert fmt.is_finished(final)
    slots = {p.slot: p for p in fmt.resolved_pairings(final)}
    consolation = sorted(s for s, p in slots.items() if p.bracket is Bracket.CONSOLATION)
    # Four quarter-final losers: two consolation semi-finals and a final.
    assert consolation == ["C1-1", "C1-2", "C2-1"]
    entrants = {e for s in consolation[:2] for e in slots[s].entrants}
    assert entrants == losers_of(final, "K1-")
    # Loser of K1-1 v loser of K1-2, K1-3 v K1-4: the two halves of the draw apart.
    loser = {r.slot: r.loser for r in final.results}
    assert {frozenset(slots[s].entrants) for s in consolation[:2]} == {
        frozenset((loser["K1-1"], loser["K1-2"])), frozenset((loser["K1-3"], loser["K1-4"]))}
    c_final = next(r for r in final.results if r.slot == "C2-1")
    # Places: main 1 to 3 (two semi-final losers share 3rd), consolation 1, 2, 3, 3.
    placings = fmt.placings(final)
    main = [(p.place, p.entrant) for p in placings if p.flight is Bracket.MAIN]
    consolation_places = [(p.place, p.entrant) for p in placings
                          if p.flight is Bracket.CONSOLATION]
    k_final = next(r for r in final.results if r.slot == "K3-1")
    assert main[:2] == [(1, k_final.winner), (2, k_final.loser)]
    assert {e for place, e in main if place == 3} == losers_of(final, "K2-")
    assert consolation_places[:2] == [(1, c_final.winner), (2, c_final.loser)]
    assert {e for place, e in consolation_places if place == 3} == losers_of(final, "C1-")
    assert len(consolation_places) == 4
    # The consolation's matches are not in the standings: the main flight's are.
    lines = {line.entrant: line for line in fmt.standings(final)}
    assert lines[k_final.winner].rank == 1
    swiss_wins = {line.entrant: line.wins for line in fmt.swiss.standings(
        fmt._swiss_state(final))}
    for entrant in losers_of(final, "K1-"):
        assert lines[entrant].wins == swiss_wins[entrant]
        assert lines[entrant].rank == 5


def test_two_entry_rounds_drop_the_semi_final_losers_in():
    fmt = get_format("swiss_cut", rounds=4, cut=8, consolation_rounds=2)
    final = play_out(fmt, SEEDS, random.Random(11)).state
    slots = {p.slot: p for p in fmt.resolved_pairings(final)}
    assert sorted(s for s, p in slots.items() if p.bracket is Bracket.CONSOLATION) == [
        "C1-1", "C1-2", "C2-1", "C2-2", "C3-1"]
    second = {e for s in ("C2-1", "C2-2") for e in slots[s].entrants}
    assert second == winners_of(final, "C1-") | losers_of(final, "K2-")


def test_with_a_third_place_match_only_the_quarter_final_losers_enter():
    fmt = get_format("swiss_cut", rounds=4, cut=8, consolation_rounds=2, third_place=True)
    final = play_out(fmt, SEEDS, random.Random(2)).state
    slots = {p.slot: p for p in fmt.resolved_pairings(final)}
    assert sorted(s for s, p in slots.items() if p.bracket is Bracket.CONSOLATION) == [
        "C1-1", "C1-2", "C2-1"]
    assert slots["3P"].bracket is Bracket.THIRD_PLACE


def test_knockout_byes_send_nobody_to_the_consolation():
    fmt = get_format("swiss_cut", rounds=3, cut=6, consolation_rounds=1)
    final = play_out(fmt, SEEDS[:10], random.Random(4)).state
    slots = {p.slot: p for p in fmt.resolved_pairings(final)}
    consolation = [p for p in slots.values() if p.bracket is Bracket.CONSOLATION]
    # Two real quarter-finals (the top two seeds have byes): one consolation match.
    (only,) = consolation
    assert set(only.entrants) == losers_of(final, "K1-")
    assert all(not p.is_bye for p in consolation)


def test_the_consolation_waits_for_the_cut_and_is_not_offered_before():
    fmt = get_format("swiss_cut", rounds=3, cut=8, consolation_rounds=1)
    state = play_swiss(fmt, SEEDS, random.Random(7))
    ready = fmt.next_pairings(state)
    assert {p.bracket for p in ready} == {Bracket.KNOCKOUT}
    assert not [p for p in fmt.placings(state) if p.flight is Bracket.CONSOLATION]
    # The knockout's first round played: the consolation's first round is ready.
    for pairing in [p for p in state.pairings if p.bracket is Bracket.KNOCKOUT]:
        state = state.with_result(Result(pairing.slot, pairing.a, pairing.b))
    ready = {p.slot for p in fmt.next_pairings(state) if p.is_playable}
    assert {"C1-1", "C1-2", "K2-1", "K2-2"} <= ready


def test_no_consolation_by_default_and_the_option_is_checked():
    fmt = get_format("swiss_cut", rounds=3, cut=8)
    final = play_out(fmt, SEEDS, random.Random(1)).state
    assert not [p for p in fmt.resolved_pairings(final) if p.bracket is Bracket.CONSOLATION]
    assert {p.flight for p in fmt.placings(final)} == {Bracket.MAIN}
    with pytest.raises(PairingError) as error:
        get_format("swiss_cut", rounds=3, cut=8, consolation_rounds=-1)
    assert error.value.code == "bad_option"
    with pytest.raises(PairingError):
        get_format("swiss_cut", rounds=3, cut=8, consolation_rounds=True)


def test_a_disqualified_player_gives_up_their_consolation_place():
    fmt = get_format("swiss_cut", rounds=4, cut=8, consolation_rounds=1)
    final = play_out(fmt, SEEDS, random.Random(9)).state
    c_final = next(r for r in final.results if r.slot == "C2-1")
    places = [(p.place, p.entrant) for p in fmt.placings(final, {c_final.winner})
              if p.flight is Bracket.CONSOLATION]
    assert places[0] == (1, c_final.loser)
    assert c_final.winner not in {e for _p, e in places}
