"""Playing with people, in real browsers: a rematch both players agree to, a private table
joined through its invitation link, and table chat between players that a spectator at the
same board does not see."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import User

from matches import services
from matches.models import Match, Table
from tests.e2e.helpers import PASSWORD, act, in_thread, log_in, open_table, seat_two, wait_until
from tests.e2e.servers import WebServer

pytestmark = [pytest.mark.e2e, pytest.mark.slow, pytest.mark.django_db(transaction=True)]


@pytest.fixture(autouse=True)
def _scripted_dice(settings: Any) -> None:
    settings.TAVLA_SCRIPTED_DICE = True


def test_a_rematch_both_players_agree_to_starts_at_once(
        live_server_process: WebServer, browser: Any, artifacts: Path) -> None:
    server = live_server_process
    match = seat_two(("rhea", "ravi"), [[3, 1], [6, 4]], match_length=1, cube_enabled=False)
    rhea = open_table(browser, server, "rhea", match.table_id)
    ravi = open_table(browser, server, "ravi", match.table_id)
    act(match.pk, 1, "resign")
    for page in (rhea, ravi):
        page.wait_for_selector("#panel button[data-act='rematch-yes']")
    rhea.click("#panel button[data-act='rematch-yes']")
    ravi.wait_for_selector("#panel .rematch-note")
    assert "rhea wants a rematch" in ravi.text_content("#panel")
    rhea.wait_for_selector("#panel .rematch-note")
    assert "waiting for ravi" in rhea.text_content("#panel")
    ravi.screenshot(path=str(artifacts / "rematch-offered.png"))
    ravi.click("#panel button[data-act='rematch-yes']")
    for page in (rhea, ravi):  # both boards move on to the new match by themselves
        wait_until(page, "document.querySelector('#table-page').dataset.matchId "
                         f"!== '{match.pk}'")
        page.wait_for_selector("#panel", state="hidden")
    new = in_thread(lambda: Match.objects.filter(table_id=match.table_id).latest("pk"))
    assert new.pk != match.pk and rhea.get_attribute("#table-page", "data-match-id") == str(new.pk)
    assert new.snapshot["rules"]["match_length"] == 1
    rhea.screenshot(path=str(artifacts / "rematch-started.png"))
    assert rhea.js_errors == [] and ravi.js_errors == []


def test_a_private_table_is_joined_through_its_invitation_link(
        live_server_process: WebServer, browser: Any, artifacts: Path) -> None:
    server = live_server_process

    def create() -> int:
        host = services.player_for_user(User.objects.create_user("hana", password=PASSWORD))
        services.player_for_user(User.objects.create_user("guest", password=PASSWORD))
        table = services.table_create(name="Hana's back room", creator=host, is_public=False,
                                      match_length=1)
        services.table_sit(table_id=table.pk, player=host)
        return table.pk

    table_id = in_thread(create)
    hana = open_table(browser, server, "hana", table_id)
    link = hana.input_value("#invite-link")
    assert f"/tables/{table_id}/?invite=" in link

    context = browser.new_context(viewport={"width": 1280, "height": 900})
    guest = context.new_page()
    guest.set_default_timeout(10_000)
    log_in(guest, server, "guest")
    refused = guest.goto(f"{server.url}/tables/{table_id}/")
    assert refused is not None and refused.status == 404  # without the link: nothing to see
    guest.goto(link)
    guest.wait_for_url(f"{server.url}/tables/{table_id}/")  # the token left the address bar
    guest.wait_for_selector("#table-page[data-connection='live']")
    guest.click("#seats button:has-text('Sit here')")
    wait_until(guest, "document.querySelector('#table-page').dataset.matchId")
    assert in_thread(lambda: Table.objects.get(pk=table_id).seat1_id) is not None
    guest.screenshot(path=str(artifacts / "private-table-joined.png"))


def test_players_chat_and_a_spectator_does_not_see_it(
        live_server_process: WebServer, browser: Any, artifacts: Path) -> None:
    server = live_server_process
    match = seat_two(("cleo", "cyrus"), [[3, 1], [6, 4]], cube_enabled=False)
    in_thread(lambda: User.objects.create_user("watcher", password=PASSWORD))
    cleo = open_table(browser, server, "cleo", match.table_id)
    cyrus = open_table(browser, server, "cyrus", match.table_id)
    watcher = open_table(browser, server, "watcher", match.table_id)

    cleo.fill("#chat-input", "good luck <b>cyrus</b>")
    cleo.press("#chat-input", "Enter")
    cyrus.wait_for_selector("#chat-log li.room-players")
    line = cyrus.locator("#chat-log li.room-players .text")
    assert line.inner_text() == "good luck <b>cyrus</b>"  # shown as text, never as markup
    assert cyrus.locator("#chat-log b").count() == 0

    watcher.fill("#chat-input", "cleo should run")
    watcher.press("#chat-input", "Enter")
    watcher.wait_for_selector("#chat-log li.room-spectators")
    cleo.wait_for_timeout(1000)
    for page in (cleo, cyrus):
        assert "cleo should run" not in page.text_content("#chat-log")
    assert "good luck" not in watcher.text_content("#chat-log")
    # Typing in the chat never reaches the board's shortcuts (r would roll).
    assert in_thread(lambda: Match.objects.get(pk=match.pk).version) == match.version
    cyrus.screenshot(path=str(artifacts / "chat-players.png"))
    watcher.screenshot(path=str(artifacts / "chat-spectator.png"))
    for page in (cleo, cyrus, watcher):
        assert page.js_errors == []
