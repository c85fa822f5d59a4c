"""Whole tournaments, 2 to 64 players, in every format, run to the end through the real
services: players sit at the tables the tournament creates, matches end by resignation or
forfeit through :mod:`matches.services`, and ``match_finished`` moves the bracket on."""

from __future__ import annotations

import random
from datetime import timedelta

import pytest
from django.db.models import Q
from django.utils import timezone

from matches import services as match_services
from matches.models import Match, MatchStatus, Table
from tests.tournaments.conftest import open_pairings, play_match, play_out
from tournaments import selectors, services, tasks
from tournaments.models import (
    EntryStatus,
    Pairing,
    PairingStatus,
    ResultSource,
    Tournament,
    TournamentStatus,
)

pytestmark = pytest.mark.django_db

FORMATS = {
    "single_elimination": {},
    "single_elimination+consolation": {"consolation": True},
    "double_elimination": {"bracket_reset": True},
    "swiss": {"rounds": 4},
    "round_robin": {},
}


def start(make_tournament, fmt: str, players: int, **fields) -> Tournament:
    name = fmt.split("+")[0]
    return make_tournament(players, start=True, format=name, format_options=FORMATS[fmt],
                           **fields)


def assert_finished_consistently(tournament: Tournament) -> None:
    tournament.refresh_from_db()
    assert tournament.status == TournamentStatus.FINISHED
    fmt = selectors.format_of(tournament)
    state = selectors.format_state(tournament)
    assert fmt.is_finished(state)
    assert tournament.champion_id == fmt.champion(state)
    rows = list(tournament.pairings.select_related("match", "winner"))
    assert all(row.status != PairingStatus.PAIRED for row in rows)
    for row in rows:
        if row.match is not None and row.result_source == ResultSource.MATCH:
            assert row.winner is not None and row.match.winner_id == row.winner.player_id
    # Every match played at a tournament table belongs to exactly one decided pairing.
    played = Match.objects.filter(table__tournament_pairing__tournament=tournament)
    assert played.count() == sum(1 for row in rows if row.match_id is not None)
    assert not played.filter(status=MatchStatus.PLAYING).exists()
    standings = selectors.standings(tournament)
    assert len(standings) == len(selectors.seeded_entry_ids(tournament))
    assert standings[0]["id"] == tournament.champion_id or not tournament.is_elimination \
        or fmt.name == "double_elimination"  # placings may share rank 1 only before the end


SIZES = [
    ("single_elimination", 2), ("single_elimination", 3), ("single_elimination", 5),
    ("single_elimination", 8), ("single_elimination", 13), ("single_elimination", 64),
    ("single_elimination+consolation", 6), ("single_elimination+consolation", 13),
    ("double_elimination", 2), ("double_elimination", 3), ("double_elimination", 5),
    ("double_elimination", 8), ("double_elimination", 13),
    ("swiss", 2), ("swiss", 5), ("swiss", 8), ("swiss", 13),
    ("round_robin", 2), ("round_robin", 3), ("round_robin", 5), ("round_robin", 8),
]


