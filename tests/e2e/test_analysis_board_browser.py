"""The analysis board and the practice drill in a real browser, against daphne and a real
Celery worker on the analysis queue running gnubg: an XGID pasted gives gnubg's ranked
plays and a link that shows them again; a drill item is answered on a phone's screen."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.utils import timezone

from matches import services
from matches.gnubg.bots import bot_table_create
from matches.models import DrillItem, Match, MatchStatus
from matches.state import load_state
from tavla.analysis.board import cube_answer_from, ranked_plays
from tavla.engine import MatchInfo, Position, encode_match_id
from tests.conftest import CeleryWorkerProcess, start_celery_worker, subprocess_env
from tests.e2e.servers import WebServer, start_web_server
from tests.e2e.test_live_game import PASSWORD, log_in

pytestmark = [pytest.mark.e2e, pytest.mark.slow, pytest.mark.celery,
              pytest.mark.django_db(transaction=True)]

OPENING_52 = "XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:0:0:10"


@pytest.fixture(scope="module")
def board_server(django_db_setup: None, django_db_blocker: Any
                 ) -> Iterator[tuple[WebServer, CeleryWorkerProcess]]:
    with django_db_blocker.unblock():
        env = subprocess_env(TAVLA_BOT_PAUSE="0.05,0.1")
    server = start_web_server(env, name="e2e-analysis-board")
    worker = start_celery_worker(env, name="e2e-analysis", queues="analysis,bots")
    try:
        yield server, worker
    finally:
        worker.stop()
        server.stop()


def test_a_pasted_xgid_gets_gnubgs_ranked_plays_and_a_link_to_share(
        board_server: tuple[WebServer, CeleryWorkerProcess], browser: Any) -> None:
    server, worker = board_server
    User.objects.create_user("xavier", password=PASSWORD)
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.set_default_timeout(60_000)
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    log_in(page, server, "xavier")
    page.goto(f"{server.url}/analysis/board/")
    page.fill("#xgid", OPENING_52)
    page.click("#board-ask")
    page.wait_for_selector("#board-result[data-status='ready'] table.ranked-plays",
                           timeout=120_000)
    rows = page.locator("table.ranked-plays tbody tr")
    assert rows.count() >= 8, worker.log()[-2000:]  # the distinct plays of 5-2
    top = {rows.nth(0).locator(".play").inner_text(), rows.nth(1).locator(".play").inner_text()}
    assert top == {"13/11 13/8", "24/22 13/8"}
    share = page.locator("#share-link").get_attribute("href")
    assert share is not None and "xgid=XGID" in share and page.url == share

    # The link alone shows the same answer (stored: no second evaluation).
    other = context.new_page()
    other.goto(share)
    other.wait_for_selector("#board-result[data-status='ready'] table.ranked-plays")
    assert other.locator("table.ranked-plays tbody tr").count() == rows.count()

    # Set up a position by dragging: from the start, one checker from 13 to 11 (board
    # coordinates: point 11 is the second column from the left, bottom row).
    page.click("#setup-start")
    page.locator("#board").evaluate("board => board.scrollIntoView({block: 'start'})")
    source = page.locator("#board circle.checker[data-point='13']").first.bounding_box()
    board = page.locator("#board").bounding_box()
    assert source is not None and board is not None
    scale = board["width"] / 992
    page.mouse.move(source["x"] + source["width"] / 2, source["y"] + source["height"] / 2)
    page.mouse.down()
    page.mouse.move(board["x"] + 116 * scale, board["y"] + 560 * scale, steps=8)
    page.mouse.move(board["x"] + 116 * scale, board["y"] + 640 * scale, steps=8)
    page.mouse.up()
    assert page.locator("#board circle.checker[data-point='11']").count() == 1, errors
    xgid = page.input_value("#xgid")
    assert xgid.startswith("XGID=-b----E-C--AeD---c-e----B-:"), xgid
    page.check("input[name=roll][value=dice]")
    page.select_option("select[name=die1]", "6")
    page.select_option("select[name=die2]", "4")
    page.click("#board-ask")
    page.wait_for_selector("#board-result[data-status='ready'] table.ranked-plays",
                           timeout=120_000)
    assert "%3A64%3A" in page.url or ":64:" in page.url  # the dice are in the link

    # A bad XGID is a clear error on the page.
    page.fill("#xgid", "XGID=nonsense")
    page.click("#board-ask")
    page.wait_for_selector("#board-note[data-error='invalid_position']")
    assert "10 fields" in page.locator("#board-note").inner_text()
    assert errors == []
    context.close()


def _drill_item(username: str) -> DrillItem:
    """One drill item of ``username``: the opening 5-2 in a 5-point match, with gnubg's real
    ranking (this process evaluates, as the worker does), once played with a play that
    loses more than 0.08 (an error)."""
    user = User.objects.create_user(username, password=PASSWORD)
    player = services.player_for_user(user)
    opponent = services.player_for_user(User.objects.create_user(username + "-opp"))
    table = services.table_create(name="Old match", match_length=5)
    services.table_sit(table_id=table.pk, player=player)
    services.table_sit(table_id=table.pk, player=opponent)
    match = Match.objects.get(table=table)
    Match.objects.filter(pk=match.pk).update(status=MatchStatus.FINISHED)  # history only
    info = MatchInfo(dice=(5, 2), match_length=5)
    plays = ranked_plays(Position.initial(), info, (5, 2), 0)
    played = next(p for p in plays if p.loss > 0.08)
    return DrillItem.objects.create(
        player=player, match=match, game=1, index=1, kind="move",
        position_id=Position.initial().to_id(), gnubg_match_id=encode_match_id(info),
        played=played.play, best=plays[0].play, loss=played.loss, mark="error",
        answers={"plays": [{"play": p.play, "equity": p.equity, "loss": p.loss}
                           for p in plays]},
        due_at=timezone.now())


def test_a_drill_item_is_answered_on_a_phone(
        board_server: tuple[WebServer, CeleryWorkerProcess], browser: Any) -> None:
    server, _worker = board_server
    item = _drill_item("phoebe")
    context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True,
                                  has_touch=True)
    page = context.new_page()
    page.set_default_timeout(30_000)
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    log_in(page, server, "phoebe")
    page.goto(f"{server.url}/practice/")
    page.wait_for_selector("#practice[data-state='question']")
    assert page.locator("#board.portrait").count() == 1  # turned for the narrow screen
    box = page.locator("#board").bounding_box()
    assert box is not None and box["width"] <= 390
    # The best play, tapped checker by checker: 13/11 13/8 or 24/22 13/8.
    best = item.best
    for move in best.split():
        source, destination = move.split("/")
        page.locator(f"#board rect.hit[data-point='{source}']").tap()
        page.locator(f"#board rect.hit[data-point='{destination}']").tap()
    page.locator("#drill-confirm:not([disabled])").tap()
    page.wait_for_selector("#practice[data-state='answered']")
    assert page.locator("#drill-outcome .verdict").get_attribute("data-right") == "true"
    item.refresh_from_db()
    assert item.box == 2 and item.reviews == 1 and item.right == 1
    assert errors == []
    context.close()


@pytest.mark.parametrize("locale", ["fa-IR", "tr-TR"])
def test_a_cube_drill_item_in_persian_and_turkish_on_a_phone(
        board_server: tuple[WebServer, CeleryWorkerProcess], browser: Any, locale: str) -> None:
    server, _worker = board_server
    item = _drill_item(f"cube-{locale[:2]}")
    # The same position as a double to take or pass, as the analysis stores it.
    answers = cube_answer_from(0.42, 0.61, 1.0)
    DrillItem.objects.filter(pk=item.pk).update(
        kind="take", played="drop", best="take", answers=answers,
        gnubg_match_id=encode_match_id(MatchInfo(cube_value=1, player_on_roll=1, turn=0,
                                                 double_offered=True, match_length=5)))
    context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True,
                                  has_touch=True, locale=locale)
    page = context.new_page()
    page.set_default_timeout(30_000)
    log_in(page, server, f"cube-{locale[:2]}")
    page.goto(f"{server.url}/practice/")
    page.wait_for_selector("#practice[data-state='question']")
    page.locator("#drill-take").tap()
    page.wait_for_selector("#practice[data-state='answered']")
    assert page.locator("#drill-outcome .verdict").get_attribute("data-right") == "true"
    shown = " ".join(page.locator(selector).inner_text() for selector in (
        "#drill-summary", "#drill-question", "#drill-outcome"))
    english = ("Right", "Wrong", "take", "Take", "pass", "Pass", "Box", "due", "Score",
               "match", "doubled", "played", "best")
    assert not [word for word in english if re.search(rf"\b{word}\b", shown)], shown
    if locale.startswith("fa"):  # Persian: no Latin word at all but the program's name
        assert not re.search(r"[A-Za-z]{2,}", shown.replace("gnubg", "")), shown
    context.close()


def test_the_hint_appears_only_in_unrated_practice_against_the_bot(
        board_server: tuple[WebServer, CeleryWorkerProcess], browser: Any) -> None:
    server, worker = board_server
    user = User.objects.create_user("hilda", password=PASSWORD)
    human = services.player_for_user(user)
    practice = bot_table_create(human=human, strength="beginner", match_length=3)
    rated = bot_table_create(human=human, strength="beginner", match_length=3, rated=True)
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.set_default_timeout(60_000)
    log_in(page, server, "hilda")
    page.goto(f"{server.url}/tables/{rated.pk}/")
    page.wait_for_selector("#table-page[data-connection='live']")
    assert page.locator("#gnubg-hint").count() == 0
    page.goto(f"{server.url}/tables/{practice.pk}/")
    page.wait_for_selector("#table-page[data-connection='live']")
    match = Match.objects.get(table=practice)
    deadline = time.monotonic() + 120
    while load_state(match).player_to_act != 0:  # the bot (on the worker) acts first
        assert time.monotonic() < deadline, worker.log()[-3000:]
        time.sleep(0.2)
        match.refresh_from_db()
    page.click("#gnubg-hint-ask")
    page.wait_for_selector("#gnubg-hint[data-status='ready'] #gnubg-hint-plays li",
                           timeout=120_000)
    assert page.locator("#gnubg-hint-plays li").count() >= 1
    context.close()
