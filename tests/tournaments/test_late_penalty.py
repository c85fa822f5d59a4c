"""The late-arrival penalty: N points to the opponent per M minutes late, as the match's
starting score, in the match log; replay and export still agree."""

from __future__ import annotations

from datetime import timedelta

from django.utils import timezone

from matches import services as match_services
from matches.models import Match, Table
from tavla.engine.match import MatchState
from tavla.engine.rules import Rules
from tests.tournaments.conftest import open_pairings


def test_one_point_per_five_minutes_late_is_the_opponents_starting_score(make_tournament):
    tournament = make_tournament(2, start=True, match_lengths=[7], late_penalty_points=1,
                                 late_penalty_minutes=5)
    (row,) = open_pairings(tournament)
    table = Table.objects.get(pk=row.table_id)
    assert (table.late_penalty_points, table.late_penalty_minutes) == (1, 5)
    assert table.reserved_at is not None
    # A sits at once; B sits 12 minutes after the pairing: two full periods, 2 points to A.
    Table.objects.filter(pk=table.pk).update(reserved_at=timezone.now() - timedelta(minutes=12))
    match_services.table_sit(table_id=table.pk, player=row.entry_a.player)
    Table.objects.filter(pk=table.pk).update(
        seat0_since=timezone.now() - timedelta(minutes=12))
    match_services.table_sit(table_id=table.pk, player=row.entry_b.player)
    match = Match.objects.get(table_id=table.pk)
    seat_a = 0 if match.player0_id == row.entry_a.player_id else 1
    assert (match.score0, match.score1)[seat_a] == 2
    assert (match.score0, match.score1)[1 - seat_a] == 0
    start = match.events.get(sequence=0)
    assert start.payload["start_score"][seat_a] == 2
    assert start.payload["late_penalty"]["points_per_period"] == 1
    assert match_services.match_verify(match_id=match.pk).ok  # the log replays to it


def test_no_penalty_within_the_first_period_or_when_off(make_tournament):
    tournament = make_tournament(2, start=True, match_lengths=[5], late_penalty_points=1)
    (row,) = open_pairings(tournament)
    Table.objects.filter(pk=row.table_id).update(
        reserved_at=timezone.now() - timedelta(minutes=4, seconds=50))
    for entry in (row.entry_a, row.entry_b):
        match_services.table_sit(table_id=row.table_id, player=entry.player)
    match = Match.objects.get(table_id=row.table_id)
    assert (match.score0, match.score1) == (0, 0)
    assert "start_score" not in match.events.get(sequence=0).payload
    off = make_tournament(2, start=True, match_lengths=[5], name="Off")
    (row,) = open_pairings(off)
    Table.objects.filter(pk=row.table_id).update(reserved_at=timezone.now() - timedelta(hours=1))
    for entry in (row.entry_a, row.entry_b):
        match_services.table_sit(table_id=row.table_id, player=entry.player)
    match = Match.objects.get(table_id=row.table_id)
    assert (match.score0, match.score1) == (0, 0)


def test_a_penalty_never_gives_the_match_away(make_tournament):
    tournament = make_tournament(2, start=True, match_lengths=[3], late_penalty_points=2,
                                 late_penalty_minutes=1)
    (row,) = open_pairings(tournament)
    Table.objects.filter(pk=row.table_id).update(reserved_at=timezone.now() - timedelta(minutes=30))
    match_services.table_sit(table_id=row.table_id, player=row.entry_a.player)
    Table.objects.filter(pk=row.table_id).update(seat0_since=timezone.now() - timedelta(minutes=30))
    match_services.table_sit(table_id=row.table_id, player=row.entry_b.player)
    match = Match.objects.get(table_id=row.table_id)
    assert max(match.score0, match.score1) == 2  # match length - 1: the Crawford game next
    assert match.snapshot["crawford"] is True


def test_the_engine_starts_a_match_at_a_score():
    state = MatchState.new(Rules(match_length=5), score=(2, 0))
    assert state.score == (2, 0) and state.current_game.score_before == (2, 0)
    assert not state.crawford
    assert MatchState.new(Rules(match_length=5), score=(4, 1)).crawford
    for bad in ((5, 0), (-1, 0), (1,)):
        try:
            MatchState.new(Rules(match_length=5), score=bad)  # type: ignore[arg-type]
        except ValueError:
            continue
        raise AssertionError(f"{bad} accepted")
    try:
        MatchState.new(Rules(), score=(1, 0))
    except ValueError:
        pass
    else:
        raise AssertionError("a money session started at a score")
