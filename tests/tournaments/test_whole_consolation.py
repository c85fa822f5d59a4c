"""Progressive consolation with a Last Chance and a third-place match, run to the end
through the real services (players sit, matches end through matches.services, the bracket
moves on match_finished). Who meets whom is recomputed here from the results, by the rules
as docs/tournaments.md states them, not read back from the format."""

from __future__ import annotations

import random

import pytest
from django.test import Client
from rest_framework.test import APIClient

from tests.tournaments.conftest import open_pairings, play_match
from tournaments.models import PairingStatus, TournamentStatus

pytestmark = pytest.mark.django_db


def play_round_by_round(tournament, rng):
    """Play whatever is open, lower seed numbers winning 70 % of the time."""
    for _ in range(100):
        tournament.refresh_from_db()
        if tournament.status == TournamentStatus.FINISHED:
            return
        rows = open_pairings(tournament)
        assert rows, "stuck"
        for row in rows:
            better, worse = sorted((row.entry_a, row.entry_b), key=lambda e: e.seed)
            play_match(row, worse if rng.random() < 0.7 else better)
    raise AssertionError("did not finish")


def test_sixteen_players_progressive_consolation_with_last_chance(make_tournament):
    tournament = make_tournament(
        16, start=True, format="progressive_consolation",
        format_options={"entry_rounds": 2, "last_chance_rounds": 1, "third_place": True},
        match_lengths=[1])
    play_round_by_round(tournament, random.Random(2026))
    rows = {row.slot: row for row in tournament.pairings.select_related(
        "round", "winner", "loser", "entry_a", "entry_b")}
    assert all(row.status == PairingStatus.DECIDED for row in rows.values())

    def players(slot):
        return {rows[slot].entry_a_id, rows[slot].entry_b_id}

    # Main: plain single elimination, 1 v 16, 8 v 9, ... (standard seeding).
    seed = {row.entry_a_id: row.entry_a.seed for row in rows.values()}
    seed |= {row.entry_b_id: row.entry_b.seed for row in rows.values()}
    assert {frozenset(seed[e] for e in players(f"M1-{i}")) for i in range(1, 9)} == {
        frozenset({s, 17 - s}) for s in range(1, 9)}
    # Consolation round 1: the losers of main matches 1-2, 3-4, 5-6, 7-8 meet.
    for i in range(1, 5):
        assert players(f"C1-{i}") == {rows[f"M1-{2 * i - 1}"].loser_id,
                                      rows[f"M1-{2 * i}"].loser_id}
    # Consolation round 2: round-2 losers drop in, from the other half of the draw.
    for i in range(1, 5):
        assert players(f"C2-{i}") == {rows[f"C1-{i}"].winner_id, rows[f"M2-{5 - i}"].loser_id}
    assert players("C3-1") == {rows["C2-1"].winner_id, rows["C2-2"].winner_id}
    assert players("C3-2") == {rows["C2-3"].winner_id, rows["C2-4"].winner_id}
    assert players("C4-1") == {rows["C3-1"].winner_id, rows["C3-2"].winner_id}
    # Quarter-final losers are out: they never play the consolation.
    quarter_losers = {rows[f"M3-{i}"].loser_id for i in (1, 2)}
    consolation = [r for r in rows.values() if r.round.bracket == "consolation"]
    assert not quarter_losers & {e for r in consolation for e in (r.entry_a_id, r.entry_b_id)}
    # Last chance: the four consolation round-1 losers.
    lc_players = {e for r in rows.values() if r.round.bracket == "last_chance"
                  for e in (r.entry_a_id, r.entry_b_id)}
    assert lc_players == {rows[f"C1-{i}"].loser_id for i in range(1, 5)}
    # Third place: the semi-final losers.
    assert players("3P") == {rows["M3-1"].loser_id, rows["M3-2"].loser_id}

    # Placings 1-4 of each flight, on the page and in the API.
    expected = {
        "main": [(1, rows["M4-1"].winner_id), (2, rows["M4-1"].loser_id),
                 (3, rows["3P"].winner_id), (4, rows["3P"].loser_id)],
        "consolation": [(1, rows["C4-1"].winner_id), (2, rows["C4-1"].loser_id),
                        (3, rows["C3-1"].loser_id), (3, rows["C3-2"].loser_id)],
        "last_chance": [(1, rows["LC2-1"].winner_id), (2, rows["LC2-1"].loser_id),
                        (3, rows["LC1-1"].loser_id), (3, rows["LC1-2"].loser_id)],
    }
    api = APIClient().get(f"/api/tournaments/{tournament.pk}/placings/").json()
    got = {flight["flight"]: sorted((p["place"], p["id"]) for p in flight["places"])
           for flight in api}
    assert got == {flight: sorted(lines) for flight, lines in expected.items()}
    assert APIClient().get(f"/api/tournaments/{tournament.pk}/").json()["placings"] == api
    page = Client().get(f"/tournaments/{tournament.pk}/").content.decode()
    for label in ("Main", "Consolation", "Last chance", "Third-place match"):
        assert label in page


@pytest.mark.parametrize("players", [2, 3, 5, 13])
def test_progressive_consolation_with_byes_runs_to_its_end(make_tournament, players):
    from tests.tournaments.conftest import play_out
    from tests.tournaments.test_whole_tournaments import assert_finished_consistently

    tournament = make_tournament(
        players, start=True, format="progressive_consolation",
        format_options={"entry_rounds": 3, "last_chance_rounds": 2})
    play_out(tournament, random.Random(players))
    assert_finished_consistently(tournament)
    rows = list(tournament.pairings.select_related("round"))
    # Byes are the main bracket's only.
    assert not [r for r in rows if r.status == PairingStatus.BYE and r.round.bracket != "main"]
    losses = {}
    for row in rows:
        if row.status == PairingStatus.DECIDED:
            losses.setdefault((row.round.bracket, row.loser_id), 0)
            losses[row.round.bracket, row.loser_id] += 1
    assert max(losses.values(), default=1) == 1  # out of each bracket after one loss
