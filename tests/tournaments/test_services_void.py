"""A voided tournament match goes through the one finisher; its pairing re-opens, is played
again at the same table, and the bracket moves on."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.utils import timezone

from matches import services as match_services
from matches.models import Match, MatchStatus, Table
from matches.signals import match_finished
from tests.tournaments.conftest import open_pairings, play_match
from tournaments import services
from tournaments.models import PairingStatus, ResultSource, TournamentStatus


def _sit_both(row: Any) -> Match:
    for entry in (row.entry_a, row.entry_b):
        match_services.table_sit(table_id=row.table_id, player=entry.player)
    return Match.objects.filter(table_id=row.table_id).latest("pk")


def test_voiding_goes_through_the_finisher_and_sends_match_finished(make_tournament,
                                                                   director):
    tournament = make_tournament(2, start=True)
    (row,) = open_pairings(tournament)
    match = _sit_both(row)
    heard: list[tuple[int, int]] = []

    def listener(sender: Any, match: Match, **kwargs: Any) -> None:
        heard.append((match.pk, match.status))

    match_finished.connect(listener, sender=Match, dispatch_uid="test-void-listener")
    try:
        match_services.match_void(match_id=match.pk, referee=director, reason="dice dispute")
    finally:
        match_finished.disconnect(dispatch_uid="test-void-listener", sender=Match)
    assert heard == [(match.pk, MatchStatus.VOIDED)]
    match.refresh_from_db()
    assert match.status == MatchStatus.VOIDED and match.winner_id is None
    assert match.deadline is None and match.seed_revealed and match.finished_at is not None
    end = match.events.order_by("-sequence").first()
    assert end is not None and end.kind == "match_end"
    assert end.payload["reason"] == "void" and end.payload["winner"] is None
    assert match_services.match_verify(match_id=match.pk).ok


def test_a_voided_pairing_reopens_at_its_table_with_a_fresh_no_show_clock(make_tournament,
                                                                        director):
    tournament = make_tournament(2, start=True, no_show_minutes=10)
    (row,) = open_pairings(tournament)
    match = _sit_both(row)
    paired_at = row.paired_at
    assert paired_at is not None
    match_services.match_void(match_id=match.pk, referee=director, reason="wrong rules")
    row.refresh_from_db()
    assert row.status == PairingStatus.PAIRED and row.match_id is None
    assert row.paired_at is not None and row.paired_at > paired_at
    table = Table.objects.get(pk=row.table_id)
    # Armed again: seats free, still reserved for the same two players.
    assert (table.seat0_id, table.seat1_id) == (None, None)
    assert {table.reserved0_id, table.reserved1_id} == {row.entry_a.player_id,
                                                        row.entry_b.player_id}
    log = tournament.log.filter(action="reopened").get()
    assert log.actor == director and "wrong rules" in log.reason
    # The no-show limit counts from the re-opening, and the voided match does not hide it.
    assert services.no_show_due(row.paired_at + timedelta(minutes=9)) == []
    assert services.no_show_due(row.paired_at + timedelta(minutes=10)) == [row.pk]
    match_services.table_sit(table_id=row.table_id, player=row.entry_b.player)
    assert services.pairing_forfeit_no_show(
        pairing_id=row.pk, now=row.paired_at + timedelta(minutes=10))
    row.refresh_from_db()
    assert row.status == PairingStatus.DECIDED and row.winner_id == row.entry_b_id
    assert row.result_source == ResultSource.NO_SHOW


def test_a_voided_match_is_replayed_and_the_bracket_moves_on(make_tournament, director):
    tournament = make_tournament(4, start=True)  # seeds 1-4 by rating: 1v4, 2v3
    first, second = open_pairings(tournament)
    seeds = {e.pk: e.seed for e in tournament.entries.all()}
    assert {seeds[first.entry_a_id], seeds[first.entry_b_id]} == {1, 4}
    voided = _sit_both(first)
    match_services.match_void(match_id=voided.pk, referee=director, reason="dice dispute")
    first.refresh_from_db()
    assert first.status == PairingStatus.PAIRED
    seed4 = first.entry_a if first.entry_a.seed == 4 else first.entry_b
    seed1 = first.entry_b if seed4 == first.entry_a else first.entry_a
    replay = play_match(first, seed1)  # seed 4 wins the replay
    assert replay.pk != voided.pk
    first.refresh_from_db()
    assert first.winner_id == seed4.pk and first.match_id == replay.pk
    seed3 = second.entry_a if second.entry_a.seed == 3 else second.entry_b
    play_match(second, seed3)  # seed 2 wins
    (final,) = open_pairings(tournament)
    assert {seeds[final.entry_a_id], seeds[final.entry_b_id]} == {4, 2}
    play_match(final, final.entry_a)
    tournament.refresh_from_db()
    assert tournament.status == TournamentStatus.FINISHED
    assert tournament.champion_id == final.entry_b_id


def test_a_referee_may_enter_a_result_for_a_voided_online_pairing(make_tournament, director):
    tournament = make_tournament(2, start=True, match_lengths=[3])
    (row,) = open_pairings(tournament)
    match_services.match_void(match_id=_sit_both(row).pk, referee=director,
                              reason="server trouble: finished over the board")
    services.pairing_enter_result(pairing_id=row.pk, referee=director,
                                  winner_entry_id=row.entry_a_id, winner_points=3,
                                  loser_points=1, reason="played out over the board")
    row.refresh_from_db()
    assert row.status == PairingStatus.DECIDED and row.winner_id == row.entry_a_id
    assert (row.winner_points, row.loser_points) == (3, 1)


def test_an_adjudicated_tournament_match_logs_the_referee_and_reason(make_tournament,
                                                                   director):
    tournament = make_tournament(2, start=True)
    (row,) = open_pairings(tournament)
    match = _sit_both(row)
    match_services.match_adjudicate(match_id=match.pk, referee=director,
                                    winner=row.entry_b.player, scope="match",
                                    reason="opponent left the venue")
    result = tournament.log.filter(action="result").get()
    assert result.actor == director and "opponent left the venue" in result.reason
    assert result.data["source"] == ResultSource.REFEREE
    assert timezone.now() - result.created_at < timedelta(minutes=1)
