"""Tournament pages: the list, the bracket and standings, the live fragment, and the
buttons players press."""

from __future__ import annotations

import pytest
from django.test import Client

from matches.models import Player
from tests.tournaments.conftest import open_pairings, play_match, play_out
from tournaments.models import Entry, EntryStatus, TournamentStatus

pytestmark = pytest.mark.django_db


def login(client: Client, player: Player) -> Client:
    client.force_login(player.user)
    return client


def test_list_shows_open_tournaments_but_not_drafts(client, make_tournament):
    shown = make_tournament(2, name="Spring open")
    from tournaments.models import Tournament

    Tournament.objects.create(name="Secret draft")
    page = client.get("/tournaments/")
    assert page.status_code == 200
    text = page.content.decode()
    assert "Spring open" in text and "Secret draft" not in text
    assert f"/tournaments/{shown.pk}/" in text


def test_a_player_registers_and_withdraws_with_the_page_buttons(client, make_tournament,
                                                                make_player):
    tournament = make_tournament(2)
    player = make_player("newcomer")
    login(client, player)
    page = client.get(f"/tournaments/{tournament.pk}/").content.decode()
    assert f"/tournaments/{tournament.pk}/register/" in page
    response = client.post(f"/tournaments/{tournament.pk}/register/", follow=True)
    assert "You are registered." in response.content.decode()
    assert Entry.objects.get(tournament=tournament, player=player).is_active
    assert f"/tournaments/{tournament.pk}/withdraw/" in response.content.decode()
    client.post(f"/tournaments/{tournament.pk}/withdraw/")
    entry = Entry.objects.get(tournament=tournament, player=player)
    assert entry.status == EntryStatus.WITHDRAWN
    # Registering twice is refused with a message, not an error page.
    client.post(f"/tournaments/{tournament.pk}/register/")
    response = client.post(f"/tournaments/{tournament.pk}/register/", follow=True)
    assert "already registered" in response.content.decode()


def test_anonymous_visitors_are_sent_to_log_in(client, make_tournament):
    tournament = make_tournament(2)
    response = client.post(f"/tournaments/{tournament.pk}/register/")
    assert response.status_code == 302 and "/accounts/login/" in response["Location"]


def test_the_elimination_page_draws_the_bracket_with_links_to_live_tables(
        client, make_tournament):
    tournament = make_tournament(5, start=True, format="single_elimination")
    rows = open_pairings(tournament)
    first = rows[0]
    from matches import services as match_services

    assert first.entry_a is not None and first.table_id is not None
    match_services.table_sit(table_id=first.table_id, player=first.entry_a.player)
    assert first.entry_b is not None
    match_services.table_sit(table_id=first.table_id, player=first.entry_b.player)
    page = client.get(f"/tournaments/{tournament.pk}/").content.decode()
    assert 'class="bracket"' in page
    assert "Semi-finals" in page and "Final" in page
    assert f'href="/tables/{first.table_id}/"' in page and "Watch live" in page
    assert f"/ws/tournaments/{tournament.pk}/" in page
    # Five players: three byes to the top seeds, shown in round 1.
    assert page.count("pairing bye") == 3


def test_the_live_fragment_follows_results_to_the_champion(client, make_tournament):
    tournament = make_tournament(4, start=True, format="single_elimination")
    fragment = client.get(f"/tournaments/{tournament.pk}/live/").content.decode()
    assert "Champion" not in fragment and "<html" not in fragment
    play_out(tournament)
    tournament.refresh_from_db()
    assert tournament.status == TournamentStatus.FINISHED
    fragment = client.get(f"/tournaments/{tournament.pk}/live/").content.decode()
    assert f"Champion: {tournament.champion.player}" in fragment


def test_swiss_shows_standings_with_tiebreaks(client, make_tournament):
    tournament = make_tournament(6, start=True, format="swiss", format_options={"rounds": 2})
    for row in open_pairings(tournament):
        assert row.entry_b is not None
        play_match(row, row.entry_b)
    page = client.get(f"/tournaments/{tournament.pk}/").content.decode()
    assert "Standings" in page and "Buchholz" in page and "Round 2" in page


def test_a_paired_player_sees_their_table_link(client, make_tournament):
    tournament = make_tournament(2, start=True)
    row = open_pairings(tournament)[0]
    assert row.entry_a is not None
    login(client, row.entry_a.player)
    page = client.get(f"/tournaments/{tournament.pk}/").content.decode()
    assert "Your match" in page and f"/tables/{row.table_id}/" in page


def test_the_rules_for_directors_are_a_page_linked_from_every_tournament(client,
                                                                        make_tournament):
    tournament = make_tournament(2, start=True, late_penalty_points=1)
    page = client.get(f"/tournaments/{tournament.pk}/").content.decode()
    assert 'href="/tournaments/rules/"' in page
    assert "No-show limit: 15 min." in page and "per 5 min" in page
    assert 'href="/tournaments/rules/"' in client.get("/tournaments/").content.decode()
    rules = client.get("/tournaments/rules/")
    assert rules.status_code == 200
    text = rules.content.decode()
    for words in ("paired no more", "fewer than half of their games", "double forfeit",
                  "reinstate", "starting score", "Staff status alone grants nothing",
                  "2–1 and 5–4 are refused"):
        assert words in text, words


def test_a_double_forfeit_shows_on_the_bracket_in_words(client, make_tournament, referee):
    from tournaments import services as tournament_services
    from tournaments.models import PairingStatus

    tournament = make_tournament(4, start=True)
    row = tournament.pairings.filter(status=PairingStatus.PAIRED).first()
    tournament_services.pairing_double_forfeit(pairing_id=row.pk, actor=referee,
                                               reason="neither came")
    page = client.get(f"/tournaments/{tournament.pk}/").content.decode()
    assert "Double forfeit: both lose" in page
