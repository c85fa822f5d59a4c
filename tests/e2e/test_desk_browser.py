"""A small event run on the director's desk alone, in a real browser at tablet size: an
8-player Swiss over the board created from a template, with a late entry (a second desk
follows live), a withdrawal undone and made again, results entered from the pairings, a
correction, a round start time (shown on the projector), the next round paired by hand and
the event finished. The players exist beforehand; everything else is taps and keys."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import User

from matches.services import player_for_user
from tests.e2e.servers import WebServer
from tournaments.models import EntryStatus, PairingStatus, Tournament, TournamentStatus

pytestmark = [pytest.mark.e2e, pytest.mark.slow, pytest.mark.django_db(transaction=True)]

PASSWORD = "e2e-Passw0rd!"
TABLET = {"width": 820, "height": 1180}


def submit(page: Any, form: Any) -> None:
    """Press the form's button and wait for the desk to come back."""
    with page.expect_navigation():
        form.locator("button[type=submit]").click()


def open_form(page: Any, container: str, action: str) -> Any:
    """The container's form for ``action``, its <details> opened by a tap on the summary."""
    form = page.locator(f"{container} form[data-action={action}]")
    details = page.locator(f"{container} details:has(form[data-action={action}]) > summary")
    if details.count():
        details.first.click()
    return form.first


def enter_open_results(page: Any, tournament: Tournament, *, reason: str) -> int:
    rows = list(tournament.pairings.filter(status=PairingStatus.PAIRED).order_by("order"))
    for row in rows:
        form = open_form(page, f"#pairing-{row.pk}", "enter_result")
        assert row.entry_a is not None
        form.locator("select[name=winner]").select_option(str(row.entry_a.pk))
        form.locator("input[name=winner_points]").fill("1")
        form.locator("input[name=loser_points]").fill("0")
        form.locator("input[name=reason]").fill(reason)
        submit(page, form)
        assert "The result is in." in page.locator(".messages").inner_text()
    return len(rows)


