"""Running the room through the real services: table numbers, round start times, and late
entries in elimination (taking a bye) and Swiss (from the next round), refused where the
format or the results do not allow one."""

from __future__ import annotations

import random
from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from matches import services as match_services
from tests.tournaments.conftest import open_pairings, play_match, play_out
from tournaments import selectors, services
from tournaments.models import Entry, PairingStatus, TournamentStatus
from tournaments.notices import notices_for

pytestmark = pytest.mark.django_db


def seed_of(tournament, entry_id):
    return Entry.objects.get(pk=entry_id).seed


def test_open_pairings_get_the_lowest_free_table_numbers(make_tournament):
    tournament = make_tournament(8, start=True, over_the_board=True)
    rows = open_pairings(tournament)
    assert sorted(row.board_number for row in rows) == [1, 2, 3, 4]
    first = rows[0]
    notice = notices_for(first.entry_a.player)[0]
    assert notice["board_number"] == first.board_number
    assert notice["opponent"] == first.entry_b.player.display_name
    # A finished match frees its table for the next pairing made.
    services.pairing_enter_result(pairing_id=first.pk, referee=tournament.director,
                                  winner_entry_id=first.entry_a_id, winner_points=1,
                                  loser_points=0, reason="score card")
    second = rows[1]
    services.pairing_enter_result(pairing_id=second.pk, referee=tournament.director,
                                  winner_entry_id=second.entry_a_id, winner_points=1,
                                  loser_points=0, reason="score card")
    (semi,) = [r for r in open_pairings(tournament) if r.round.number == 2]
    assert semi.board_number == min(first.board_number, second.board_number)


def test_the_director_moves_a_pairing_and_calls_a_round(make_tournament, make_player):
    tournament = make_tournament(4, start=True, over_the_board=True)
    a, b = open_pairings(tournament)
    with pytest.raises(services.TournamentError) as error:
        services.pairing_set_board(pairing_id=a.pk, board_number=b.board_number,
                                   actor=tournament.director)
    assert error.value.code == "board_taken"
    for bad in (0, 1000, True):
        with pytest.raises(services.TournamentError):
            services.pairing_set_board(pairing_id=a.pk, board_number=bad,
                                       actor=tournament.director)
    stranger = make_player("stranger")
    with pytest.raises(services.TournamentError) as error:
        services.pairing_set_board(pairing_id=a.pk, board_number=9, actor=stranger.user)
    assert error.value.code == "forbidden"
    services.pairing_set_board(pairing_id=a.pk, board_number=9, actor=tournament.director)
    a.refresh_from_db()
    assert a.board_number == 9
    when = timezone.now() + timedelta(minutes=30)
    services.round_set_start(tournament_id=tournament.pk, bracket="main", number=1,
                             starts_at=when, actor=tournament.director)
    assert notices_for(a.entry_a.player)[0]["starts_at"] == when.isoformat()
    (round_one,) = selectors.bracket(tournament)["brackets"][0]["rounds"][:1]
    assert round_one["starts_at"] == when.isoformat()
    cards = Client().get(
        f"/tournaments/{tournament.pk}/score-cards/").content.decode()
    assert "Table 9" in cards and a.slot in cards and b.slot in cards
    with pytest.raises(services.TournamentError) as error:
        services.round_set_start(tournament_id=tournament.pk, bracket="main", number=7,
                                 starts_at=when, actor=tournament.director)
    assert error.value.code == "not_found"


def test_a_late_entry_takes_the_lowest_seeds_bye_in_elimination(make_tournament, make_player):
    tournament = make_tournament(5, start=True)
    # Eight places: byes for seeds 1, 2, 3; seeds 2 and 3 already meet in round 2.
    rows = {row.slot: row for row in tournament.pairings.select_related("entry_a", "entry_b")}
    assert rows["M1-4"].status == PairingStatus.BYE
    assert seed_of(tournament, rows["M1-4"].entry_a_id) == 3
    round_two = rows["M2-2"]
    assert round_two.status == PairingStatus.PAIRED and round_two.table_id is not None
    late = make_player("latecomer", rating=1000)
    entry = services.entry_register_late(tournament_id=tournament.pk, player=late,
                                         actor=tournament.director)
    assert entry.seed == 6 and entry.late
    m14 = tournament.pairings.get(slot="M1-4")
    assert m14.status == PairingStatus.PAIRED and m14.table_id is not None
    assert {seed_of(tournament, m14.entry_a_id), seed_of(tournament, m14.entry_b_id)} == {3, 6}
    m22 = tournament.pairings.get(slot="M2-2")
    assert m22.status == PairingStatus.WAITING and m22.table_id is None
    assert m22.side_b == "winner:M1-4"
    # The late entrant is told of the match, and the event plays out with six players.
    opponent = m14.entry_a if m14.entry_b_id == entry.pk else m14.entry_b
    assert opponent.seed == 3
    assert notices_for(late)[0]["opponent"] == opponent.player.display_name
    play_out(tournament, random.Random(3))
    tournament.refresh_from_db()
    assert tournament.status == TournamentStatus.FINISHED
    standings = selectors.standings(tournament)
    assert len(standings) == 6 and entry.pk in {line["id"] for line in standings}
    main = tournament.pairings.filter(round__bracket="main")
    assert main.filter(status=PairingStatus.DECIDED).count() == 5
    assert main.filter(status=PairingStatus.BYE).count() == 2


