"""The desk's pages: who may open them, what they offer each role, and a post that the
service refuses shows the reason and changes nothing."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client

from matches.models import Player
from tournaments import services
from tournaments.models import EntryStatus, PairingStatus, Tournament, TournamentStatus

pytestmark = pytest.mark.django_db


def logged_in(user: User) -> Client:
    client = Client()
    client.force_login(user)
    return client


def test_a_director_creates_an_event_from_a_template_on_the_desk(director: User) -> None:
    client = logged_in(director)
    page = client.get("/tournaments/desk/")
    assert page.status_code == 200 and b"Progressive consolation" in page.content
    response = client.post("/tournaments/desk/create/", {
        "name": "Friday Swiss", "template": "swiss_5", "rounds": "3", "seeding": "rating",
        "max_entries": "", "entry_fee": ""})
    tournament = Tournament.objects.get(name="Friday Swiss")
    assert response.status_code == 302
    assert response["Location"] == f"/tournaments/{tournament.pk}/desk/"
    assert tournament.format_options == {"rounds": 3} and tournament.director == director
    desk = client.get(response["Location"])
    assert b'data-action="open_registration"' in desk.content


def test_the_create_form_sets_match_lengths_and_the_money(director: User) -> None:
    client = logged_in(director)
    page = client.get("/tournaments/desk/").content.decode()
    for field in ("match_lengths", "payout_table", "consolation_percent"):
        assert f'name="{field}"' in page
    client.post("/tournaments/desk/create/", {
        "name": "Cup", "template": "single_elimination_consolation",
        "match_lengths": "3, 5 7", "entry_fee": "12.50", "payout_table": "50/30/20",
        "consolation_percent": "15"})
    cup = Tournament.objects.get(name="Cup")
    assert cup.match_lengths == [3, 5, 7] and cup.entry_fee == Decimal("12.50")
    assert (cup.payout_table, cup.consolation_percent) == ("50/30/20", Decimal("15"))
    # An empty field keeps the template's lengths; a bad one is refused, nothing created.
    client.post("/tournaments/desk/create/", {"name": "Plain", "template": "swiss_5",
                                              "match_lengths": ""})
    assert Tournament.objects.get(name="Plain").match_lengths == [5]
    refused = client.post("/tournaments/desk/create/", {
        "name": "Bad", "template": "swiss_5", "match_lengths": "3, x"}, follow=True)
    assert "match_lengths" in refused.content.decode()
    assert not Tournament.objects.filter(name="Bad").exists()


def test_an_event_s_desk_adds_its_rating_divisions(director: User, referee: User) -> None:
    client = logged_in(director)
    client.post("/tournaments/desk/create/", {"name": "Club Open", "template": "swiss_5"})
    event = Tournament.objects.get(name="Club Open")
    desk = f"/tournaments/{event.pk}/desk/"
    assert "desk-add-division" in client.get(desk).content.decode()
    assert "desk-add-division" not in logged_in(referee).get(desk).content.decode()
    response = client.post("/tournaments/desk/create/", {
        "event": event.pk, "name": "Open", "template": "swiss_cut_8", "rounds": "4",
        "eligibility": "rating", "min_rating": "1800", "division_order": "1",
        "entry_fee": "10", "payout_table": "40/30/20/10", "match_lengths": "3"})
    assert response["Location"] == f"{desk}#desk-divisions"
    division = Tournament.objects.get(name="Open")
    assert (division.event_id, division.eligibility, division.min_rating,
            division.max_rating, division.match_lengths) == (event.pk, "rating", 1800, None,
                                                             [3])
    page = client.get(desk).content.decode()
    assert "The division is created." in page and f"/tournaments/{division.pk}/desk/" in page
    assert "Division of Club Open" in client.get(
        f"/tournaments/{division.pk}/desk/").content.decode()
    # Limits out of order are refused on the event's desk; a referee creates nothing.
    refused = client.post("/tournaments/desk/create/", {
        "event": event.pk, "name": "Odd", "template": "swiss_5", "eligibility": "rating",
        "min_rating": "1800", "max_rating": "1500"}, follow=True)
    assert "The minimum rating is below the maximum." in refused.content.decode()
    logged_in(referee).post("/tournaments/desk/create/", {
        "event": event.pk, "name": "Ref", "template": "swiss_5"})
    assert not Tournament.objects.filter(name__in=("Odd", "Ref")).exists()
    # No division is added once the event has started.
    services.tournament_open_registration(tournament_id=event.pk, actor=director)
    assert "desk-add-division" in client.get(desk).content.decode()
    Tournament.objects.filter(pk=event.pk).update(status=TournamentStatus.RUNNING)
    assert "desk-add-division" not in client.get(desk).content.decode()


def test_players_and_anonymous_users_have_no_desk(make_tournament: Any,
                                                  make_player: Any) -> None:
    tournament = make_tournament(2)
    assert Client().get(f"/tournaments/{tournament.pk}/desk/").status_code == 302
    player = logged_in(make_player("someone").user)
    assert player.get(f"/tournaments/{tournament.pk}/desk/").status_code == 403
    assert player.post(f"/tournaments/{tournament.pk}/desk/start/").status_code == 403
    assert player.get("/tournaments/desk/").status_code == 403
    tournament.refresh_from_db()
    assert tournament.status == TournamentStatus.REGISTRATION


def test_a_referee_is_offered_exactly_the_referee_actions(make_tournament: Any,
                                                          referee: User) -> None:
    tournament = make_tournament(4, start=True, over_the_board=True)
    page = logged_in(referee).get(f"/tournaments/{tournament.pk}/desk/").content.decode()
    for offered in ("set_paid", "enter_result", "double_forfeit", "set_table"):
        assert f'data-action="{offered}"' in page
    for refused in ("withdraw", "disqualify", "late_entry", "round_start", "assign_division",
                    "pair_next_round", "start"):
        assert f'data-action="{refused}"' not in page


def test_a_refused_action_shows_the_reason_and_changes_nothing(make_tournament: Any,
                                                               director: User) -> None:
    tournament = make_tournament(4, start=True, over_the_board=True)
    row = tournament.pairings.filter(status=PairingStatus.PAIRED).first()
    assert row is not None and row.entry_a is not None
    client = logged_in(director)
    response = client.post(f"/tournaments/{tournament.pk}/desk/enter_result/", {
        "pairing": row.pk, "winner": row.entry_a.pk, "winner_points": "0",
        "loser_points": "5", "reason": "card", "next": f"#pairing-{row.pk}"}, follow=True)
    assert "cannot end a 1-point match" in response.content.decode()
    row.refresh_from_db()
    assert row.status == PairingStatus.PAIRED and row.winner_id is None
    done = client.post(f"/tournaments/{tournament.pk}/desk/withdraw/", {
        "entry": row.entry_a.pk, "reason": "ill"}, follow=True).content.decode()
    assert "The player is withdrawn." in done and 'data-action="reinstate"' in done
    assert "Undo?" in done and "ill" in done  # the log shows why
    row.entry_a.refresh_from_db()
    assert row.entry_a.status == EntryStatus.WITHDRAWN


def test_a_referee_is_not_offered_to_reinstate_a_disqualified_player(
        make_tournament: Any, director: User, referee: User) -> None:
    tournament = make_tournament(4, start=True, over_the_board=True)
    cheat, gone = tournament.entries.order_by("seed")[:2]
    services.entry_withdraw(entry_id=cheat.pk, actor=director, reason="cheating",
                            disqualify=True)
    services.entry_withdraw(entry_id=gone.pk, actor=director, reason="ill")
    page = logged_in(referee).get(f"/tournaments/{tournament.pk}/desk/").content.decode()
    row = page.split(f'id="entry-{cheat.pk}"')[1].split("</tr>")[0]
    assert 'data-action="reinstate"' not in row
    row = page.split(f'id="entry-{gone.pk}"')[1].split("</tr>")[0]
    assert 'data-action="reinstate"' in row
    page = logged_in(director).get(f"/tournaments/{tournament.pk}/desk/").content.decode()
    row = page.split(f'id="entry-{cheat.pk}"')[1].split("</tr>")[0]
    assert 'data-action="reinstate"' in row


def test_the_players_page_previews_imports_and_exports(director: User, referee: User) -> None:
    client = logged_in(director)
    text = "name,club,rating,experience\nMaryam Ahmadi,Shiraz,1650,12\n"
    preview = client.post("/tournaments/desk/players/", {"csv": text, "dry_run": ["false",
                                                                                   "true"]})
    assert preview.status_code == 200 and b"import-created" in preview.content
    assert not Player.objects.filter(display_name="Maryam Ahmadi").exists()
    client.post("/tournaments/desk/players/", {"csv": text, "dry_run": "false"})
    maryam = Player.objects.get(display_name="Maryam Ahmadi")
    assert "Maryam Ahmadi,Shiraz,1650.00,12" in client.get(
        "/tournaments/desk/players.csv").content.decode()
    client.post("/tournaments/desk/players/rating/", {"player": maryam.pk, "rating": "1700",
                                                      "reason": "league result"})
    maryam.refresh_from_db()
    assert maryam.rating == 1700
    assert logged_in(referee).get("/tournaments/desk/players/").status_code == 403


def test_a_swap_made_on_the_desk_is_logged_with_its_reason(make_tournament: Any,
                                                          director: User) -> None:
    tournament = make_tournament(4, start=True, format="swiss", format_options={"rounds": 2},
                                 over_the_board=True)
    client = logged_in(director)
    page = client.get(f"/tournaments/{tournament.pk}/desk/").content.decode()
    assert 'data-action="swap_players"' in page and 'data-action="undo_round"' in page
    first, second = tournament.pairings.filter(status=PairingStatus.PAIRED).order_by("order")
    assert first.entry_b and second.entry_b and first.entry_a
    assert f'<option value="{first.pk}">{first.slot}: ' in page
    client.post(f"/tournaments/{tournament.pk}/desk/swap_players/", {
        "pairing_a": first.pk, "entry_a": first.entry_b.pk, "pairing_b": second.pk,
        "entry_b": second.entry_b.pk, "reason": "brothers"})
    first.refresh_from_db()
    assert first.entry_b_id == second.entry_b.pk or first.entry_a_id == second.entry_b.pk
    log = client.get(f"/tournaments/{tournament.pk}/desk/").content.decode()
    assert 'data-log="pairing_swapped"' in log and "brothers" in log
