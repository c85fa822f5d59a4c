"""Hand edits with a trail: swapping players, re-pairing and taking back a round — each by
the director, with a reason in the log, refused (with no change) once anything of it has
started."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User

from matches import services as match_services
from tests.tournaments.conftest import open_pairings, play_match
from tournaments import services
from tournaments.models import Pairing, PairingStatus, Tournament, TournamentLog
from tournaments.services import TournamentError


def _snapshot(tournament: Tournament) -> list[tuple[object, ...]]:
    return list(tournament.pairings.order_by("order").values_list(
        "slot", "side_a", "side_b", "status", "table_id", "winner_id"))


def _round(tournament: Tournament, number: int) -> list[Pairing]:
    return list(tournament.pairings.filter(round__number=number, round__bracket="main")
                .select_related("entry_a__player", "entry_b__player").order_by("order"))


def test_a_swiss_swap_exchanges_two_players_and_logs_it(make_tournament, director):
    tournament = make_tournament(6, start=True, format="swiss", format_options={"rounds": 3})
    first, second = _round(tournament, 1)[:2]
    a, b = first.entry_a, second.entry_b
    assert a is not None and b is not None
    rows = services.pairing_swap(tournament_id=tournament.pk, pairing_a_id=first.pk,
                                 entry_a_id=a.pk, pairing_b_id=second.pk, entry_b_id=b.pk,
                                 actor=director, reason="seated at the wrong tables")
    assert {rows[0].entry_a_id, rows[0].entry_b_id} == {b.pk, first.entry_b_id}
    assert {rows[1].entry_a_id, rows[1].entry_b_id} == {a.pk, second.entry_a_id}
    assert all(row.status == PairingStatus.PAIRED and row.table_id for row in rows)
    # The tables are reserved for the new pairs.
    for row in rows:
        assert row.table is not None and row.entry_a is not None and row.entry_b is not None
        assert {row.table.reserved0_id, row.table.reserved1_id} == {
            row.entry_a.player_id, row.entry_b.player_id}
    assert [r.board_number for r in rows] == [first.board_number, second.board_number]
    log = TournamentLog.objects.get(tournament=tournament, action="pairing_swapped")
    assert log.reason == "seated at the wrong tables" and log.actor == director
    # The Swiss goes on from the edited round.
    play_match(rows[0], rows[0].entry_b)
    assert tournament.pairings.get(pk=rows[0].pk).winner_id == rows[0].entry_a_id


def test_a_swap_with_the_bye_moves_the_bye(make_tournament, director):
    tournament = make_tournament(5, start=True, format="swiss", format_options={"rounds": 2})
    round_one = _round(tournament, 1)
    bye = next(r for r in round_one if r.status == PairingStatus.BYE)
    match = next(r for r in round_one if r.status == PairingStatus.PAIRED)
    had_bye, moved = bye.entry_a_id, match.entry_a_id
    assert had_bye is not None and moved is not None
    services.pairing_swap(tournament_id=tournament.pk, pairing_a_id=bye.pk,
                          entry_a_id=had_bye, pairing_b_id=match.pk,
                          entry_b_id=moved, actor=director, reason="asked for it")
    bye.refresh_from_db()
    match.refresh_from_db()
    assert bye.status == PairingStatus.BYE and bye.winner_id == moved == bye.entry_a_id
    assert match.status == PairingStatus.PAIRED and match.entry_a_id == had_bye


def test_an_elimination_swap_swaps_seeds_in_the_first_round(make_tournament, director):
    tournament = make_tournament(8, start=True)
    first, second = open_pairings(tournament)[:2]
    a, b = first.entry_a, second.entry_a
    assert a is not None and b is not None and a.seed is not None and b.seed is not None
    seeds = (a.seed, b.seed)
    services.pairing_swap(tournament_id=tournament.pk, pairing_a_id=first.pk, entry_a_id=a.pk,
                          pairing_b_id=second.pk, entry_b_id=b.pk, actor=director,
                          reason="club rule")
    a.refresh_from_db()
    b.refresh_from_db()
    assert (b.seed, a.seed) == seeds
    first.refresh_from_db()
    assert b.pk in (first.entry_a_id, first.entry_b_id) and first.status == PairingStatus.PAIRED
    # A later round's players come from results: no swap there.
    second.refresh_from_db()
    play_match(first, first.entry_b)
    play_match(second, second.entry_b)
    final = tournament.pairings.get(slot="M2-1")
    other = tournament.pairings.get(slot="M1-3")
    with pytest.raises(TournamentError) as error:
        services.pairing_swap(tournament_id=tournament.pk, pairing_a_id=final.pk,
                              entry_a_id=final.entry_a_id, pairing_b_id=other.pk,
                              entry_b_id=other.entry_a_id, actor=director, reason="no")
    assert error.value.code == "not_same_round"


def test_swap_refusals_change_nothing(make_tournament, director, referee):
    tournament = make_tournament(6, start=True, format="swiss", format_options={"rounds": 3})
    first, second, third = _round(tournament, 1)
    before = _snapshot(tournament)

    def swap(actor: User, reason: str = "why", *, a: Pairing = first, b: Pairing = second,
             ea: int | None = None, eb: int | None = None) -> str:
        with pytest.raises(TournamentError) as error:
            services.pairing_swap(tournament_id=tournament.pk, pairing_a_id=a.pk,
                                  entry_a_id=ea or a.entry_a_id, pairing_b_id=b.pk,
                                  entry_b_id=eb or b.entry_a_id, actor=actor, reason=reason)
        return error.value.code

    assert swap(referee) == "forbidden"
    assert swap(director, "  ") == "reason_required"
    assert swap(director, b=first) == "bad_request"
    assert swap(director, ea=second.entry_b_id) == "not_in_pairing"
    # A match started at one table: refused.
    for entry in (third.entry_a, third.entry_b):
        assert entry is not None and third.table_id is not None
        match_services.table_sit(table_id=third.table_id, player=entry.player)
    assert swap(director, b=third) == "round_started"
    assert _snapshot(tournament) == before
    assert not TournamentLog.objects.filter(action="pairing_swapped").exists()


def test_round_undo_takes_back_the_latest_swiss_round(make_tournament, director):
    tournament = make_tournament(4, start=True, format="swiss", format_options={"rounds": 3})
    for row in open_pairings(tournament):
        play_match(row, row.entry_b)
    tournament.refresh_from_db()
    assert tournament.current_round == 2 and len(open_pairings(tournament)) == 2
    assert services.round_undo(tournament_id=tournament.pk, actor=director,
                               reason="a result of round 1 was wrong") == 1
    tournament.refresh_from_db()
    assert not _round(tournament, 2) and not tournament.auto_pair
    assert tournament.current_round == 1
    log = TournamentLog.objects.get(tournament=tournament, action="round_undone")
    assert log.data["number"] == 2 and log.reason == "a result of round 1 was wrong"
    # The director pairs it again when ready.
    assert services.tournament_pair_next_round(tournament_id=tournament.pk, actor=director) == 2
    assert len(_round(tournament, 2)) == 2


def test_round_repair_pairs_again_after_a_correction(make_tournament, director):
    tournament = make_tournament(4, start=True, format="swiss", format_options={"rounds": 3})
    round_one = open_pairings(tournament)
    for row in round_one:
        play_match(row, row.entry_b)
    before = {(r.entry_a_id, r.entry_b_id) for r in _round(tournament, 2)}
    # Round 1's first result was the other way round: correct it, then re-pair round 2.
    wrong = round_one[0]
    services.pairing_override(pairing_id=wrong.pk, actor=director,
                              winner_entry_id=wrong.entry_b_id, reason="score sheet")
    rows = services.round_repair(tournament_id=tournament.pk, actor=director,
                                 reason="round 1 corrected")
    after = {(r.entry_a_id, r.entry_b_id) for r in rows}
    assert after != before and len(rows) == 2
    assert all(r.status == PairingStatus.PAIRED for r in rows)
    assert TournamentLog.objects.filter(action="round_repaired", actor=director).exists()


def test_round_edits_are_refused_once_started_or_for_a_fixed_draw(make_tournament, director,
                                                                  referee):
    tournament = make_tournament(4, start=True, format="swiss", format_options={"rounds": 2})
    row = open_pairings(tournament)[0]
    before = _snapshot(tournament)
    for service in (services.round_undo, services.round_repair):
        with pytest.raises(TournamentError) as error:
            service(tournament_id=tournament.pk, actor=referee, reason="x")
        assert error.value.code == "forbidden"
        with pytest.raises(TournamentError) as error:
            service(tournament_id=tournament.pk, actor=director, reason="")
        assert error.value.code == "reason_required"
    play_match(row, row.entry_b)
    for service in (services.round_undo, services.round_repair):
        with pytest.raises(TournamentError) as error:
            service(tournament_id=tournament.pk, actor=director, reason="x")
        assert error.value.code == "round_started"
    assert len(_snapshot(tournament)) == len(before)
    knockout = make_tournament(4, start=True, name="KO")
    for service in (services.round_undo, services.round_repair):
        with pytest.raises(TournamentError) as error:
            service(tournament_id=knockout.pk, actor=director, reason="x")
        assert error.value.code == "fixed_draw"


def test_a_swiss_cut_knockout_draw_is_taken_back_and_drawn_again(make_tournament, director,
                                                                  make_player):
    tournament = make_tournament(6, start=True, format="swiss_cut",
                                 format_options={"rounds": 2, "cut": 4})
    for _round in range(2):
        for row in open_pairings(tournament):
            play_match(row, max(row.entries(), key=lambda e: e.seed or 0))
    drawn = list(tournament.pairings.filter(round__bracket="knockout")
                 .values_list("slot", "entry_a_id", "entry_b_id"))
    assert [slot for slot, _a, _b in drawn] == ["K1-1", "K1-2"]
    tournament.refresh_from_db()
    assert tournament.current_round == 3  # the knockout goes on from the Swiss
    assert services.round_undo(tournament_id=tournament.pk, actor=director,
                               reason="a Swiss result to check") == 2
    assert not tournament.pairings.filter(round__bracket="knockout").exists()
    # Nothing redraws it by itself (a correction advances the tournament) ...
    last = tournament.pairings.filter(round__number=2, round__bracket="main",
                                      status=PairingStatus.DECIDED).first()
    assert last is not None and last.winner_id is not None
    services.pairing_override(pairing_id=last.pk, actor=director,
                              winner_entry_id=last.winner_id, reason="confirmed")
    assert not tournament.pairings.filter(round__bracket="knockout").exists()
    # ... until the director pairs it.
    services.tournament_pair_next_round(tournament_id=tournament.pk, actor=director)
    again = list(tournament.pairings.filter(round__bracket="knockout")
                 .values_list("slot", "entry_a_id", "entry_b_id"))
    assert again == drawn
    # The cut is made: no late entry now.
    with pytest.raises(TournamentError) as error:
        services.entry_register_late(tournament_id=tournament.pk, player=make_player("late"),
                                     actor=director)
    assert error.value.code == "too_late"
