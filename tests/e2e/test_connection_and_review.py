"""A connection one can trust, and the review page, in a real browser.

The socket is cut with Playwright's WebSocket routing: messages simply stop flowing both
ways while the socket stays open, as when a laptop sleeps or Wi-Fi drops, so only the
application heartbeat can notice."""

from __future__ import annotations

import re
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.helpers import act, log_in, point, seat_two, wait_version
from tests.e2e.servers import WebServer

pytestmark = [pytest.mark.e2e, pytest.mark.slow, pytest.mark.django_db(transaction=True)]


@pytest.fixture(autouse=True)
def _scripted_dice(settings: Any) -> None:
    settings.TAVLA_SCRIPTED_DICE = True


def test_the_badge_leaves_live_within_15_s_of_a_dead_link_and_comes_back(
        live_server_process: WebServer, browser: Any, artifacts: Path) -> None:
    server = live_server_process
    match = seat_two(("pia", "paul"), [[3, 1], [6, 4]], cube_enabled=False)
    cut = threading.Event()

    def route(ws: Any) -> None:
        upstream = ws.connect_to_server()
        ws.on_message(lambda message: None if cut.is_set() else upstream.send(message))
        upstream.on_message(lambda message: None if cut.is_set() else ws.send(message))

    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.set_default_timeout(10_000)
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.route_web_socket(re.compile(r".*/ws/tables/\d+/$"), route)
    log_in(page, server, "pia")
    page.goto(f"{server.url}/tables/{match.table_id}/")
    page.wait_for_selector("#table-page[data-connection='live']")
    page.click(point(8))
    page.click(point(5))  # a move not yet confirmed

    cut.set()
    started = time.monotonic()
    page.wait_for_selector("#table-page:not([data-connection='live'])", timeout=15_000)
    assert time.monotonic() - started < 15
    assert (page.text_content("#conn") or "") != "Live"
    page.wait_for_selector("#table-page[data-connection='reconnecting']", timeout=15_000)
    assert "Reconnecting in" in (page.text_content("#conn") or "")
    assert page.is_visible("#reconnect-now")
    assert "away" in (page.get_attribute("#board-box", "class") or "")
    assert page.is_visible(".away-note")
    page.screenshot(path=str(artifacts / "e2e-connection-lost.png"))

    # Meanwhile the opponent... cannot act (it is pia's turn); the link comes back.
    cut.clear()
    if page.is_visible("#reconnect-now"):
        page.click("#reconnect-now")
    page.wait_for_selector("#table-page[data-connection='live']", timeout=20_000)
    assert "away" not in (page.get_attribute("#board-box", "class") or "")
    # the unconfirmed move is still there and can be confirmed
    page.click(point(6))
    page.click(point(5))
    page.click("#controls button[data-act='confirm']:not([disabled])")
    wait_version(page, match.version + 1)
    page.screenshot(path=str(artifacts / "e2e-connection-back.png"))
    assert errors == []
    context.close()


def test_the_review_page_steps_through_a_finished_match(
        live_server_process: WebServer, browser: Any, artifacts: Path) -> None:
    server = live_server_process
    match = seat_two(("rita", "ralf"), [[3, 1], [6, 4], [5, 5]], cube_enabled=False,
                     match_length=1)
    act(match.pk, 0, "play", "8/5 6/5")
    act(match.pk, 1, "play", "24/18 13/9")
    act(match.pk, 0, "play", "13/3(2)")
    act(match.pk, 1, "resign")

    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.set_default_timeout(10_000)
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    # the player's page links to the review
    page.goto(f"{server.url}/players/{match.player0_id}/")
    page.click(f"a[href='/matches/{match.pk}/']")
    page.wait_for_url(f"{server.url}/matches/{match.pk}/")
    page.wait_for_selector("#review[data-step='0']")
    light = "#board circle.checker.seat0[data-point='{}']"
    assert page.locator(light.format(8)).count() == 3

    page.keyboard.press("ArrowRight")   # the opening roll
    page.wait_for_selector("#review[data-step='1']")
    assert page.locator("#board .die").count() == 2
    page.keyboard.press("ArrowRight")   # 8/5 6/5
    page.wait_for_selector("#review[data-step='2']")
    assert page.locator(light.format(5)).count() == 2
    assert "8/5 6/5" in (page.text_content("#review-description") or "")
    page.screenshot(path=str(artifacts / "e2e-review-step.png"))

    page.keyboard.press("End")
    last = int(page.get_attribute("#review", "data-step") or 0)
    assert last >= 5 and "resigns" in (page.text_content("#review-description") or "")
    page.keyboard.press("Home")
    page.wait_for_selector("#review[data-step='0']")
    # a click on a move shows the board after it: double fives, four dice drawn
    third_play = page.locator("#moves li.ev.play").nth(2)
    third_play.locator("button").click()
    step = int(page.get_attribute("#review", "data-step") or 0)
    assert 0 < step < last
    assert page.locator(light.format(3)).count() == 2
    assert "current" in (third_play.get_attribute("class") or "")
    # the slider
    page.fill("#review-slider", "1")
    page.wait_for_selector("#review[data-step='1']")
    links = [page.get_attribute(f"a:text('{text}')", "href")
             for text in ("Download .mat", "Dice audit")]
    assert links == [f"/api/matches/{match.pk}/mat/", f"/api/matches/{match.pk}/dice/"]
    mat = page.request.get(f"{server.url}{links[0]}")
    assert mat.ok and "rita" in mat.text()
    page.screenshot(path=str(artifacts / "e2e-review.png"), full_page=True)
    assert errors == []
    context.close()