def test_a_late_entry_is_refused_once_the_bye_holders_next_match_started(
    make_tournament, make_player
):
    tournament = make_tournament(5, start=True)
    m22 = tournament.pairings.get(slot="M2-2")
    for entry in (m22.entry_a, m22.entry_b):
        match_services.table_sit(table_id=m22.table_id, player=entry.player)
    late = make_player("latecomer")
    before = list(tournament.pairings.values_list("slot", "status", "side_a", "side_b"))
    with pytest.raises(services.TournamentError) as error:
        services.entry_register_late(tournament_id=tournament.pk, player=late,
                                     actor=tournament.director)
    assert error.value.code == "too_late"
    assert not Entry.objects.filter(player=late).exists()
    assert list(tournament.pairings.values_list("slot", "status", "side_a", "side_b")) == before


def test_late_entry_is_refused_for_round_robin_a_full_bracket_and_non_directors(
    make_tournament, make_player
):
    late = make_player("latecomer")
    for fmt, n in (("round_robin", 4), ("single_elimination", 8)):
        tournament = make_tournament(n, start=True, format=fmt, name=f"{fmt} cup")
        with pytest.raises(services.TournamentError) as error:
            services.entry_register_late(tournament_id=tournament.pk, player=late,
                                         actor=tournament.director)
        assert error.value.code in ("late_entry_not_allowed", "too_late")
    tournament = make_tournament(5, start=True, name="third")
    with pytest.raises(services.TournamentError) as error:
        services.entry_register_late(tournament_id=tournament.pk, player=late,
                                     actor=late.user)
    assert error.value.code == "forbidden"
    assert not Entry.objects.filter(player=late).exists()


def test_a_late_entry_in_swiss_is_paired_from_the_next_round_on_no_points(
    make_tournament, make_player
):
    tournament = make_tournament(7, start=True, format="swiss", format_options={"rounds": 3})
    for row in open_pairings(tournament)[:2]:
        play_match(row, row.entry_b)
    late = make_player("latecomer", rating=1000)
    entry = services.entry_register_late(tournament_id=tournament.pk, player=late,
                                         actor=tournament.director)
    # Not in the round under way...
    assert not tournament.pairings.filter(round__number=1, entry_a=entry).exists()
    assert not tournament.pairings.filter(round__number=1, entry_b=entry).exists()
    for row in open_pairings(tournament):
        play_match(row, row.entry_b)
    # ...but in round 2, against a player who also has no point yet.
    round_two = tournament.pairings.filter(round__number=2)
    assert round_two.count() == 4 and not round_two.filter(status=PairingStatus.BYE).exists()
    (mine,) = [r for r in round_two if entry.pk in (r.entry_a_id, r.entry_b_id)]
    opponent = mine.entry_b_id if mine.entry_a_id == entry.pk else mine.entry_a_id
    won_round_one = tournament.pairings.filter(round__number=1, winner_id=opponent,
                                               status=PairingStatus.DECIDED).exists()
    assert not won_round_one
    play_out(tournament)
    lines = {line["id"]: line for line in selectors.standings(tournament)}
    assert lines[entry.pk]["wins"] + lines[entry.pk]["losses"] == 2  # rounds 2 and 3


def test_the_director_does_it_from_the_admin(make_tournament, make_player, client):
    tournament = make_tournament(5, start=True, over_the_board=True)
    client.force_login(tournament.director)
    late = make_player("latecomer")
    url = "/admin/tournaments/tournament/"
    form = client.post(url, {"action": "late_entry", "_selected_action": [tournament.pk]})
    assert form.status_code == 200 and "Late entry" in form.content.decode()
    client.post(url, {"action": "late_entry", "_selected_action": [tournament.pk],
                      "apply": "1", "player": late.pk}, follow=True)
    entry = Entry.objects.get(player=late, tournament=tournament)
    assert entry.late and entry.seed == 6
    row = tournament.pairings.get(slot="M1-4")
    assert row.status == PairingStatus.PAIRED and entry.pk in (row.entry_a_id, row.entry_b_id)
    client.post("/admin/tournaments/pairing/", {
        "action": "set_board_number", "_selected_action": [row.pk], "apply": "1",
        "board_number": "12"}, follow=True)
    row.refresh_from_db()
    assert row.board_number == 12


@pytest.mark.parametrize("fmt", ["double_elimination", "progressive_consolation"])
def test_a_late_entry_takes_a_bye_in_double_elimination_and_progressive_consolation(
    make_tournament, make_player, fmt
):
    from tests.tournaments.test_whole_tournaments import assert_finished_consistently

    options = {"progressive_consolation": {"last_chance_rounds": 1}}.get(fmt, {})
    tournament = make_tournament(5, start=True, format=fmt, format_options=options)
    late = make_player("latecomer", rating=1000)
    entry = services.entry_register_late(tournament_id=tournament.pk, player=late,
                                         actor=tournament.director)
    first = tournament.pairings.get(slot={"double_elimination": "W1-4"}.get(fmt, "M1-4"))
    assert first.status == PairingStatus.PAIRED
    assert entry.pk in (first.entry_a_id, first.entry_b_id)
    play_out(tournament, random.Random(fmt))
    assert_finished_consistently(tournament)
    played = {e for row in tournament.pairings.filter(status=PairingStatus.DECIDED)
              for e in (row.winner_id, row.loser_id)}
    assert entry.pk in played
