"""The director's rules in the services: no-show limits, double no-shows, absences,
reinstatement, double forfeits, scores that can happen, the tournament clock."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.utils import timezone

from matches import services as match_services
from matches.models import Match, MatchStatus
from tests.tournaments.conftest import open_pairings, play_match
from tournaments import services
from tournaments.models import (
    EntryStatus,
    PairingStatus,
    ResultSource,
    Tournament,
    TournamentStatus,
)
from tournaments.services import TournamentError


def code_of(call) -> str:
    with pytest.raises(TournamentError) as caught:
        call()
    return caught.value.code


# -- the no-show limit and the clock ---------------------------------------------------------


def test_a_no_show_limit_of_zero_is_refused_everywhere(director):
    tournament = Tournament(name="Zero", director=director, no_show_minutes=0)
    with pytest.raises(ValidationError) as caught:
        tournament.full_clean()
    assert "at least 1 minute" in str(caught.value)
    with pytest.raises(IntegrityError), transaction.atomic():
        Tournament.objects.create(name="Zero", director=director, no_show_minutes=0)
    Tournament(name="No limit", director=director, no_show_minutes=None).full_clean()


def test_a_tournament_plays_with_the_clock_by_default(make_tournament):
    tournament = make_tournament(2, start=True)
    assert tournament.clock_enabled
    (row,) = open_pairings(tournament)
    assert row.table.clock_enabled and row.table.time_control() is not None


# -- no-shows --------------------------------------------------------------------------------


def test_a_double_no_show_in_single_elimination_gives_the_next_opponent_a_bye(
        make_tournament):
    tournament = make_tournament(4, start=True, no_show_minutes=5)  # 1v4, 2v3
    first, second = open_pairings(tournament)
    later = timezone.now() + timedelta(minutes=6)
    play_match(second, second.entry_b if second.entry_b.seed == 3 else second.entry_a)
    assert services.forfeit_no_shows(now=later) == [first.pk]
    first.refresh_from_db()
    assert first.result_source == ResultSource.DOUBLE_FORFEIT and first.winner_id is None
    final = tournament.pairings.get(slot="M2-1")
    assert final.status == PairingStatus.BYE
    seed2 = tournament.entries.get(seed=2)
    assert final.winner_id == seed2.pk and {final.entry_a_id, final.entry_b_id} == {
        seed2.pk, None}
    tournament.refresh_from_db()
    assert tournament.status == TournamentStatus.FINISHED
    assert tournament.champion_id == seed2.pk
    for seed in (1, 4):
        assert tournament.entries.get(seed=seed).status == EntryStatus.WITHDRAWN


def test_an_absent_player_is_reinstated_by_a_referee_and_paired_again(make_tournament,
                                                                    referee, make_player):
    tournament = make_tournament(4, start=True, format="swiss", format_options={"rounds": 3},
                                 no_show_minutes=5)
    first, second = open_pairings(tournament)
    match_services.table_sit(table_id=first.table_id, player=first.entry_a.player)
    play_match(second, second.entry_b)
    services.forfeit_no_shows(now=timezone.now() + timedelta(minutes=6))
    absent = first.entry_b
    absent.refresh_from_db()
    assert absent.status == EntryStatus.WITHDRAWN
    # Round 2 is paired among the three still in: one of them has the bye.
    round2 = list(tournament.pairings.filter(round__number=2))
    assert absent.pk not in {e for r in round2 for e in (r.entry_a_id, r.entry_b_id)}
    assert sum(1 for r in round2 if r.status == PairingStatus.BYE) == 1
    assert code_of(lambda: services.entry_reinstate(
        entry_id=absent.pk, actor=make_player().user, reason="x")) == "forbidden"
    assert code_of(lambda: services.entry_reinstate(
        entry_id=absent.pk, actor=referee, reason=" ")) == "reason_required"
    services.entry_reinstate(entry_id=absent.pk, actor=referee,
                             reason="stuck in traffic, phoned the desk")
    absent.refresh_from_db()
    assert absent.status == EntryStatus.ACTIVE
    log = tournament.log.get(action="reinstated")
    assert log.actor == referee and "traffic" in log.reason
    assert code_of(lambda: services.entry_reinstate(
        entry_id=absent.pk, actor=referee, reason="again")) == "not_out"
    for row in open_pairings(tournament):
        play_match(row, row.entry_b)
    round3 = list(tournament.pairings.filter(round__number=3))
    assert absent.pk in {e for r in round3 for e in (r.entry_a_id, r.entry_b_id)}


# -- referees' decisions -----------------------------------------------------------------------


def test_a_referee_records_a_double_forfeit_and_the_next_opponent_has_a_bye(
        make_tournament, referee):
    tournament = make_tournament(4, start=True)
    first, second = open_pairings(tournament)
    assert code_of(lambda: services.pairing_double_forfeit(
        pairing_id=first.pk, actor=referee, reason="")) == "reason_required"
    for entry in (first.entry_a, first.entry_b):
        match_services.table_sit(table_id=first.table_id, player=entry.player)
    services.pairing_double_forfeit(pairing_id=first.pk, actor=referee,
                                    reason="both players left the venue mid-match")
    first.refresh_from_db()
    assert first.status == PairingStatus.DECIDED
    assert first.result_source == ResultSource.DOUBLE_FORFEIT
    # The live match was voided through the one finisher; no result came from it.
    assert Match.objects.get(table_id=first.table_id).status == MatchStatus.VOIDED
    log = tournament.log.get(action="result", pairing=first)
    assert log.actor == referee and "left the venue" in log.reason
    play_match(second, second.entry_a)
    final = tournament.pairings.get(slot="M2-1")
    assert final.status == PairingStatus.BYE and final.winner_id == second.entry_b_id


# -- scores that can happen ----------------------------------------------------------------------


@pytest.mark.parametrize(("winner", "loser"), [(2, 1), (5, 4), (3, 3), (200, 0)])
def test_impossible_scores_are_refused_and_change_nothing(make_tournament, referee, winner,
                                                          loser):
    tournament = make_tournament(2, start=True, over_the_board=True, match_lengths=[3])
    (row,) = open_pairings(tournament)
    user = row.entry_a.player.user
    assert code_of(lambda: services.pairing_report(
        pairing_id=row.pk, user=user, winner_entry_id=row.entry_a_id,
        winner_points=winner, loser_points=loser)) == "bad_score"
    assert code_of(lambda: services.pairing_enter_result(
        pairing_id=row.pk, referee=referee, winner_entry_id=row.entry_a_id,
        winner_points=winner, loser_points=loser, reason="score card")) == "bad_score"
    row.refresh_from_db()
    assert row.reported_by is None and row.status == PairingStatus.PAIRED
    assert not tournament.log.filter(action__in=["reported", "result"]).exists()


def test_a_possible_score_is_accepted(make_tournament, referee):
    tournament = make_tournament(2, start=True, over_the_board=True, match_lengths=[3])
    (row,) = open_pairings(tournament)
    services.pairing_enter_result(pairing_id=row.pk, referee=referee,
                                  winner_entry_id=row.entry_b_id, winner_points=4,
                                  loser_points=2, reason="score card")
    row.refresh_from_db()
    assert (row.winner_id, row.winner_points, row.loser_points) == (row.entry_b_id, 4, 2)


def test_a_half_given_score_is_refused(make_tournament):
    tournament = make_tournament(2, start=True, over_the_board=True, match_lengths=[3])
    (row,) = open_pairings(tournament)
    assert code_of(lambda: services.pairing_report(
        pairing_id=row.pk, user=row.entry_a.player.user, winner_entry_id=row.entry_a_id,
        winner_points=3)) == "bad_score"


def test_the_referees_group_referees_tournaments_from_a_migration(db):
    from django.contrib.auth.models import Group

    group = Group.objects.get(name="Referees")
    codenames = set(group.permissions.filter(content_type__app_label="tournaments")
                    .values_list("codename", flat=True))
    assert codenames == {"view_tournament", "view_entry", "view_round", "view_pairing",
                         "view_tournamentlog", "referee_tournament"}


def test_a_reinstated_round_robin_player_gets_their_cancelled_games_back(make_tournament,
                                                                        referee):
    tournament = make_tournament(4, start=True, format="round_robin")
    for row in open_pairings(tournament):  # round 1
        play_match(row, row.entry_b)
    leaver = tournament.entries.get(seed=4)
    services.player_withdraw(tournament_id=tournament.pk, player=leaver.player)
    # 1 of 3 played (the round-2 game was forfeited): annulled, the last game is a bye.
    assert tournament.pairings.filter(status=PairingStatus.BYE, round__number=3).count() == 1
    services.entry_reinstate(entry_id=leaver.pk, actor=referee, reason="came back")
    assert not tournament.pairings.filter(status=PairingStatus.BYE).exists()
    while open_pairings(tournament):
        for row in open_pairings(tournament):
            play_match(row, row.entry_b)
    tournament.refresh_from_db()
    assert tournament.status == TournamentStatus.FINISHED
    games = tournament.pairings.filter(status=PairingStatus.DECIDED)
    assert sum(1 for r in games if leaver.pk in (r.entry_a_id, r.entry_b_id)) == 3
