"""Resignation levels in two browsers: at an "offer" table a gammon resignation is offered,
refused (play goes on), offered again and accepted (2 points × cube)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.e2e.helpers import act, open_table, seat_two, wait_until
from tests.e2e.servers import WebServer

pytestmark = [pytest.mark.e2e, pytest.mark.slow, pytest.mark.django_db(transaction=True)]


def _offer_gammon(page: Any) -> None:
    page.click("#controls button[data-act='resign']")
    assert not page.is_hidden("#resign-levels")
    page.check("#resign-dialog input[name='resign-level'][value='2']")
    page.screenshot(path=str(Path("test-artifacts") / "e2e-resign-levels-dialog.png"))
    page.click("#resign-yes")


def test_a_gammon_resignation_refused_then_accepted(live_server_process: WebServer,
                                                    browser: Any, settings: Any) -> None:
    settings.TAVLA_SCRIPTED_DICE = True
    artifacts = Path("test-artifacts")
    artifacts.mkdir(exist_ok=True)
    match = seat_two(("rhea", "sami"), [[3, 1], [6, 4], [5, 2], [4, 1]], match_length=3,
                     resignation="offer")
    act(match.pk, 0, "play", "8/5 6/5")  # sami (seat 1) is now to double or roll
    rhea = open_table(browser, live_server_process, "rhea", match.table_id)
    sami = open_table(browser, live_server_process, "sami", match.table_id)
    wait_until(sami, "!document.querySelector(\"#controls button[data-act='roll']\").hidden")

    _offer_gammon(sami)
    rhea.wait_for_selector("#controls button[data-act='accept_resign']:not([hidden])")
    assert "sami" in (rhea.text_content("#status") or "")
    assert rhea.is_hidden("#controls button[data-act='roll']")
    rhea.screenshot(path=str(artifacts / "e2e-resign-offered.png"))
    # Each board gets the change on its own socket: wait for it, never assume the order.
    sami.wait_for_selector("#controls button[data-act='roll']", state="hidden")  # awaits answer

    rhea.click("#controls button[data-act='reject_resign']")
    sami.wait_for_selector("#controls button[data-act='roll']:not([hidden])")
    rhea.wait_for_selector("#controls button[data-act='accept_resign']", state="hidden")

    _offer_gammon(sami)
    rhea.click("#controls button[data-act='accept_resign']")
    rhea.wait_for_selector("#panel:not([hidden]) .game-result")
    wait_until(rhea, "document.querySelector(\"#scoreboard [data-score='0']\")"
                     ".textContent.trim() === '2'")
    rhea.screenshot(path=str(artifacts / "e2e-resign-accepted.png"))
    assert not rhea.js_errors and not sami.js_errors
