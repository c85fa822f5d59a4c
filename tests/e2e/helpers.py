"""What the board tests share: logging in, seating players, finding and reaching points."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

from django.contrib.auth.models import User
from django.db import connection

from matches import services
from matches.models import Match, Table
from tests.e2e.servers import WebServer

PASSWORD = "e2e-Passw0rd!"
T = TypeVar("T")


def in_thread(function: Callable[[], T]) -> T:
    """Run ``function`` in a thread of its own: the services broadcast after commit with
    async_to_sync, which cannot run in the thread where Playwright's event loop runs."""
    def run() -> T:
        try:
            return function()
        finally:
            connection.close()

    with ThreadPoolExecutor(1) as pool:
        return pool.submit(run).result()


def seat_two(names: tuple[str, str], dice: Sequence[Sequence[int]], **options: Any) -> Match:
    """Two new users sit at a new table (``options``), with scripted ``dice``: the match."""
    def seat() -> Match:
        first, second = (services.player_for_user(User.objects.create_user(n, password=PASSWORD))
                         for n in names)
        options.setdefault("match_length", 3)
        table = services.table_create(name=f"{names[0]} v {names[1]}", **options)
        Table.objects.filter(pk=table.pk).update(scripted_dice=[list(d) for d in dice])
        services.table_sit(table_id=table.pk, player=first)
        services.table_sit(table_id=table.pk, player=second)
        return Match.objects.select_related("player0", "player1").get(table=table)

    return in_thread(seat)


def act(match_id: int, seat: int, action: str, play: str | None = None) -> None:
    def run() -> None:
        match = Match.objects.select_related("player0", "player1").get(pk=match_id)
        services.match_act(match_id=match_id, player=match.players()[seat], action=action,
                           expected_version=match.version, play=play)

    in_thread(run)


def log_in(page: Any, server: WebServer, username: str) -> None:
    page.goto(f"{server.url}/accounts/login/")
    page.fill("#id_username", username)
    page.fill("#id_password", PASSWORD)
    page.click("form.login button[type=submit]")
    page.wait_for_url(f"{server.url}/")


def open_table(browser: Any, server: WebServer, username: str, table_id: int,
               **context_options: Any) -> Any:
    context_options.setdefault("viewport", {"width": 1280, "height": 900})
    context = browser.new_context(**context_options)
    page = context.new_page()
    page.set_default_timeout(10_000)
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.js_errors = errors
    log_in(page, server, username)
    page.goto(f"{server.url}/tables/{table_id}/")
    page.wait_for_selector("#table-page[data-connection='live']")
    return page


def wait_version(page: Any, version: int) -> None:
    page.wait_for_selector(f"#table-page[data-version='{version}']", state="attached")


def wait_until(page: Any, expression: str, timeout: float = 10.0) -> None:
    """Poll ``expression`` in the page until it is true. (Playwright's wait_for_function
    compiles its predicate with eval, which the site's Content-Security-Policy forbids.)"""
    deadline = time.monotonic() + timeout
    while not page.evaluate(expression):
        if time.monotonic() > deadline:
            raise AssertionError(f"still false after {timeout} s: {expression}")
        page.wait_for_timeout(100)


def point(value: int) -> str:
    name = {25: "bar", 0: "off"}.get(value, str(value))
    return f"#board rect.hit[data-point='{name}']"


def drag(page: Any, source: int, destination: int) -> None:
    """Press on ``source``, move in steps (pointer events on the way) and let go on
    ``destination``."""
    start = page.locator(point(source)).bounding_box()
    end = page.locator(point(destination)).bounding_box()
    page.mouse.move(start["x"] + start["width"] / 2, start["y"] + start["height"] / 2)
    page.mouse.down()
    page.mouse.move(end["x"] + end["width"] / 2, end["y"] + end["height"] / 2, steps=6)
    page.mouse.up()


def _column(value: int) -> tuple[bool, float]:
    """Where a point is drawn (bottom numbering): (top row?, column 0-12 from the left; the bar
    is 5.5 and the tray 12)."""
    if value == 25:
        return False, 5.5
    if value == 0:
        return False, 12
    if value <= 6:
        return False, 6 + (6 - value)
    if value <= 12:
        return False, 12 - value
    if value <= 18:
        return True, value - 13
    return True, 6 + (value - 19)


def focused_point(page: Any) -> int | None:
    value = page.evaluate("document.activeElement && document.activeElement.dataset.point")
    if value is None:
        return None
    return {"bar": 25, "off": 0}.get(value, None) if not str(value).isdigit() else int(value)


def key_to(page: Any, target: int) -> None:
    """Walk the keyboard focus to ``target`` with the arrow keys alone."""
    if focused_point(page) is None:
        page.keyboard.press("b")  # the shortcut that puts the focus on the board
    for _ in range(40):
        here = focused_point(page)
        assert here is not None, "the focus left the board"
        if here == target:
            return
        (top, col), (want_top, want_col) = _column(here), _column(target)
        if top != want_top:
            page.keyboard.press("ArrowUp" if want_top else "ArrowDown")
            continue
        page.keyboard.press("ArrowLeft" if want_col < col else "ArrowRight")
    raise AssertionError(f"the arrows never reached point {target}")
