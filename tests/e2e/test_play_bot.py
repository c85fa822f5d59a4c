""""Play the bot" in a real browser: the lobby's form starts a 1-point match against
GNU Backgammon, the bot's moves come from a real Celery worker on the bot queue, the
person plays theirs on the board, and the match ends with a result on the page."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import User

from matches.models import Match, MatchStatus
from matches.state import load_state
from tavla.engine.game import Phase
from tests.conftest import CeleryWorkerProcess, start_celery_worker, subprocess_env
from tests.e2e.servers import WebServer, start_web_server
from tests.e2e.test_live_game import PASSWORD, log_in, point, wait_version

pytestmark = [pytest.mark.e2e, pytest.mark.slow, pytest.mark.celery,
              pytest.mark.django_db(transaction=True)]

PAUSE = "0.05,0.1"


@pytest.fixture(scope="module")
def bot_server(django_db_setup: None, django_db_blocker: Any
               ) -> Iterator[tuple[WebServer, CeleryWorkerProcess]]:
    with django_db_blocker.unblock():
        env = subprocess_env(TAVLA_BOT_PAUSE=PAUSE)
    server = start_web_server(env, name="e2e-bot")
    worker = start_celery_worker(env, name="e2e-bots", queues="bots,analysis")
    try:
        yield server, worker
    finally:
        worker.stop()
        server.stop()


def _human_turn(page: Any, match: Match) -> None:
    """Make the person's decision (seat 0) on the board: roll, take, or the first legal
    play clicked checker by checker; a forced play the board makes by itself."""
    state = load_state(match)
    wait_version(page, match.version)
    if state.phase is Phase.TURN_START:
        page.click("#controls button[data-act='roll']")
    elif state.phase is Phase.CUBE_OFFERED:
        page.click("#controls button[data-act='take']")
    elif state.phase is Phase.MOVE:
        plays = state.legal_plays()
        if len(plays) == 1:
            return
        for move in plays[0].moves:
            page.click(point(move.source))
            page.click(point(move.destination))
        page.click("#controls button[data-act='confirm']:not([disabled])")


def test_play_the_bot_gives_a_full_match_in_the_browser(
        bot_server: tuple[WebServer, CeleryWorkerProcess], browser: Any,
        artifacts: Path) -> None:
    server, worker = bot_server
    User.objects.create_user("henry", password=PASSWORD)
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.set_default_timeout(15_000)
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    log_in(page, server, "henry")
    page.goto(f"{server.url}/lobby/")
    page.select_option("#play-bot select[name=strength]", "intermediate")
    page.select_option("#play-bot select[name=match_length]", "1")
    page.click("#play-bot button[type=submit]")
    page.wait_for_url(f"{server.url}/tables/*/")
    table_id = int(page.url.rstrip("/").rsplit("/", 1)[1])
    match = Match.objects.get(table_id=table_id)
    assert match.player1.is_bot and match.player0.user.username == "henry"
    page.wait_for_selector("#table-page[data-connection='live']")

    deadline = time.monotonic() + 300
    last_version = -1
    while time.monotonic() < deadline:
        match.refresh_from_db()
        if match.is_finished:
            break
        state = load_state(match)
        if state.player_to_act == 0 and match.version != last_version:
            last_version = match.version
            _human_turn(page, match)
        time.sleep(0.1)
    else:
        pytest.fail(f"the match did not end in time:\n{worker.log()[-3000:]}")

    assert match.status == MatchStatus.FINISHED and match.winner_id is not None
    page.wait_for_selector("#panel:not([hidden]) .match-result")
    assert "GNU Backgammon" in (page.text_content("#table-page") or "")
    page.screenshot(path=str(artifacts / "e2e-play-the-bot-final.png"))
    assert errors == []
    context.close()
