"""A Swiss cut with a consolation flight run through the real services (players sit, matches
end through matches.services), its rounds paired by the director: the consolation's round k
is released with knockout round k + 1 and played to its length, its players are the
knockout's quarter-final losers, and its places are paid from the consolation share by the
money rules. Who meets whom and who is paid what is recomputed here from the results."""

from __future__ import annotations

import random
from decimal import Decimal

import pytest
from rest_framework.test import APIClient

from tests.tournaments.conftest import open_pairings, play_match
from tournaments import services
from tournaments.models import PairingStatus, Tournament, TournamentStatus
from tournaments.treasury import money_summary

pytestmark = pytest.mark.django_db


def play_open(tournament: Tournament, rng: random.Random) -> set[str]:
    """Play every open pairing (the better seed wins 70 % of the time); their slots."""
    rows = open_pairings(tournament)
    for row in rows:
        assert row.entry_a and row.entry_b
        better, worse = sorted((row.entry_a, row.entry_b), key=lambda e: e.seed or 0)
        play_match(row, worse if rng.random() < 0.7 else better)
    return {row.slot for row in rows}


def test_a_swiss_cut_with_a_consolation_paired_by_hand_and_paid(make_tournament, director):
    tournament = make_tournament(
        12, format="swiss_cut", auto_pair=False, match_lengths=[1, 1, 1, 3, 5, 7],
        format_options={"rounds": 3, "cut": 8, "consolation_rounds": 1},
        entry_fee=Decimal(10), payout_table="70/30", consolation_percent=Decimal(25),
        consolation_payout_table="100")
    for entry in tournament.entries.all():
        services.entry_set_paid(entry_id=entry.pk, paid=True, actor=director)
    services.tournament_start(tournament_id=tournament.pk, actor=director)
    rng = random.Random(27)
    played: list[set[str]] = []
    for _ in range(20):
        tournament.refresh_from_db()
        if tournament.status == TournamentStatus.FINISHED:
            break
        if not open_pairings(tournament):
            services.tournament_pair_next_round(tournament_id=tournament.pk, actor=director)
            continue
        played.append(play_open(tournament, rng))
    tournament.refresh_from_db()
    assert tournament.status == TournamentStatus.FINISHED
    # Round by round: three Swiss rounds; the quarter-finals; the semi-finals with the
    # consolation's first round; the final with the consolation's final.
    assert [sorted({slot.split("-")[0] for slot in slots}) for slots in played] == [
        ["R1"], ["R2"], ["R3"], ["K1"], ["C1", "K2"], ["C2", "K3"]]
    rows = {row.slot: row for row in tournament.pairings.select_related("round")}
    assert all(row.status == PairingStatus.DECIDED for row in rows.values())
    # Each consolation round is played to the length of the knockout round beside it.
    lengths = {slot: row.round.match_length for slot, row in rows.items()}
    assert (lengths["K1-1"], lengths["K2-1"], lengths["K3-1"]) == (3, 5, 7)
    assert (lengths["C1-1"], lengths["C2-1"]) == (5, 7)

    def players(slot: str) -> set[int | None]:
        return {rows[slot].entry_a_id, rows[slot].entry_b_id}

    assert players("C1-1") == {rows["K1-1"].loser_id, rows["K1-2"].loser_id}
    assert players("C1-2") == {rows["K1-3"].loser_id, rows["K1-4"].loser_id}
    assert players("C2-1") == {rows["C1-1"].winner_id, rows["C1-2"].winner_id}

    placings = APIClient().get(f"/api/tournaments/{tournament.pk}/placings/").json()
    flights = {f["flight"]: sorted((p["place"], p["id"]) for p in f["places"])
               for f in placings}
    assert flights["consolation"] == sorted([
        (1, rows["C2-1"].winner_id), (2, rows["C2-1"].loser_id),
        (3, rows["C1-1"].loser_id), (3, rows["C1-2"].loser_id)])
    # 12 × 10.00 = 120.00: the consolation's 25 % (30.00) all to its winner; the main
    # flight's 90.00 by 70/30 to the knockout's finalists.
    summary = money_summary(tournament)
    assert summary["pool"] == Decimal(120) and summary["main_pool"] == Decimal(90)
    assert {e: a for e, a in summary["payouts"].items() if a} == {
        rows["K3-1"].winner_id: Decimal("63.00"), rows["K3-1"].loser_id: Decimal("27.00"),
        rows["C2-1"].winner_id: Decimal("30.00")}


def test_the_swiss_cut_consolation_template_makes_it(director):
    tournament = services.tournament_create_from_template(
        template="swiss_cut_8_consolation", name="Friday", actor=director, rounds=4)
    assert tournament.format == "swiss_cut"
    assert tournament.format_options == {"rounds": 4, "cut": 8, "consolation_rounds": 1}