@pytest.mark.parametrize(("fmt", "players"), SIZES, ids=[f"{f}-{n}" for f, n in SIZES])
def test_a_whole_tournament_runs_to_its_end(make_tournament, fmt, players):
    tournament = start(make_tournament, fmt, players)
    rng = random.Random(f"{fmt}-{players}")
    played = play_out(tournament, rng)
    assert_finished_consistently(tournament)
    rows = tournament.pairings.all()
    if fmt.startswith("single"):
        main = rows.filter(round__bracket="main")
        assert main.filter(status=PairingStatus.DECIDED).count() == players - 1
        byes = 1 << (players - 1).bit_length()
        assert main.filter(status=PairingStatus.BYE).count() == byes - players
    if fmt == "round_robin":
        assert played == players * (players - 1) // 2
    if fmt == "swiss":
        assert played == 4 * (players // 2)
        assert rows.filter(status=PairingStatus.BYE).count() == (4 if players % 2 else 0)
    # Each round's tables were created with the template and the round's match length.
    for row in rows.filter(match__isnull=False).select_related("match__table", "round"):
        table = row.match.table
        assert table.match_length == row.round.match_length and not table.is_rated


def test_per_round_match_lengths_reach_the_tables(make_tournament):
    tournament = make_tournament(4, start=True, match_lengths=[1, 3], clock_enabled=True,
                                 flag_penalty="match", cube_enabled=False)
    first = open_pairings(tournament)[0]
    assert first.table is not None
    assert (first.table.match_length, first.table.clock_enabled, first.table.flag_penalty,
            first.table.cube_enabled) == (1, True, "match", False)
    assert {first.table.reserved0_id, first.table.reserved1_id} == {
        first.entry_a.player_id, first.entry_b.player_id}
    play_out(tournament)
    final = tournament.pairings.get(slot="M2-1")
    assert final.match is not None and final.match.table.match_length == 3


SCENARIOS = [("single_elimination", 13), ("double_elimination", 13), ("swiss", 9),
             ("round_robin", 7)]


@pytest.mark.parametrize(("fmt", "players"), SCENARIOS, ids=[f for f, _ in SCENARIOS])
def test_byes_a_withdrawal_a_no_show_and_an_override(make_tournament, director, fmt, players):
    tournament = start(make_tournament, fmt, players, no_show_minutes=10)
    rows = open_pairings(tournament)
    assert len(rows) >= 3
    no_show, withdrawal, overridden = rows[0], rows[1], rows[2]

    # A no-show: only player A sits down; ten minutes later the sweep forfeits B.
    assert no_show.entry_a and no_show.entry_b and no_show.table_id
    match_services.table_sit(table_id=no_show.table_id, player=no_show.entry_a.player)
    Pairing.objects.filter(pk=no_show.pk).update(
        paired_at=timezone.now() - timedelta(minutes=11))
    assert tasks.forfeit_no_shows() == 1
    assert tasks.forfeit_no_shows() == 0  # idempotent
    no_show.refresh_from_db()
    assert (no_show.status, no_show.winner_id, no_show.result_source) == (
        PairingStatus.DECIDED, no_show.entry_a_id, ResultSource.NO_SHOW)
    assert no_show.table_id is None  # the unused table is gone
    assert not Table.objects.filter(name__endswith=f"· {no_show.slot}").exists()

    # A withdrawal in the middle of a live match: the match is forfeited.
    assert withdrawal.entry_a and withdrawal.entry_b and withdrawal.table_id
    for entry in (withdrawal.entry_a, withdrawal.entry_b):
        match_services.table_sit(table_id=withdrawal.table_id, player=entry.player)
    live = Match.objects.get(table_id=withdrawal.table_id)
    quitter = withdrawal.entry_b
    services.player_withdraw(tournament_id=tournament.pk, player=quitter.player)
    live.refresh_from_db()
    withdrawal.refresh_from_db()
    assert live.status == MatchStatus.FORFEITED and live.winner_id == withdrawal.entry_a.player_id
    assert (withdrawal.winner_id, withdrawal.result_source, withdrawal.match_id) == (
        withdrawal.entry_a_id, ResultSource.FORFEIT, live.pk)

    # A director's override: B won at the table, the director gives it to A with a reason.
    assert overridden.entry_a and overridden.entry_b
    play_match(overridden, overridden.entry_a)
    overridden.refresh_from_db()
    assert overridden.winner_id == overridden.entry_b_id
    services.pairing_override(pairing_id=overridden.pk, actor=director,
                              winner_entry_id=overridden.entry_a_id,
                              reason="B played from the wrong position")
    overridden.refresh_from_db()
    assert (overridden.winner_id, overridden.result_source) == (
        overridden.entry_a_id, ResultSource.OVERRIDE)

    play_out(tournament, random.Random(fmt))
    assert_finished_consistently(tournament)
    quitter.refresh_from_db()
    assert quitter.status == EntryStatus.WITHDRAWN
    # Every pairing the withdrawn player was in after withdrawing was lost by forfeit.
    later = tournament.pairings.filter(decided_at__gt=quitter.left_at).filter(
        entry_a=quitter) | tournament.pairings.filter(decided_at__gt=quitter.left_at,
                                                       entry_b=quitter)
    later = later.exclude(status=PairingStatus.BYE).exclude(pk=withdrawal.pk)
    for row in later:
        assert row.loser_id == quitter.pk and row.result_source == ResultSource.FORFEIT
        assert row.match_id is None  # no table was ever made for them
    if fmt in ("swiss", "round_robin"):
        # Paired no more: Swiss never pairs them again; in round robin they had played
        # under half of their games (a forfeit is not a game played), so the rest are
        # cancelled (their opponents have byes) and their results annulled.
        assert not later.exists()
        assert not tournament.pairings.filter(
            paired_at__gt=quitter.left_at).filter(
            Q(entry_a=quitter) | Q(entry_b=quitter)).exists()
    # The absent player of the no-show was withdrawn from later rounds.
    absent = no_show.entry_b
    absent.refresh_from_db()
    assert absent.status == EntryStatus.WITHDRAWN
    actions = set(tournament.log.values_list("action", flat=True))
    assert {"started", "paired", "result", "withdrawn", "finished"} <= actions
    override_log = tournament.log.get(action="result", data__source="override")
    assert override_log.actor == director and "wrong position" in override_log.reason
    assert override_log.data["previous_winner_entry"] == overridden.entry_b_id
