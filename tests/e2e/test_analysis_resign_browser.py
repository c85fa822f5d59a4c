"""A resignation in the review, in a real browser, on a match whose resignation offers gnubg
judged (no mock): choosing the offer's row moves the board to the position it was made in
and shows what playing on and resigning were worth, what was chosen with its mark, and the
better choice; no arrows are drawn. Screenshot: ``test-artifacts/e2e-analysis-resign.png``."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import override_settings

from matches import services
from matches.gnubg.evaluation import analysis_run
from matches.models import Match, MatchAnalysis, Table
from tests.e2e.helpers import in_thread
from tests.e2e.servers import WebServer

pytestmark = [pytest.mark.e2e, pytest.mark.slow, pytest.mark.django_db(transaction=True)]


def _act(match: Match, seat: int, action: str, **extra: Any) -> None:
    match.refresh_from_db()
    player = match.player0 if seat == 0 else match.player1
    services.match_act(match_id=match.pk, player=player, action=action,
                       expected_version=match.version, **extra)


@pytest.fixture(scope="module")
def resigned_match(django_db_setup: None, django_db_blocker: Any) -> Iterator[int]:
    """A 1-point match: player 0 plays the opening 3-1, player 1 offers a backgammon
    (refused), then a single game (accepted); analysed before the browser starts."""
    with django_db_blocker.unblock(), override_settings(
            TAVLA_SCRIPTED_DICE=True, TAVLA_CLIENT_SEED_SECONDS=0):
        players = [services.player_for_user(User.objects.create_user(
            username=name, password="pass-" + name)) for name in ("resa", "resb")]
        table = services.table_create(name="Resign", match_length=1, resignation="offer")
        Table.objects.filter(pk=table.pk).update(scripted_dice=[[3, 1], [6, 4], [5, 2]])
        table.refresh_from_db()
        for player in players:
            services.table_sit(table_id=table.pk, player=player, invite=table.invite_token)
        match = Match.objects.filter(table=table).latest("pk")
        _act(match, 0, "play", play="8/5 6/5")
        _act(match, 1, "resign", level=3)
        _act(match, 0, "reject_resign")
        _act(match, 1, "resign", level=1)
        _act(match, 0, "accept_resign")
        analysis_run(match.pk)
        yield match.pk


def test_a_resignation_row_shows_its_position_and_equities(
        resigned_match: int, live_server_process: WebServer, browser: Any,
        artifacts: Path) -> None:
    match_id = resigned_match
    rows = in_thread(lambda: [d for d in MatchAnalysis.objects.get(match_id=match_id).decisions
                              if d["kind"] != "no_double" or d["counted"]])
    number = next(i for i, d in enumerate(rows) if d["kind"] == "resign")
    page = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
    page.set_default_timeout(10_000)
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(f"{live_server_process.url}/matches/{match_id}/")
    page.wait_for_selector("#review[data-step]")
    row = page.locator(f"tr.decision[data-decision='{number}']")
    assert row.get_attribute("data-kind") == "resign"
    frame = int(row.get_attribute("data-frame"))
    row.locator("button.decision-link").click()
    page.wait_for_selector("#decision-detail table.resign-equities")
    page.wait_for_selector(f"#review[data-step='{frame}']")
    assert page.locator("#decision-detail table.resign-equities tr").count() == 2
    # playing on was worth more than giving a backgammon away: it is the bold one
    assert page.locator("#decision-detail tr.best").get_attribute("data-equity") == "play_on"
    detail = page.text_content("#decision-detail") or ""
    assert "resign a backgammon??" in detail and "play on" in detail
    assert page.locator("#board g.arrows g").count() == 0
    page.screenshot(path=str(artifacts / "e2e-analysis-resign.png"), full_page=True)
    assert errors == []