def test_a_swiss_runs_on_the_desk_alone_on_a_tablet(live_server_process: WebServer,
                                                    browser: Any, artifacts: Any) -> None:
    User.objects.create_superuser("director", password=PASSWORD)
    for index in range(8):
        player = player_for_user(User.objects.create_user(f"player{index}", password=PASSWORD))
        player.rating = 1800 - 10 * index
        player.save(update_fields=["rating"])
    context = browser.new_context(viewport=TABLET, has_touch=True, is_mobile=True)
    page = context.new_page()
    url = live_server_process.url
    try:
        page.goto(f"{url}/accounts/login/")
        page.fill("#id_username", "director")
        page.fill("#id_password", PASSWORD)
        page.click("form.login button[type=submit]")
        page.wait_for_url(f"{url}/")

        # Create from a template: a 2-round Swiss over the board, rounds paired by hand.
        page.goto(f"{url}/tournaments/desk/")
        page.fill("input[name=name]", "Tablet Swiss")
        page.select_option("select[name=template]", "swiss_5")
        page.fill("input[name=rounds]", "2")
        page.check("input[type=checkbox][name=over_the_board]")
        page.uncheck("input[type=checkbox][name=auto_pair]")
        with page.expect_navigation():
            page.click(".desk-create button[type=submit]")
        tournament = Tournament.objects.get(name="Tablet Swiss")
        assert tournament.over_the_board and not tournament.auto_pair
        tournament.match_lengths = [1]  # one-point matches: any 1-0 ends them
        tournament.save(update_fields=["match_lengths"])
        assert page.url.endswith(f"/tournaments/{tournament.pk}/desk/")

        submit(page, page.locator("form[data-action=open_registration]"))
        for index in range(7):
            form = page.locator("form[data-action=register]")
            form.locator("select[name=player]").select_option(label=f"player{index}")
            submit(page, form)
        assert page.locator("table.desk-entries tbody tr").count() == 7
        # Touch targets: every button of the desk is at least 44 px high.
        for button in page.locator(".desk button").all()[:12]:
            box = button.bounding_box()
            assert box is not None and box["height"] >= 44
        submit(page, page.locator("form[data-action=start]"))
        assert "The tournament has started." in page.locator(".messages").inner_text()

        # A late entry, and a withdrawal with a reason, undone at once, then for real. A
        # second desk open on the event follows live.
        other = context.new_page()
        other.goto(f"{url}/tournaments/{tournament.pk}/desk/")
        assert other.locator("table.desk-entries tbody tr").count() == 7
        form = page.locator("form[data-action=late_entry]")
        form.locator("select[name=player]").select_option(label="player7")
        submit(page, form)
        other.locator("table.desk-entries tbody tr").nth(7).wait_for(timeout=15_000)
        other.close()
        leaver = tournament.entries.get(player__display_name="player6")
        withdraw = open_form(page, f"#entry-{leaver.pk}", "withdraw")
        withdraw.locator("input[name=reason]").fill("feels unwell")
        submit(page, withdraw)
        undo = page.locator(".desk-undo form[data-action=reinstate]")
        undo.locator("input[name=reason]").fill("feels better")
        submit(page, undo)
        leaver.refresh_from_db()
        assert leaver.status == EntryStatus.ACTIVE
        withdraw = open_form(page, f"#entry-{leaver.pk}", "withdraw")
        withdraw.locator("input[name=reason]").fill("went home")
        submit(page, withdraw)
        leaver.refresh_from_db()
        assert leaver.status == EntryStatus.WITHDRAWN

        # Keyboard: "/" jumps to "Go to"; a player's name there focuses their row.
        page.keyboard.press("/")
        assert page.locator("#desk-find:focus").count() == 1
        page.keyboard.type("player3")
        page.keyboard.press("Enter")
        player3 = tournament.entries.get(player__display_name="player3")
        page.locator(f"#entry-{player3.pk} :focus").wait_for()

        # Round 1's results from the pairings, then a correction of one of them.
        assert enter_open_results(page, tournament, reason="score card") >= 3
        corrected = tournament.pairings.filter(status=PairingStatus.DECIDED,
                                               result_source="referee").first()
        assert corrected is not None and corrected.entry_b is not None
        form = open_form(page, f"#pairing-{corrected.pk}", "correct_result")
        form.locator("select[name=winner]").select_option(str(corrected.entry_b.pk))
        form.locator("input[name=reason]").fill("players swapped the card")
        submit(page, form)
        corrected.refresh_from_db()
        assert corrected.winner_id == corrected.entry_b.pk

        # The next round, by hand, called for a time the players see.
        submit(page, page.locator("form[data-action=pair_next_round]"))
        assert "The next round is paired." in page.locator(".messages").inner_text()
        second = tournament.rounds.get(bracket="main", number=2)
        form = open_form(page, "[data-round='main-2']", "round_start")
        form.locator("input[name=starts_at]").fill("2026-12-03T19:45")
        submit(page, form)
        second.refresh_from_db()
        assert second.starts_at is not None
        assert "starts 19:45" in page.locator("[data-round='main-2'] h4").inner_text()
        page.screenshot(path=str(artifacts / "desk-tablet.png"), full_page=True)
        assert enter_open_results(page, tournament, reason="score card") >= 3

        tournament.refresh_from_db()
        assert tournament.status == TournamentStatus.FINISHED
        assert "Finished" in page.locator(".desk-status").inner_text()
        log = page.locator("#desk-log").inner_text()
        for line in ("went home", "players swapped the card", "late entry", "feels better"):
            assert line in log

        projector = context.new_page()
        projector.goto(f"{url}/tournaments/{tournament.pk}/projector/")
        assert "starts 19:45" in (projector.locator("[data-slide=main]").text_content() or "")
    finally:
        context.close()
