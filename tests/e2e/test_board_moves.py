"""Moving like on the best sites, in a real browser: a whole game by dragging, a whole game
by keyboard alone, a forced play made for the player, the tab title on their turn, and
unconfirmed moves that survive a reload."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from matches.models import Event, LogKind, Match, MatchStatus
from tests.e2e.helpers import (
    act,
    drag,
    key_to,
    log_in,
    open_table,
    point,
    seat_two,
    wait_until,
    wait_version,
)
from tests.e2e.servers import WebServer
from tests.e2e.test_live_game import DICE, plan

pytestmark = [pytest.mark.e2e, pytest.mark.slow, pytest.mark.django_db(transaction=True)]


@pytest.fixture(autouse=True)
def _scripted_dice(settings: Any) -> None:
    settings.TAVLA_SCRIPTED_DICE = True  # these matches start here, in the test process


def play_the_plan(pages: dict[int, Any], match: Match, move: Any, button: Any) -> None:
    """Every step of the planned game: ``button(page, action)`` for roll, double and take,
    ``move(page, source, destination)`` for each move, then ``button(page, "confirm")``."""
    steps, _final = plan()
    version = match.version
    for step in steps:
        page = pages[step[1]]
        if step[0] == "play":
            for source, destination in step[2]:
                move(page, source, destination)
            button(page, "confirm")
        elif step[0] != "forced":  # a forced play the board makes by itself
            button(page, step[0])
        version += 1
        for each in pages.values():
            wait_version(each, version)


def click_button(page: Any, action: str) -> None:
    page.click(f"#controls button[data-act='{action}']:not([disabled])")


def finished(match: Match) -> Match:
    match.refresh_from_db()
    assert match.status == MatchStatus.FINISHED and match.winner_id == match.player1_id
    assert (match.score0, match.score1) == (0, 4)
    return match


def test_a_whole_game_moved_by_dragging(live_server_process: WebServer, browser: Any,
                                        artifacts: Path) -> None:
    server = live_server_process
    match = seat_two(("dana", "dirk"), DICE, match_length=1)
    pages = {seat: open_table(browser, server, name, match.table_id)
             for seat, name in enumerate(("dana", "dirk"))}
    hint = pages[0].text_content("#hint") or ""
    assert "Drag" in hint and pages[0].is_visible("#hint")  # the one-line hint of the gestures

    def move(page: Any, source: int, destination: int) -> None:
        drag(page, source, destination)

    # Mid-drag: the checker follows the mouse, the places it may go are shown.
    box = pages[0].locator(point(24)).bounding_box()
    pages[0].mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    pages[0].mouse.down()
    pages[0].mouse.move(box["x"] - 90, box["y"] + 200, steps=4)
    assert pages[0].locator("#board .checker.ghost").count() == 1
    assert pages[0].locator("#board .target").count() >= 1
    pages[0].screenshot(path=str(artifacts / "e2e-drag-in-progress.png"))
    pages[0].mouse.move(box["x"] + box["width"] / 2, box["y"] + 10, steps=2)
    pages[0].mouse.up()  # dropped where it came from: nothing moved
    assert pages[0].locator("#board circle.checker.seat0[data-point='24']").count() == 2

    play_the_plan(pages, match, move, click_button)
    finished(match)
    pages[1].wait_for_selector("#panel:not([hidden]) .match-result")
    pages[1].screenshot(path=str(artifacts / "e2e-drag-final.png"))
    for page in pages.values():
        assert page.js_errors == []
        page.context.close()


def test_a_whole_game_with_the_keyboard_alone(live_server_process: WebServer, browser: Any,
                                              artifacts: Path) -> None:
    server = live_server_process
    match = seat_two(("kara", "karl"), DICE, match_length=1)
    pages = {seat: open_table(browser, server, name, match.table_id)
             for seat, name in enumerate(("kara", "karl"))}
    keys = {"roll": "r", "double": "d", "take": "t", "drop": "x", "confirm": "c"}

    def move(page: Any, source: int, destination: int) -> None:
        key_to(page, source)
        page.keyboard.press("Enter")
        if page.locator(f"#board .movable.selected[data-source='{source}']").count() == 0:
            return  # one keypress bore it off: nothing else it could do
        key_to(page, destination)
        page.keyboard.press("Enter")

    def press(page: Any, action: str) -> None:
        page.wait_for_selector(f"#controls button[data-act='{action}']:not([disabled])")
        page.keyboard.press(keys[action])

    first = pages[0]
    first.keyboard.press("b")
    focus = first.evaluate("getComputedStyle(document.activeElement).stroke")
    assert focus not in ("none", "")  # the focus is visible on the board
    label = first.evaluate("document.activeElement.getAttribute('aria-label')")
    assert "can move" in label
    first.screenshot(path=str(artifacts / "e2e-keyboard-focus.png"))

    play_the_plan(pages, match, move, press)
    finished(match)
    description = pages[0].text_content("#board-description") or ""
    assert "karl" in description and "Pips" in description
    for page in pages.values():
        assert page.js_errors == []
        page.context.close()


def test_a_forced_play_is_made_for_the_player_and_the_title_says_whose_turn(
        live_server_process: WebServer, browser: Any, artifacts: Path) -> None:
    server = live_server_process
    # Opening 1 against 6: nick (seat 1) plays first; mia hits two blots; nick enters both
    # checkers with his 2-4, the only play there is.
    match = seat_two(("mia", "nick"), [[1, 6], [1, 5], [2, 4]], cube_enabled=False)
    act(match.pk, 1, "play", "24/18 8/7")
    act(match.pk, 0, "play", "8/7* 6/1*")
    match.refresh_from_db()
    version = match.version

    mia = open_table(browser, server, "mia", match.table_id)
    assert not mia.title().startswith("(Your turn)")
    # nick turned the option off: nothing happens until he turns it back on.
    context = browser.new_context(viewport={"width": 1280, "height": 720})
    context.add_init_script(
        "localStorage.setItem('tavla:options', JSON.stringify({autoForced: false}))")
    nick = context.new_page()
    nick.set_default_timeout(10_000)
    log_in(nick, server, "nick")
    nick.goto(f"{server.url}/tables/{match.table_id}/")
    nick.wait_for_selector("#table-page[data-connection='live']")
    assert nick.title().startswith("(Your turn)")
    nick.wait_for_timeout(1500)
    assert nick.get_attribute("#table-page", "data-version") == str(version)
    # at 1280x720 the board and the buttons fit: nothing below the window's edge
    for selector in ("#board", "#controls button[data-act='confirm']", "#player-bottom"):
        box = nick.locator(selector).bounding_box()
        assert box is not None and box["y"] + box["height"] <= 720, selector
    nick.screenshot(path=str(artifacts / "e2e-1280x720.png"))

    nick.click("#options summary")
    nick.check("#options input[data-option='autoForced']")
    wait_version(nick, version + 1)
    wait_version(mia, version + 1)
    plays = [e.payload["action"]["play"] for e in Event.objects.filter(
        match=match, kind=LogKind.PLAY).order_by("sequence")]
    assert "bar/23 bar/21" in plays
    # now it is mia's turn, and her tab says so
    wait_until(mia, "document.title.startsWith('(Your turn)')")
    wait_until(nick, "!document.title.startsWith('(Your turn)')")
    mia.screenshot(path=str(artifacts / "e2e-your-turn.png"))
    for page in (mia, nick):
        page.context.close()


def test_unconfirmed_moves_survive_a_reload(live_server_process: WebServer,
                                            browser: Any) -> None:
    server = live_server_process
    match = seat_two(("olga", "otto"), [[3, 1]])
    page = open_table(browser, server, "olga", match.table_id)
    mine = "#board circle.checker.seat0[data-point='{}']"
    page.click(point(8))
    page.click(point(5))
    assert page.locator(mine.format(5)).count() == 1
    page.reload()
    page.wait_for_selector("#table-page[data-connection='live']")
    assert page.locator(mine.format(5)).count() == 1 and page.locator(mine.format(8)).count() == 2
    page.click(point(6))
    page.click(point(5))
    page.click("#controls button[data-act='confirm']:not([disabled])")
    wait_version(page, match.version + 1)
    # a new version: nothing is restored any more
    page.reload()
    page.wait_for_selector("#table-page[data-connection='live']")
    assert page.locator(mine.format(5)).count() == 2
    assert page.js_errors == []
    page.context.close()


# A page that is looked away from (document.hidden), has allowed notifications and counts
# the notifications and the sounds it makes (WebAudio nodes started).
LOOKING_AWAY = """
localStorage.setItem('tavla:options', JSON.stringify({notify: true, sound: true}));
Object.defineProperty(document, 'hidden', {get: () => true});
window.__notes = [];
window.Notification = class {
  static permission = 'granted';
  static requestPermission() { return Promise.resolve('granted'); }
  constructor(title, options) { window.__notes.push([title, options.body]); }
  addEventListener() {}
  close() {}
};
window.__sounds = 0;
for (const name of ['createOscillator', 'createBufferSource']) {
  const make = AudioContext.prototype[name];
  AudioContext.prototype[name] = function (...args) {
    window.__sounds += 1;
    return make.apply(this, args);
  };
}
"""


def test_a_player_looking_away_is_notified_and_hears_their_turn(
        live_server_process: WebServer, browser: Any) -> None:
    server = live_server_process
    match = seat_two(("sara", "sven"), [[3, 1], [6, 4]], cube_enabled=False)
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.add_init_script(LOOKING_AWAY)
    sven = context.new_page()
    sven.set_default_timeout(10_000)
    log_in(sven, server, "sven")
    sven.goto(f"{server.url}/tables/{match.table_id}/")
    sven.wait_for_selector("#table-page[data-connection='live']")
    sven.click("#options summary")  # any click lets the page make sounds from now on
    assert sven.evaluate("window.__notes.length") == 0
    act(match.pk, 0, "play", "8/5 6/5")  # sara plays; sven's roll follows at once
    wait_until(sven, "window.__notes.length > 0")
    assert sven.evaluate("window.__notes.length") == 1
    title, body = sven.evaluate("window.__notes[0]")
    assert title == "Your turn" and "sara v sven" in body
    assert sven.evaluate("window.__sounds") >= 3  # her move, his dice, his turn
    # The title is set when the page next draws (a frame, or 50 ms while hidden), which may
    # come just after the notification.
    wait_until(sven, "document.title.startsWith('(Your turn)')", timeout=5)
    context.close()


def touch_drag(page: Any, source: int, destination: int, cdp: Any,
               check_mid_drag: Any = None) -> None:
    """A finger on ``source``, moved in steps to ``destination`` and lifted: real touch
    events (Chromium's DevTools input), which the page sees as pointer events of type
    ``touch``."""
    start = page.locator(point(source)).bounding_box()
    end = page.locator(point(destination)).bounding_box()
    x0, y0 = start["x"] + start["width"] / 2, start["y"] + start["height"] / 2
    x1, y1 = end["x"] + end["width"] / 2, end["y"] + end["height"] / 2
    cdp.send("Input.dispatchTouchEvent", {"type": "touchStart",
                                          "touchPoints": [{"x": x0, "y": y0}]})
    for step in range(1, 9):
        x, y = x0 + (x1 - x0) * step / 8, y0 + (y1 - y0) * step / 8
        cdp.send("Input.dispatchTouchEvent", {"type": "touchMove",
                                              "touchPoints": [{"x": x, "y": y}]})
        if step == 4 and check_mid_drag is not None:
            check_mid_drag()
    cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})


def test_a_play_dragged_by_touch_on_a_phone(live_server_process: WebServer, browser: Any,
                                            artifacts: Path) -> None:
    server = live_server_process
    match = seat_two(("tess", "theo"), [[3, 1]], match_length=1)
    page = open_table(browser, server, "tess", match.table_id, viewport={"width": 390,
                      "height": 844}, is_mobile=True, has_touch=True, device_scale_factor=2)
    wait_until(page, "document.querySelector('#board').classList.contains('moving')")
    # While the player moves, a finger drags checkers instead of scrolling the page.
    assert page.evaluate("getComputedStyle(document.querySelector('#board')).touchAction") \
        == "none"
    version = int(page.get_attribute("#table-page", "data-version") or 0)
    cdp = page.context.new_cdp_session(page)
    page.evaluate("""window.__touches = [];
        document.addEventListener('pointermove', (e) => window.__touches.push(e.pointerType));""")

    def mid_drag() -> None:  # the checker follows the finger, its places are shown
        assert page.locator("#board .checker.ghost").count() == 1
        assert page.locator("#board .target").count() >= 1

    touch_drag(page, 8, 5, cdp, mid_drag)
    page.screenshot(path=str(artifacts / "e2e-touch-drag.png"))
    touch_drag(page, 6, 5, cdp)
    touch_kinds = page.evaluate("window.__touches")
    assert touch_kinds and set(touch_kinds) == {"touch"}
    # A finger takes a moment from the board to the button; a tap dispatched the instant
    # the drag's finger lifted was swallowed by Chromium's gesture detector every time.
    page.wait_for_timeout(250)
    page.tap("#controls button[data-act='confirm']:not([disabled])")
    wait_version(page, version + 1)
    played = Event.objects.filter(match=match, kind=LogKind.PLAY).order_by("-sequence").first()
    assert played is not None and played.payload["action"]["play"] == "8/5 6/5"
    assert page.js_errors == []
    page.context.close()
