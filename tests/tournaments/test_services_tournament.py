"""Tournament services one rule at a time: lifecycle, seeding, check-in, over-the-board
results, no-shows, withdrawals, overrides, and what is refused."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.contrib.auth.models import User
from django.utils import timezone

from matches import services as match_services
from matches.models import Match, MatchStatus
from tests.tournaments.conftest import open_pairings, play_match
from tournaments import selectors, services
from tournaments.models import (
    Entry,
    EntryStatus,
    Pairing,
    PairingStatus,
    ResultSource,
    Tournament,
    TournamentStatus,
)
from tournaments.services import TournamentError

pytestmark = pytest.mark.django_db


def code_of(call) -> str:
    with pytest.raises(TournamentError) as error:
        call()
    return error.value.code


# -- lifecycle and registration ---------------------------------------------------------------


def test_lifecycle_draft_registration_check_in_running_finished(make_player, director):
    tournament = Tournament.objects.create(name="Cup", director=director, match_lengths=[1])
    players = [make_player() for _ in range(3)]
    assert code_of(lambda: services.entry_register(tournament_id=tournament.pk,
                                                   player=players[0])) == "registration_closed"
    services.tournament_open_registration(tournament_id=tournament.pk, actor=director)
    for player in players:
        services.entry_register(tournament_id=tournament.pk, player=player)
    services.tournament_open_check_in(tournament_id=tournament.pk, actor=director)
    services.entry_check_in(tournament_id=tournament.pk, player=players[0])
    late = make_player()
    services.entry_register(tournament_id=tournament.pk, player=late)  # checks in too
    services.tournament_start(tournament_id=tournament.pk, actor=director)
    tournament.refresh_from_db()
    assert tournament.status == TournamentStatus.RUNNING
    absent = Entry.objects.filter(tournament=tournament, player__in=players[1:])
    assert set(absent.values_list("status", flat=True)) == {EntryStatus.WITHDRAWN}
    assert set(absent.values_list("seed", flat=True)) == {None}
    assert len(selectors.seeded_entry_ids(tournament)) == 2
    assert code_of(lambda: services.tournament_start(tournament_id=tournament.pk,
                                                     actor=director)) == "bad_status"
    (row,) = open_pairings(tournament)
    assert row.entry_b is not None
    play_match(row, row.entry_b)
    tournament.refresh_from_db()
    assert tournament.status == TournamentStatus.FINISHED
    assert tournament.champion_id == row.entry_a_id


def test_registration_rules(make_tournament, make_player):
    tournament = make_tournament(2, max_entries=3)
    player = make_player()
    services.entry_register(tournament_id=tournament.pk, player=player)
    assert code_of(lambda: services.entry_register(
        tournament_id=tournament.pk, player=player)) == "already_registered"
    assert code_of(lambda: services.entry_register(
        tournament_id=tournament.pk, player=make_player())) == "tournament_full"
    services.player_withdraw(tournament_id=tournament.pk, player=player)
    services.entry_register(tournament_id=tournament.pk, player=player)  # back in
    assert Entry.objects.get(tournament=tournament, player=player).is_active


def test_a_tournament_needs_two_players_and_a_valid_format(make_tournament, director):
    lonely = make_tournament(1)
    assert code_of(lambda: services.tournament_start(tournament_id=lonely.pk,
                                                     actor=director)) == "too_few_entrants"
    draft = Tournament.objects.create(name="Bad", format="swiss", format_options={})
    assert code_of(lambda: services.tournament_open_registration(
        tournament_id=draft.pk, actor=director)) == "missing_option"


def test_only_the_director_runs_the_tournament(make_tournament, make_player):
    tournament = make_tournament(2)
    stranger = make_player().user
    assert code_of(lambda: services.tournament_start(tournament_id=tournament.pk,
                                                     actor=stranger)) == "forbidden"


# -- seeding ----------------------------------------------------------------------------------


def test_rating_seeding_puts_the_best_first_and_byes_go_to_the_top(make_tournament,
                                                                  make_player):
    players = [make_player(rating=r) for r in (1500, 1900, 1700, 1800, 1600)]
    tournament = make_tournament(players, start=True, seeding="rating")
    by_seed = {e.seed: e.player.rating for e in tournament.entries.all()}
    assert [by_seed[s] for s in range(1, 6)] == [1900, 1800, 1700, 1600, 1500]
    byes = tournament.pairings.filter(status=PairingStatus.BYE)
    assert sorted(b.winner.seed for b in byes) == [1, 2, 3]


def test_random_draw_is_recorded_and_reseeding_before_the_start_is_kept(
        make_tournament, director):
    tournament = make_tournament(6, seeding="random")
    order = services.tournament_reseed(tournament_id=tournament.pk, actor=director)
    tournament.refresh_from_db()
    assert tournament.rng_seed is not None
    assert [e.pk for e in tournament.entries.order_by("seed")] == order
    services.tournament_start(tournament_id=tournament.pk, actor=director)
    tournament.refresh_from_db()
    assert selectors.seeded_entry_ids(tournament) == order
    started = tournament.log.get(action="started")
    assert started.data["rng_seed"] == tournament.rng_seed and started.data["order"] == order
    from tournaments.formats import seed_order

    assert seed_order(order, "random", rng_seed=tournament.rng_seed) == order
    assert code_of(lambda: services.tournament_reseed(tournament_id=tournament.pk,
                                                      actor=director)) == "already_started"


def test_manual_seeding_follows_the_directors_numbers(make_tournament, director):
    tournament = make_tournament(4, seeding="manual")
    entries = list(tournament.entries.order_by("pk"))
    for seed, entry in zip((3, 1, 4, 2), entries, strict=True):
        Entry.objects.filter(pk=entry.pk).update(seed=seed)
    services.tournament_start(tournament_id=tournament.pk, actor=director)
    tournament.refresh_from_db()
    assert selectors.seeded_entry_ids(tournament) == [entries[i].pk for i in (1, 3, 0, 2)]


# -- advancing ------------------------------------------------------------------------------


def test_the_next_elimination_match_starts_as_soon_as_both_players_are_known(
        make_tournament):
    tournament = make_tournament(8, start=True)
    rows = open_pairings(tournament)
    assert [r.slot for r in rows] == ["M1-1", "M1-2", "M1-3", "M1-4"]
    play_match(rows[0], rows[0].entry_b)
    assert not tournament.pairings.get(slot="M2-1").table_id  # waits for M1-2
    play_match(rows[2], rows[2].entry_b)
    assert not tournament.pairings.get(slot="M2-2").table_id
    play_match(rows[1], rows[1].entry_a)
    semi = tournament.pairings.get(slot="M2-1")
    assert semi.status == PairingStatus.PAIRED and semi.table_id is not None
    assert {semi.entry_a_id, semi.entry_b_id} == {rows[0].entry_a_id, rows[1].entry_b_id}


def test_swiss_pairs_the_next_round_only_when_the_round_is_complete(make_tournament):
    tournament = make_tournament(4, start=True, format="swiss", format_options={"rounds": 2})
    first, second = open_pairings(tournament)
    play_match(first, first.entry_b)
    assert not tournament.pairings.filter(round__number=2).exists()
    play_match(second, second.entry_b)
    round_two = open_pairings(tournament)
    assert [r.round.number for r in round_two] == [2, 2]
    # The two winners meet, and so do the two losers.
    winners = {first.entry_a_id, second.entry_a_id}
    assert any({r.entry_a_id, r.entry_b_id} == winners for r in round_two)


def test_with_auto_pair_off_the_director_pairs_each_round(make_tournament, director):
    tournament = make_tournament(4, start=True, format="round_robin", auto_pair=False)
    for row in open_pairings(tournament):
        play_match(row, row.entry_b)
    assert open_pairings(tournament) == []
    tournament.refresh_from_db()
    assert tournament.status == TournamentStatus.RUNNING and tournament.current_round == 1
    assert services.tournament_pair_next_round(tournament_id=tournament.pk,
                                               actor=director) == 2
    assert {r.round.number for r in open_pairings(tournament)} == {2}
    assert code_of(lambda: services.tournament_pair_next_round(
        tournament_id=tournament.pk, actor=director)) == "round_not_complete"


def test_a_failing_tournament_never_undoes_the_move_that_ended_a_match(make_tournament,
                                                                      monkeypatch, director):
    tournament = make_tournament(2, start=True)
    (row,) = open_pairings(tournament)

    def broken(**kwargs):
        raise RuntimeError("a bug in the tournament code")

    monkeypatch.setattr(services.results, "pairing_record_match", broken)
    match = play_match(row, row.entry_b)
    assert match.status == MatchStatus.FINISHED  # the match ended all the same
    row.refresh_from_db()
    assert row.status == PairingStatus.PAIRED
    monkeypatch.undo()
    # The director's "pair next round" picks the result up.
    services.tournament_pair_next_round(tournament_id=tournament.pk, actor=director)
    row.refresh_from_db()
    tournament.refresh_from_db()
    assert row.status == PairingStatus.DECIDED and row.match_id == match.pk
    assert tournament.status == TournamentStatus.FINISHED


def test_a_voided_match_leaves_the_pairing_to_be_played_again(make_tournament, director):
    tournament = make_tournament(2, start=True)
    (row,) = open_pairings(tournament)
    assert row.entry_a and row.entry_b and row.table_id
    for entry in (row.entry_a, row.entry_b):
        match_services.table_sit(table_id=row.table_id, player=entry.player)
    match = Match.objects.get(table_id=row.table_id)
    match_services.match_void(match_id=match.pk, referee=director, reason="dice dispute")
    row.refresh_from_db()
    assert row.status == PairingStatus.PAIRED
    replay = play_match(row, row.entry_a)
    assert replay.pk != match.pk
    row.refresh_from_db()
    assert row.winner_id == row.entry_b_id and row.match_id == replay.pk


# -- withdrawals and disqualification ----------------------------------------------------------


def test_withdrawing_before_the_start_just_leaves_the_list(make_tournament):
    tournament = make_tournament(3)
    entry = tournament.entries.first()
    assert entry is not None
    services.player_withdraw(tournament_id=tournament.pk, player=entry.player)
    entry.refresh_from_db()
    assert entry.status == EntryStatus.WITHDRAWN
    assert len(selectors.standings(tournament)) == 2


def test_disqualification_needs_a_reason_and_forfeits_the_live_match(make_tournament,
                                                                      director):
    tournament = make_tournament(4, start=True)
    row = open_pairings(tournament)[0]
    assert row.entry_a and row.entry_b and row.table_id
    assert code_of(lambda: services.entry_withdraw(entry_id=row.entry_a_id, actor=director,
                                                   disqualify=True)) == "reason_required"
    for entry in (row.entry_a, row.entry_b):
        match_services.table_sit(table_id=row.table_id, player=entry.player)
    services.entry_withdraw(entry_id=row.entry_a_id, actor=director, disqualify=True,
                            reason="outside assistance")
    match = Match.objects.get(table_id=row.table_id)
    assert match.status == MatchStatus.FORFEITED and match.winner_id == row.entry_b.player_id
    forfeit = match.events.get(kind="forfeit")
    assert "outside assistance" in forfeit.payload["reason"]
    row.refresh_from_db()
    assert row.winner_id == row.entry_b_id
    assert Entry.objects.get(pk=row.entry_a_id).status == EntryStatus.DISQUALIFIED
    assert code_of(lambda: services.entry_register(
        tournament_id=tournament.pk, player=row.entry_a.player)) == "registration_closed"


def test_a_player_cannot_withdraw_someone_else(make_tournament, make_player):
    tournament = make_tournament(2)
    entry = tournament.entries.first()
    assert entry is not None
    assert code_of(lambda: services.entry_withdraw(entry_id=entry.pk,
                                                   actor=make_player().user)) == "forbidden"


# -- no-shows ---------------------------------------------------------------------------------


def test_no_show_rules(make_tournament):
    tournament = make_tournament(8, start=True, no_show_minutes=5)
    rows = open_pairings(tournament)
    now = timezone.now()
    assert services.forfeit_no_shows(now=now + timedelta(minutes=4)) == []
    one_sat, nobody, both = rows[0], rows[1], rows[2]
    assert one_sat.entry_b and both.entry_a and both.entry_b and both.table_id
    match_services.table_sit(table_id=one_sat.table_id, player=one_sat.entry_b.player)
    for entry in (both.entry_a, both.entry_b):
        match_services.table_sit(table_id=both.table_id, player=entry.player)
    decided = services.forfeit_no_shows(now=now + timedelta(minutes=6))
    assert set(decided) == {one_sat.pk, nobody.pk, rows[3].pk}
    one_sat.refresh_from_db()
    nobody.refresh_from_db()
    both.refresh_from_db()
    assert one_sat.winner_id == one_sat.entry_b_id  # the one who sat down
    assert one_sat.result_source == ResultSource.NO_SHOW
    # Neither sat down: a double forfeit, both lose, nobody goes through.
    assert nobody.status == PairingStatus.DECIDED and nobody.winner_id is None
    assert nobody.result_source == ResultSource.DOUBLE_FORFEIT
    assert "neither player" in nobody.log.get(action="result").reason
    # Absent without notice: withdrawn from later rounds.
    for entry in (one_sat.entry_a, nobody.entry_a, nobody.entry_b):
        entry.refresh_from_db()
        assert entry.status == EntryStatus.WITHDRAWN
    one_sat.entry_b.refresh_from_db()
    assert one_sat.entry_b.status == EntryStatus.ACTIVE
    assert both.status == PairingStatus.PAIRED  # their match is being played
    assert Match.objects.filter(table_id=both.table_id, status=MatchStatus.PLAYING).exists()


def test_no_limit_no_forfeit(make_tournament):
    tournament = make_tournament(2, start=True, no_show_minutes=None)
    assert services.forfeit_no_shows(now=timezone.now() + timedelta(days=1)) == []
    assert open_pairings(tournament)


def test_the_director_overrides_a_no_show(make_tournament, director):
    tournament = make_tournament(4, start=True, no_show_minutes=5)
    row = open_pairings(tournament)[0]
    assert row.entry_a and row.table_id
    match_services.table_sit(table_id=row.table_id, player=row.entry_a.player)
    services.pairing_forfeit_no_show(pairing_id=row.pk,
                                     now=timezone.now() + timedelta(minutes=6))
    row.refresh_from_db()
    assert row.winner_id == row.entry_a_id and row.result_source == ResultSource.NO_SHOW
    services.pairing_override(pairing_id=row.pk, actor=director, winner_entry_id=row.entry_b_id,
                              reason="B was at the wrong table, told so by the desk")
    row.refresh_from_db()
    assert row.winner_id == row.entry_b_id and row.result_source == ResultSource.OVERRIDE
    # B was not absent after all: back in the tournament; A, who sat down, was never out.
    assert row.entry_b.status == EntryStatus.ACTIVE
    assert tournament.log.filter(action="reinstated", data__entry=row.entry_b_id).exists()


# -- overrides --------------------------------------------------------------------------------


def test_an_override_of_a_live_match_adjudicates_it(make_tournament, director):
    tournament = make_tournament(2, start=True)
    (row,) = open_pairings(tournament)
    assert row.entry_a and row.entry_b and row.table_id
    for entry in (row.entry_a, row.entry_b):
        match_services.table_sit(table_id=row.table_id, player=entry.player)
    services.pairing_override(pairing_id=row.pk, actor=director,
                              winner_entry_id=row.entry_b_id, reason="A left the club")
    match = Match.objects.get(table_id=row.table_id)
    assert match.status == MatchStatus.ADJUDICATED and match.winner_id == row.entry_b.player_id
    row.refresh_from_db()
    tournament.refresh_from_db()
    assert row.result_source == ResultSource.OVERRIDE
    assert tournament.status == TournamentStatus.FINISHED
    assert tournament.champion_id == row.entry_b_id


def test_a_correction_is_refused_once_the_next_match_has_started(make_tournament, director):
    tournament = make_tournament(4, start=True)
    first, second = open_pairings(tournament)
    play_match(first, first.entry_b)
    play_match(second, second.entry_b)
    final = tournament.pairings.get(slot="M2-1")
    assert final.status == PairingStatus.PAIRED
    # Not started yet: correcting a semi-final re-pairs the final at a fresh table.
    old_table = final.table_id
    services.pairing_override(pairing_id=first.pk, actor=director,
                              winner_entry_id=first.entry_b_id, reason="wrong result entered")
    final.refresh_from_db()
    assert final.status == PairingStatus.PAIRED and final.table_id != old_table
    assert first.entry_b_id in (final.entry_a_id, final.entry_b_id)
    # Started: refused, nothing changes.
    assert final.entry_a and final.entry_b and final.table_id
    for entry in (final.entry_a, final.entry_b):
        match_services.table_sit(table_id=final.table_id, player=entry.player)
    assert code_of(lambda: services.pairing_override(
        pairing_id=second.pk, actor=director, winner_entry_id=second.entry_b_id,
        reason="another")) == "depends"
    assert code_of(lambda: services.pairing_override(
        pairing_id=second.pk, actor=director, winner_entry_id=second.entry_b_id,
        reason="")) == "reason_required"


def test_correcting_the_final_after_the_end_changes_the_champion(make_tournament, director):
    tournament = make_tournament(2, start=True)
    (row,) = open_pairings(tournament)
    play_match(row, row.entry_b)
    tournament.refresh_from_db()
    assert tournament.champion_id == row.entry_a_id
    services.pairing_override(pairing_id=row.pk, actor=director, winner_entry_id=row.entry_b_id,
                              reason="scoring error", winner_points=1, loser_points=0)
    tournament.refresh_from_db()
    assert tournament.status == TournamentStatus.FINISHED
    assert tournament.champion_id == row.entry_b_id


# -- over the board ---------------------------------------------------------------------------


def test_over_the_board_the_winner_reports_and_the_opponent_confirms(make_tournament):
    tournament = make_tournament(2, start=True, over_the_board=True, match_lengths=[5])
    (row,) = open_pairings(tournament)
    assert row.table_id is None and row.entry_a and row.entry_b
    winner, loser = row.entry_a, row.entry_b
    assert code_of(lambda: services.pairing_report(
        pairing_id=row.pk, user=loser.player.user, winner_entry_id=winner.pk)) == "not_the_winner"
    assert code_of(lambda: services.pairing_report(
        pairing_id=row.pk, user=winner.player.user, winner_entry_id=winner.pk,
        winner_points=3, loser_points=4)) == "bad_score"
    assert code_of(lambda: services.pairing_confirm(
        pairing_id=row.pk, user=loser.player.user)) == "no_report"
    services.pairing_report(pairing_id=row.pk, user=winner.player.user,
                            winner_entry_id=winner.pk, winner_points=5, loser_points=2)
    assert code_of(lambda: services.pairing_confirm(
        pairing_id=row.pk, user=winner.player.user)) == "own_report"
    services.pairing_confirm(pairing_id=row.pk, user=loser.player.user)
    row.refresh_from_db()
    assert (row.status, row.winner_id, row.winner_points, row.loser_points) == (
        PairingStatus.DECIDED, winner.pk, 5, 2)
    assert row.result_source == ResultSource.REPORT
    assert row.reported_by == winner.player.user and row.confirmed_by == loser.player.user
    actions = list(tournament.log.filter(pairing=row).values_list("action", flat=True))
    assert actions == ["paired", "reported", "result"]


def test_a_stranger_cannot_confirm_but_a_referee_can_and_a_rejection_clears(
        make_tournament, make_player, referee):
    tournament = make_tournament(2, start=True, over_the_board=True)
    (row,) = open_pairings(tournament)
    assert row.entry_a and row.entry_b
    services.pairing_report(pairing_id=row.pk, user=row.entry_a.player.user,
                            winner_entry_id=row.entry_a_id)
    assert code_of(lambda: services.pairing_confirm(
        pairing_id=row.pk, user=make_player().user)) == "forbidden"
    services.pairing_reject_report(pairing_id=row.pk, user=row.entry_b.player.user,
                                   reason="I won")
    row.refresh_from_db()
    assert row.reported_by is None and row.status == PairingStatus.PAIRED
    services.pairing_report(pairing_id=row.pk, user=row.entry_b.player.user,
                            winner_entry_id=row.entry_b_id)
    # Staff status alone grants nothing: only the referee permission does.
    staff = User.objects.create_user("staff", is_staff=True)
    assert code_of(lambda: services.pairing_confirm(pairing_id=row.pk, user=staff)) \
        == "forbidden"
    assert code_of(lambda: services.pairing_reject_report(pairing_id=row.pk, user=staff)) \
        == "forbidden"
    services.pairing_confirm(pairing_id=row.pk, user=referee)
    row.refresh_from_db()
    assert row.winner_id == row.entry_b_id and row.confirmed_by == referee


def test_a_referee_enters_a_result_directly(make_tournament, make_player, referee):
    tournament = make_tournament(2, start=True, over_the_board=True)
    (row,) = open_pairings(tournament)
    assert code_of(lambda: services.pairing_enter_result(
        pairing_id=row.pk, referee=make_player().user,
        winner_entry_id=row.entry_a_id)) == "forbidden"
    staff = User.objects.create_user("ref2", is_staff=True)
    assert code_of(lambda: services.pairing_enter_result(
        pairing_id=row.pk, referee=staff, winner_entry_id=row.entry_a_id)) == "forbidden"
    assert code_of(lambda: services.pairing_enter_result(
        pairing_id=row.pk, referee=referee, winner_entry_id=row.entry_a_id)) \
        == "reason_required"
    services.pairing_enter_result(pairing_id=row.pk, referee=referee,
                                  winner_entry_id=row.entry_a_id, winner_points=1,
                                  loser_points=0, reason="score card signed by both")
    row.refresh_from_db()
    assert row.result_source == ResultSource.REFEREE
    assert "score card" in tournament.log.get(action="result").reason
    tournament.refresh_from_db()
    assert tournament.status == TournamentStatus.FINISHED


def test_an_online_match_in_progress_cannot_be_reported(make_tournament):
    tournament = make_tournament(2, start=True)
    (row,) = open_pairings(tournament)
    assert row.entry_a and row.entry_b and row.table_id
    for entry in (row.entry_a, row.entry_b):
        match_services.table_sit(table_id=row.table_id, player=entry.player)
    assert code_of(lambda: services.pairing_report(
        pairing_id=row.pk, user=row.entry_a.player.user,
        winner_entry_id=row.entry_a_id)) == "played_online"


def test_changes_are_broadcast_to_the_tournament_group_after_commit(
        make_tournament, django_capture_on_commit_callbacks, monkeypatch):
    sent = []
    monkeypatch.setattr("matches.services.broadcast.broadcast_now",
                        lambda group, event: sent.append((group, event)))
    tournament = make_tournament(2)
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        services.tournament_start(tournament_id=tournament.pk, actor=tournament.director)
    assert sent == []  # nothing before the commit
    for callback in callbacks:
        callback()
    assert (f"tournament.{tournament.pk}",
            {"type": "tournament.changed", "tournament_id": tournament.pk}) in sent


def test_the_log_is_append_only(make_tournament):
    tournament = make_tournament(2)
    entry = tournament.log.first()
    assert entry is not None
    entry.reason = "rewritten"
    with pytest.raises(ValueError):
        entry.save()


def test_pairing_rows_reach_the_format_and_back(make_tournament):
    tournament = make_tournament(5, start=True, format="double_elimination",
                                 format_options={"bracket_reset": True})
    fmt = selectors.format_of(tournament)
    state = selectors.format_state(tournament)
    assert {p.slot for p in state.pairings} == {p.slot for p in fmt.start(list(state.seeds))}
    assert set(Pairing.objects.filter(tournament=tournament).values_list("round__bracket",
                                                                          flat=True)) == {
        "winners", "losers", "final"}
