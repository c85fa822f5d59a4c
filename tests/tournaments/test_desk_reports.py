"""A referee confirms or rejects a player's report from the desk's page and the write API
(the rules page's promise), only where a report waits; a player is refused, and a bad
pairing id is a clear error that changes nothing."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import User

from tests.tournaments.test_desk_api import act, snapshot
from tests.tournaments.test_desk_pages import logged_in
from tournaments import services
from tournaments.models import Pairing, PairingStatus, ResultSource, Tournament, TournamentLog

pytestmark = pytest.mark.django_db


@pytest.fixture
def reported(make_tournament: Any) -> tuple[Tournament, Pairing, Pairing]:
    """A running over-the-board event: the first pairing's winner (side a) reported 1–0,
    the second pairing has no report."""
    tournament = make_tournament(4, start=True, over_the_board=True)
    first, second = tournament.pairings.filter(status=PairingStatus.PAIRED).order_by("order")
    assert first.entry_a is not None
    services.pairing_report(pairing_id=first.pk, user=first.entry_a.player.user,
                            winner_entry_id=first.entry_a.pk, winner_points=1,
                            loser_points=0)
    return tournament, first, second


def desk_page(user: User, tournament: Tournament) -> str:
    return logged_in(user).get(f"/tournaments/{tournament.pk}/desk/").content.decode()


def pairing_block(page: str, pairing: Pairing) -> str:
    start = page.index(f'id="pairing-{pairing.pk}"')
    return page[start:page.index('<div class="desk-pairing"', start + 1)
                if '<div class="desk-pairing"' in page[start + 1:] else len(page)]


def test_the_desk_shows_the_report_and_offers_confirm_and_reject_only_there(
        reported: tuple[Tournament, Pairing, Pairing], referee: User) -> None:
    tournament, first, second = reported
    assert first.entry_a is not None
    page = desk_page(referee, tournament)
    with_report, without = pairing_block(page, first), pairing_block(page, second)
    winner = first.entry_a.player
    assert f"Reported by {winner.user.get_username()}: {winner.display_name} won 1–0" \
        in with_report
    for name in ("confirm_report", "reject_report"):
        assert f'data-action="{name}"' in with_report
        assert f'data-action="{name}"' not in without
    assert "Reported by" not in without


def test_a_referee_confirms_a_report_on_the_desk_page(
        reported: tuple[Tournament, Pairing, Pairing], referee: User) -> None:
    tournament, first, _second = reported
    response = logged_in(referee).post(
        f"/tournaments/{tournament.pk}/desk/confirm_report/",
        {"pairing": first.pk, "next": f"#pairing-{first.pk}"}, follow=True)
    assert "The reported result is confirmed." in response.content.decode()
    first.refresh_from_db()
    assert first.status == PairingStatus.DECIDED and first.winner_id == first.entry_a_id
    assert first.result_source == ResultSource.REPORT and first.confirmed_by == referee
    assert 'data-action="confirm_report"' not in desk_page(referee, tournament)


def test_a_referee_rejects_a_report_on_the_desk_page(
        reported: tuple[Tournament, Pairing, Pairing], referee: User) -> None:
    tournament, first, _second = reported
    response = logged_in(referee).post(
        f"/tournaments/{tournament.pk}/desk/reject_report/",
        {"pairing": first.pk, "reason": "the card says otherwise"}, follow=True)
    assert "The report is rejected." in response.content.decode()
    first.refresh_from_db()
    assert first.status == PairingStatus.PAIRED and not first.has_report
    line = TournamentLog.objects.get(tournament=tournament, action="report_rejected")
    assert line.actor == referee and line.reason == "the card says otherwise"


def test_a_referee_confirms_and_rejects_over_the_api(
        reported: tuple[Tournament, Pairing, Pairing], referee: User) -> None:
    tournament, first, second = reported
    assert second.entry_b is not None
    confirmed = act(referee, tournament, "confirm_report", pairing=first.pk)
    assert confirmed.status_code == 200, confirmed.json()
    assert confirmed.json()["pairing"]["winner"] == first.entry_a_id
    services.pairing_report(pairing_id=second.pk, user=second.entry_b.player.user,
                            winner_entry_id=second.entry_b.pk)
    rejected = act(referee, tournament, "reject_report", pairing=second.pk)
    assert rejected.status_code == 200, rejected.json()
    assert rejected.json()["pairing"]["reported"] is False
    second.refresh_from_db()
    assert second.status == PairingStatus.PAIRED and second.reported_by_id is None


def test_without_a_report_there_is_nothing_to_confirm_or_reject(
        reported: tuple[Tournament, Pairing, Pairing], referee: User) -> None:
    tournament, _first, second = reported
    before = snapshot(tournament)
    for name in ("confirm_report", "reject_report"):
        response = act(referee, tournament, name, pairing=second.pk)
        assert response.status_code == 409 and response.json()["error"] == "no_report"
    assert snapshot(tournament) == before


def test_a_player_is_refused_and_nothing_changes(
        reported: tuple[Tournament, Pairing, Pairing], make_player: Any) -> None:
    tournament, first, _second = reported
    assert first.entry_b is not None
    before = snapshot(tournament)
    for user in (make_player("bystander").user, first.entry_b.player.user):
        for name in ("confirm_report", "reject_report"):
            response = act(user, tournament, name, pairing=first.pk)
            assert response.status_code == 403 and response.json()["error"] == "forbidden"
        assert logged_in(user).post(f"/tournaments/{tournament.pk}/desk/confirm_report/",
                                    {"pairing": first.pk}).status_code == 403
    assert snapshot(tournament) == before
    first.refresh_from_db()
    assert first.has_report


@pytest.mark.parametrize("name", ["confirm_report", "reject_report"])
def test_a_bad_pairing_id_is_a_clear_error_and_changes_nothing(
        name: str, reported: tuple[Tournament, Pairing, Pairing], referee: User) -> None:
    tournament, first, _second = reported
    before = snapshot(tournament)
    missing = act(referee, tournament, name, pairing=999999)
    assert missing.status_code == 404 and missing.json()["error"] == "not_found"
    assert "999999" in missing.json()["detail"]
    for bad in ("seven", 0, None):
        response = act(referee, tournament, name, pairing=bad)
        assert response.status_code == 400, response.json()
    page = logged_in(referee).post(f"/tournaments/{tournament.pk}/desk/{name}/",
                                   {"pairing": "999999"}, follow=True).content.decode()
    assert "There is no pairing 999999 in this tournament." in page
    assert snapshot(tournament) == before
    first.refresh_from_db()
    assert first.has_report
