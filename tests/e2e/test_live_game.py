"""Two players play a whole game in two real browsers; a third watches in Persian.

The server rolls scripted dice; the plays below are chosen so the game is short and has a hit
and a bar entry, a double and a take, and the bear-off. The engine turns the script into the
clicks each player makes (their own numbering, as on their own board), so the test checks
the plan before the browsers play it.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.db import connection

from matches import services
from matches.models import Match, MatchStatus, Table
from tavla.engine.actions import Double, OpeningRoll, PlayMove, Roll, Take
from tavla.engine.game import Phase, WinKind
from tavla.engine.match import MatchState
from tavla.engine.notation import resolve_play
from tavla.engine.rules import Rules
from tests.e2e.servers import WebServer

pytestmark = [pytest.mark.e2e, pytest.mark.slow, pytest.mark.django_db(transaction=True)]

# Opening roll: alice (seat 0) 6, bob (seat 1) 4; then one roll per turn.
DICE = [[6, 4], [2, 2], [5, 2], [6, 6], [3, 1], [6, 6], [6, 1], [6, 6], [6, 2], [6, 6], [6, 5],
        [5, 5], [6, 2], [5, 5], [4, 2], [6, 6], [3, 2], [5, 5], [6, 3], [6, 6], [4, 1], [5, 5]]
PLAYS = [
    "24/14",               # alice runs a back checker: a blot on bob's 11 point
    "13/11*(2) 6/4(2)",    # bob hits it
    "bar/20 24/22",        # alice enters from the bar
    # bob doubles here and alice takes
    "24/18(2) 13/7(2)", "8/5 6/5", "13/7 8/2(3)", "22/16 6/5", "11/5*(2) 7/1(2)",
    "7/1", "18/8(2)",      # alice is closed out: her rolls pass by themselves
    "8/3(2) 5/off(2)", "6/off(3) 4/off", "4/off 3/off(2) 2/off", "bar/16",
    "2/off(2) 1/off(2)", "13/8", "1/off",
]
DOUBLE_AT_TURN = 3  # bob's second turn
PASSWORD = "e2e-Passw0rd!"
ARGS_PHONE = {"width": 390, "height": 844}


def plan() -> tuple[list[tuple[Any, ...]], MatchState]:
    """The clicks of the game: ("roll"|"double"|"take", seat), ("play", seat, moves), or
    ("forced", seat, moves) for a play the board makes by itself (the only legal one)."""
    state = MatchState.new(Rules(match_length=1, cube=True)).apply(OpeningRoll(*DICE[0]))
    rolls, plays = iter(DICE[1:]), iter(PLAYS)
    steps: list[tuple[Any, ...]] = []
    turn = 0
    while not state.is_over:
        if state.phase is Phase.TURN_START:
            turn += 1
            assert state.player_on_roll is not None
            if turn == DOUBLE_AT_TURN:
                steps += [("double", state.player_on_roll), ("take", 1 - state.player_on_roll)]
                state = state.apply(Double()).apply(Take())
            if state.may_double():  # otherwise the server rolls at once
                steps.append(("roll", state.player_on_roll))
            state = state.apply(Roll(*next(rolls)))
        else:
            assert state.phase is Phase.MOVE and state.dice is not None
            assert state.player_on_roll is not None
            play = resolve_play(state.position, state.dice, next(plays))
            # the only legal play is a forced one: the board makes it by itself
            kind = "forced" if len(state.legal_plays()) == 1 else "play"
            steps.append((kind, state.player_on_roll,
                          [(move.source, move.destination) for move in play.moves]))
            state = state.apply(PlayMove(play.notation()))
    return steps, state


def test_the_plan_is_a_short_game_with_everything_in_it() -> None:
    steps, final = plan()
    moves = [move for step in steps if step[0] in ("play", "forced") for move in step[2]]
    assert any(step[0] == "forced" for step in steps)  # the bear-off has forced plays
    assert ("double", 1) in steps and ("take", 0) in steps
    assert any(source == 25 for source, _ in moves)          # a bar entry
    assert sum(destination == 0 for _, destination in moves) == 15  # bob bears off all 15
    assert "*" in PLAYS[1]                                     # the hit
    result = final.games[-1].result
    assert result is not None and final.winner == 1
    assert (result.kind, result.cube_value, result.points) == (WinKind.GAMMON, 2, 4)


def log_in(page: Any, server: WebServer, username: str) -> None:
    page.goto(f"{server.url}/accounts/login/")
    page.fill("#id_username", username)
    page.fill("#id_password", PASSWORD)
    page.click("form.login button[type=submit]")
    page.wait_for_url(f"{server.url}/")


def wait_version(page: Any, version: int) -> None:
    page.wait_for_selector(f"#table-page[data-version='{version}']", state="attached")


def point(value: int) -> str:
    name = {25: "bar", 0: "off"}.get(value, str(value))
    return f"#board rect.hit[data-point='{name}']"


def play_step(page: Any, step: tuple[Any, ...]) -> None:
    if step[0] == "forced":
        return  # nothing to do: the board plays it (forced plays are made by default)
    if step[0] != "play":
        page.click(f"#controls button[data-act='{step[0]}']")
        return
    for source, destination in step[2]:
        page.click(point(source))
        page.click(point(destination))
    page.click("#controls button[data-act='confirm']:not([disabled])")


def test_two_browsers_play_a_whole_game_and_a_third_watches_in_persian(
        live_server_process: WebServer, browser: Any, artifacts: Path) -> None:
    server = live_server_process
    for name in ("alice", "bob", "carol"):
        User.objects.create_user(name, password=PASSWORD)
    steps, _final = plan()

    contexts = [browser.new_context(viewport={"width": 1280, "height": 900}) for _ in range(2)]
    alice, bob = (context.new_page() for context in contexts)
    errors: list[str] = []
    for page in (alice, bob):
        page.set_default_timeout(10_000)
        page.on("pageerror", lambda error: errors.append(str(error)))
    log_in(alice, server, "alice")
    log_in(bob, server, "bob")

    # bob waits in the lobby; alice opens a table there: a 1-point match with the cube.
    bob.goto(f"{server.url}/lobby/")
    bob.wait_for_selector("#lobby-status.live")
    alice.goto(f"{server.url}/lobby/")
    alice.fill("#id_name", "Final table")
    alice.fill("#id_match_length", "1")
    alice.click(".table-form button[type=submit]")
    alice.wait_for_url(f"{server.url}/tables/*/")
    table_id = int(alice.url.rstrip("/").rsplit("/", 1)[1])
    Table.objects.filter(pk=table_id).update(scripted_dice=DICE)
    alice.wait_for_selector("#table-page[data-connection='live']")

    # bob sees it appear in the lobby without reloading, and sits down: the match starts.
    bob.click(f"tr[data-table-id='{table_id}'] button[type=submit]")
    bob.wait_for_url(f"{server.url}/tables/{table_id}/")
    match = Match.objects.get(table_id=table_id)
    version = match.version
    wait_version(alice, version)
    wait_version(bob, version)
    assert alice.text_content("#player-bottom .pips") == "pips 167"

    # carol watches in Persian.
    watcher_context = browser.new_context(viewport={"width": 1280, "height": 900}, locale="fa-IR")
    carol = watcher_context.new_page()
    carol.set_default_timeout(10_000)
    carol.goto(f"{server.url}/tables/{table_id}/")
    assert carol.get_attribute("html", "dir") == "rtl"
    assert carol.get_attribute("html", "lang") == "fa"

    pages = {0: alice, 1: bob}
    for index, step in enumerate(steps):
        play_step(pages[step[1]], step)
        version += 1
        wait_version(alice, version)
        wait_version(bob, version)
        if index == 2:  # bob's hit has landed: alice's checker is on the bar
            assert alice.locator("#board circle.checker.seat0.on-bar").count() == 1
            alice.screenshot(path=str(artifacts / "e2e-alice-on-the-bar.png"))
        if step[0] == "double":  # alice is offered the cube at 2: take or drop
            assert alice.is_visible("#controls button[data-act='take']")
            assert alice.is_visible("#controls button[data-act='drop']")
            assert alice.text_content("#board .cube.offered text") == "2"
            alice.screenshot(path=str(artifacts / "e2e-alice-cube-offered.png"))
        if step[0] == "take":  # the cube is alice's now, at her side (the top of bob's board)
            assert bob.get_attribute("#board g.cube", "data-owner") == "0"
            assert bob.text_content("#board g.cube text") == "2"

    match.refresh_from_db()
    assert match.status == MatchStatus.FINISHED and match.winner_id is not None
    assert match.winner.user.username == "bob" and (match.score0, match.score1) == (0, 4)
    assert services.match_verify(match_id=match.pk).ok

    for page in (alice, bob):
        page.wait_for_selector("#panel:not([hidden]) .match-result")
    assert "bob" in (alice.text_content("#panel .match-result") or "")
    moves = alice.text_content("#moves") or ""
    assert "13/11*(2) 6/4(2)" in moves and "bar/20 24/22" in moves and "1/off" in moves
    assert "gammon × cube 2" in (alice.text_content("#panel .game-result") or "")
    alice.screenshot(path=str(artifacts / "e2e-alice-final.png"))

    # The spectator saw it all live: the final position, in Persian, right to left.
    wait_version(carol, version)
    carol.wait_for_selector("#panel:not([hidden]) .match-result")
    assert carol.locator("#board rect.off.seat1").count() == 15
    assert "مارس" in (carol.text_content("#panel .game-result") or "")
    assert carol.evaluate("getComputedStyle(document.body).direction") == "rtl"
    carol.screenshot(path=str(artifacts / "e2e-spectator-fa-final.png"), full_page=True)
    # A reload restores the same final state.
    carol.reload()
    carol.wait_for_selector("#panel:not([hidden]) .match-result")
    assert carol.locator("#board rect.off.seat1").count() == 15
    assert errors == []
    for context in (*contexts, watcher_context):
        context.close()


def test_the_board_fits_a_phone(live_server_process: WebServer, browser: Any,
                                artifacts: Path, settings: Any) -> None:
    server = live_server_process
    settings.TAVLA_SCRIPTED_DICE = True  # this match starts here, in the test process

    def seat_two_players() -> Table:
        first = User.objects.create_user("dora", password=PASSWORD)
        second = User.objects.create_user("emil", password=PASSWORD)
        table = services.table_create(name="Phone table", match_length=3, clock_enabled=True)
        Table.objects.filter(pk=table.pk).update(scripted_dice=[[3, 1]])
        services.table_sit(table_id=table.pk, player=services.player_for_user(first))
        services.table_sit(table_id=table.pk, player=services.player_for_user(second))
        connection.close()
        return table

    # In a thread of its own: the services broadcast after commit with async_to_sync, which
    # cannot run in this thread while Playwright's event loop does.
    with ThreadPoolExecutor(1) as pool:
        table = pool.submit(seat_two_players).result()
    for locale, name in (("en-US", "phone-en"), ("fa-IR", "phone-fa")):
        context = browser.new_context(viewport=ARGS_PHONE, locale=locale, is_mobile=True,
                                      has_touch=True, device_scale_factor=2)
        page = context.new_page()
        log_in(page, server, "dora")
        page.goto(f"{server.url}/tables/{table.pk}/")
        page.wait_for_selector("#table-page[data-connection='live']")
        box = page.locator("#board").bounding_box()
        assert box is not None and box["width"] <= ARGS_PHONE["width"] and box["width"] > 300
        # held upright, the board is turned a quarter: taller than wide
        assert box["height"] > box["width"]
        # a tap picks up a checker and shows where it can go
        page.tap(point(8))
        assert page.locator("#board .target").count() >= 2
        # every target a finger may need is at least 32 CSS pixels each way
        targets = page.evaluate("""[...document.querySelectorAll(
            '#board rect.hit, #controls button:not([hidden]), #options summary')]
            .map((e) => { const r = e.getBoundingClientRect();
                          const name = e.dataset.point || e.dataset.act || e.tagName;
                          return [name, r.width, r.height]; })""")
        assert len(targets) >= 26
        small = [t for t in targets if min(t[1], t[2]) < 32]
        assert small == []
        # nothing cut off: the board and the buttons are inside the screen
        page.screenshot(path=str(artifacts / f"e2e-{name}.png"), full_page=True)
        for selector in ("#board", "#controls button[data-act='confirm']"):
            edge = page.locator(selector).bounding_box()
            assert edge is not None and edge["x"] >= 0
            assert edge["x"] + edge["width"] <= ARGS_PHONE["width"]
            assert edge["y"] + edge["height"] <= ARGS_PHONE["height"], selector
        assert page.evaluate("document.documentElement.scrollWidth") <= ARGS_PHONE["width"]
        page.locator("#board").screenshot(path=str(artifacts / f"e2e-{name}-board.png"))
        page.screenshot(path=str(artifacts / f"e2e-{name}.png"), full_page=True)
        context.close()


def test_double_click_undo_and_a_confirmed_resignation(live_server_process: WebServer,
                                                       browser: Any, settings: Any) -> None:
    server = live_server_process
    settings.TAVLA_SCRIPTED_DICE = True

    def seat_two_players() -> int:
        first = User.objects.create_user("fred", password=PASSWORD)
        second = User.objects.create_user("gina", password=PASSWORD)
        table = services.table_create(name="Controls", match_length=3)
        Table.objects.filter(pk=table.pk).update(scripted_dice=[[3, 1], [6, 6], [2, 1]])
        services.table_sit(table_id=table.pk, player=services.player_for_user(first))
        services.table_sit(table_id=table.pk, player=services.player_for_user(second))
        connection.close()
        return table.pk

    with ThreadPoolExecutor(1) as pool:
        table_id = pool.submit(seat_two_players).result()
    context = browser.new_context(viewport={"width": 1200, "height": 900})
    page = context.new_page()
    page.set_default_timeout(10_000)
    log_in(page, server, "fred")
    page.goto(f"{server.url}/tables/{table_id}/")
    page.wait_for_selector("#table-page[data-connection='live']")
    mine = "#board circle.checker.seat0[data-point='{}']"

    page.dblclick(point(8))  # the higher die, 3: 8/5
    assert page.locator(mine.format(5)).count() == 1 and page.locator(mine.format(8)).count() == 2
    page.click("#controls button[data-act='undo']")
    assert page.locator(mine.format(5)).count() == 0 and page.locator(mine.format(8)).count() == 3
    assert page.is_disabled("#controls button[data-act='confirm']")
    for source, destination in ((8, 5), (6, 5)):
        page.click(point(source))
        page.click(point(destination))
    assert page.is_enabled("#controls button[data-act='confirm']")

    # Resigning asks first; cancelling changes nothing.
    page.click("#controls button[data-act='resign']")
    page.click("#resign-dialog button[value='cancel']")
    assert page.get_attribute("#table-page", "data-version") == "1"
    page.click("#controls button[data-act='resign']")
    assert "gina" in (page.text_content("#resign-text") or "")
    page.click("#resign-yes")
    page.wait_for_selector("#panel:not([hidden]) .game-result")
    assert "resignation × cube 1" in (page.text_content("#panel .game-result") or "")
    assert page.text_content("#scoreboard [data-score='1']") == "1"
    context.close()
