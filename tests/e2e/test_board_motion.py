"""Seeing every move, in a real browser: the opponent's play slides in while the position is
already the new state's, the last play stays marked, a roll tumbles, reduced motion and the
board's option turn it off, a new state during an animation jumps to it, a spectator flips
the board, and the board's column goes full screen.

The opponent's actions go through the services (as another browser's would) with scripted
dice; the browsers under test only watch or roll.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from matches.models import Match
from tests.e2e.helpers import act, open_table, seat_two, wait_until, wait_version
from tests.e2e.servers import WebServer

pytestmark = [pytest.mark.e2e, pytest.mark.slow, pytest.mark.django_db(transaction=True)]

# Opening roll: seat 0 a 1, seat 1 a 3: seat 1 plays first (8/5 6/5). Then seat 0 rolls 6-4
# (24/14), seat 1 rolls 5-5 (13/3(2): four steps, a long animation), seat 0 rolls 2-1.
DICE = [[1, 3], [6, 4], [5, 5], [2, 1], [3, 2]]


@pytest.fixture(autouse=True)
def _scripted_dice(settings: Any) -> None:
    settings.TAVLA_SCRIPTED_DICE = True  # the matches start in this process


WATCH_FIRST_SLIDE = """(() => {
  window.tavlaSeen = null;
  const layer = document.querySelector('#board .animation');
  const note = () => {
    window.tavlaSeen = {
      version: document.getElementById('table-page').dataset.version,
      landed: document.querySelectorAll("#board circle.checker.seat1[data-point='20']").length,
      animating: document.getElementById('board').classList.contains('animating'),
      flyers: layer.querySelectorAll('.flyer').length,
    };
  };
  const observer = new MutationObserver(() => {
    if (!layer.querySelector('.flyer')) return;
    observer.disconnect();
    requestAnimationFrame(() => requestAnimationFrame(note));
  });
  observer.observe(layer, { childList: true });
})()"""


def version_of(match_id: int) -> int:
    return Match.objects.get(pk=match_id).version


def checkers(page: Any, seat: int, point: int) -> int:
    count: int = page.locator(f"#board circle.checker.seat{seat}[data-point='{point}']").count()
    return count


def wait_motion(page: Any, value: str) -> None:
    wait_until(page, f"document.getElementById('board').dataset.motion === '{value}'")


def test_the_opponents_play_slides_in_and_stays_marked(
        live_server_process: WebServer, browser: Any, artifacts: Path) -> None:
    server = live_server_process
    match = seat_two(("mona", "nils"), DICE, match_length=3)
    mona = open_table(browser, server, "mona", match.table_id)
    watcher_context = browser.new_context(viewport={"width": 1280, "height": 900})
    watcher = watcher_context.new_page()
    watcher.set_default_timeout(10_000)
    watcher.js_errors = []
    watcher.on("pageerror", lambda error: watcher.js_errors.append(str(error)))
    watcher.goto(f"{server.url}/tables/{match.table_id}/")
    watcher.wait_for_selector("#table-page[data-connection='live']")
    assert mona.get_attribute("#board", "data-animations") is None

    # What the page shows two frames after a checker starts to slide (the page redraws on the
    # next frame), noted in the page itself so that no round trip comes too late.
    mona.evaluate(WATCH_FIRST_SLIDE)

    # nils (seat 1) plays 8/5 6/5: on mona's board (seat 0 at the bottom) his 8, 6 and 5 are
    # her 17, 19 and 20.
    act(match.pk, 1, "play", "8/5 6/5")
    mona.wait_for_selector("#board .animation circle.piece.flyer", state="attached")
    version = version_of(match.pk)
    wait_until(mona, "window.tavlaSeen !== null")
    seen = mona.evaluate("window.tavlaSeen")
    # The state is not held back by the animation: the version and the position are the
    # new state's while the picture above them still moves.
    assert seen == {"version": str(version), "landed": 2, "animating": True, "flyers": 1}
    wait_motion(mona, "done")
    assert mona.locator("#board .animation *").count() == 0
    assert mona.is_visible("#board circle.checker.seat1[data-point='20']")
    assert (checkers(mona, 1, 17), checkers(mona, 1, 19), checkers(mona, 1, 20)) == (2, 4, 2)
    # The last play stays marked: where the checkers left and where they stopped.
    marks = mona.evaluate("""[...document.querySelectorAll('#board .last-move [data-last]')]
        .map((m) => `${m.getAttribute('class')}:${m.dataset.last}`).sort()""")
    assert marks == ["last-from:17", "last-from:19", "last-to:20"]
    mona.locator("#board").screenshot(path=str(artifacts / "e2e-motion-last-move.png"))
    # The spectator saw it slide too.
    wait_version(watcher, version)
    wait_until(watcher, "Number(document.getElementById('board').dataset.animations) === 1")

    # mona rolls: her dice tumble in; the opponent's play stays marked until she plays.
    mona.click("#controls button[data-act='roll']")
    mona.wait_for_selector("#board .dice.rolling .die", state="attached")
    assert mona.locator("#board .last-move .last-to[data-last='20']").count() == 1

    # The spectator turns the board: nils at the bottom, his 13 point bottom left as his own
    # 13, and it stays turned when the next state comes.
    watcher.click("#controls button[data-act='flip']")
    wait_until(watcher, "document.querySelectorAll("
                        "\"#board circle.checker.seat1[data-point='13']\").length === 5")
    assert "nils" in (watcher.text_content("#player-bottom") or "")
    act(match.pk, 0, "play", "24/14")
    act(match.pk, 1, "roll")
    version = version_of(match.pk)
    wait_version(watcher, version)
    assert "nils" in (watcher.text_content("#player-bottom") or "")
    assert checkers(watcher, 1, 13) == 5

    # A long play (four steps) and a new state in the middle of it: the board jumps to it.
    act(match.pk, 1, "play", "13/3(2)")
    watcher.wait_for_selector("#board .animation circle.piece.flyer")
    act(match.pk, 0, "roll")
    version = version_of(match.pk)
    wait_version(watcher, version)
    wait_motion(watcher, "cancelled")
    assert watcher.locator("#board .animation *").count() == 0
    # flipped: nils's own numbering is the board's
    assert (checkers(watcher, 1, 13), checkers(watcher, 1, 3)) == (3, 2)
    assert watcher.is_visible("#board circle.checker.seat1[data-point='3']")
    assert watcher.locator("#board .last-move .last-to[data-last='3']").count() == 1

    assert mona.js_errors == [] and watcher.js_errors == []
    mona.context.close()
    watcher_context.close()


def test_reduced_motion_and_the_option_turn_animation_off(
        live_server_process: WebServer, browser: Any) -> None:
    server = live_server_process
    match = seat_two(("olga", "piet"), DICE, match_length=3)
    calm = open_table(browser, server, "olga", match.table_id)
    calm.emulate_media(reduced_motion="reduce")
    chosen = open_table(browser, server, "olga", match.table_id)
    chosen.click("#options summary")
    chosen.uncheck("#options input[data-option='animate']")

    act(match.pk, 1, "play", "8/5 6/5")
    version = version_of(match.pk)
    for page in (calm, chosen):
        wait_version(page, version)
        # the new position at once, marked, and no animation ever started
        wait_until(page, "document.querySelectorAll("
                         "\"#board circle.checker.seat1[data-point='20']\").length === 2")
        assert page.is_visible("#board circle.checker.seat1[data-point='20']")
        assert page.get_attribute("#board", "data-animations") is None
        assert page.locator("#board .animation *").count() == 0
        assert page.locator("#board .last-move .last-to[data-last='20']").count() == 1
    # a roll does not tumble either
    calm.click("#controls button[data-act='roll']")
    wait_version(chosen, version + 1)
    for page in (calm, chosen):
        wait_version(page, version + 1)
        assert page.locator("#board .dice .die").count() == 2
        assert page.locator("#board .dice.rolling").count() == 0
    # the option is kept in this browser
    chosen.reload()
    chosen.wait_for_selector("#table-page[data-connection='live']")
    assert not chosen.is_checked("#options input[data-option='animate']")
    assert calm.js_errors == [] and chosen.js_errors == []
    calm.context.close()
    chosen.context.close()


@pytest.mark.parametrize("phone", [False, True])
def test_full_screen_play(live_server_process: WebServer, browser: Any, artifacts: Path,
                          phone: bool) -> None:
    server = live_server_process
    names = ("quinn", "rosa") if phone else ("sven", "tara")
    match = seat_two(names, DICE, match_length=3)
    options: dict[str, Any] = {}
    if phone:
        options = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}
    page = open_table(browser, server, names[0], match.table_id, **options)
    button = "#fullscreen"
    assert page.is_visible(button)
    assert page.get_attribute(button, "aria-pressed") == "false"
    page.click(button)
    wait_until(page, "document.querySelector('.board-column').classList.contains('is-fullscreen')")
    # the Fullscreen API where the browser grants it, else the column pinned over the page
    shown = page.evaluate("""document.fullscreenElement === document.querySelector('.board-column')
        || document.documentElement.classList.contains('pseudo-fullscreen')""")
    assert shown
    assert page.get_attribute(button, "aria-pressed") == "true"
    assert page.text_content(button) == "Leave full screen"
    # the board and the turn row's buttons are on the screen
    size = page.viewport_size
    for selector in ("#board", button):
        box = page.locator(selector).bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= size["width"] + 1
        assert box["y"] + box["height"] <= size["height"] + 1, selector
    page.screenshot(path=str(artifacts / f"e2e-fullscreen{'-phone' if phone else ''}.png"))
    page.click(button)
    wait_until(page, "!document.querySelector('.board-column').classList.contains('is-fullscreen')")
    assert page.evaluate("document.fullscreenElement") is None
    assert page.get_attribute(button, "aria-pressed") == "false"
    assert page.evaluate("document.documentElement.scrollWidth") <= size["width"]
    assert page.js_errors == []
    page.context.close()
