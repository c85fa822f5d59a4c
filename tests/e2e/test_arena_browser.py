"""An arena in real browsers: two players join from the arena page and are taken to their
match as soon as they are paired; a watching browser's leaderboard follows the result
without a reload."""

from __future__ import annotations

import re
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.db import connection
from django.utils import timezone
from playwright.sync_api import expect

from matches import services as match_services
from matches.services import player_for_user
from seasons import services
from seasons.models import ArenaGame
from tests.e2e.servers import WebServer
from tests.e2e.test_pairing_notices import PASSWORD, log_in

pytestmark = [pytest.mark.e2e, pytest.mark.slow, pytest.mark.django_db(transaction=True)]


def forfeit_in_thread(match_id: int, loser_id: int) -> None:
    """In another thread: this one runs Playwright's event loop, where the after-commit
    broadcast could not be sent."""
    try:
        game = ArenaGame.objects.select_related("player_a", "player_b").get(match_id=match_id)
        loser = game.player_a if game.player_a_id == loser_id else game.player_b
        match_services.match_forfeit(match_id=match_id, loser=loser, reason="arena e2e")
    finally:
        connection.close()


def test_players_join_are_sent_to_their_match_and_the_board_updates_live(
        live_server_process: WebServer, browser: Any, artifacts: Any) -> None:
    server = live_server_process
    now = timezone.now()
    arena = services.arena_create(name="Evening arena", starts_at=now - timedelta(seconds=1),
                                  ends_at=now + timedelta(hours=1), match_length=1)
    for name in ("leyla", "mert"):
        player_for_user(User.objects.create_user(name, password=PASSWORD))
    pages = [browser.new_context().new_page() for _ in range(3)]
    leyla, mert, watcher = pages
    try:
        watcher.goto(f"{server.url}/arenas/{arena.pk}/")
        watcher.wait_for_selector("#tournament-live[data-socket=open]", timeout=10_000)
        assert "Nobody has joined yet" in watcher.inner_text(".arena-board")
        for page, name in ((leyla, "leyla"), (mert, "mert")):
            log_in(page, server, name)
            page.goto(f"{server.url}/arenas/{arena.pk}/")
            page.wait_for_selector("#tournament-live[data-socket=open]", timeout=10_000)
        leyla.click("text=Join the arena")
        watcher.wait_for_selector(".arena-board tr[data-player]", timeout=10_000)
        mert.click("text=Join the arena")
        # Paired at once: both are taken to the table of their match.
        for page in (leyla, mert):
            page.wait_for_url(f"{server.url}/tables/*/", timeout=15_000)
        game = ArenaGame.objects.get(arena=arena)
        assert leyla.url.endswith(f"/tables/{game.match.table_id}/")
        board = watcher.locator(".arena-board tbody tr")
        expect(board).to_have_count(2, timeout=10_000)
        expect(board.filter(has_text="playing")).to_have_count(2, timeout=10_000)
        mert_id = player_for_user(User.objects.get(username="mert")).pk
        with ThreadPoolExecutor(1) as pool:
            pool.submit(forfeit_in_thread, game.match_id, mert_id).result()
        # The watcher's leaderboard shows leyla first with 2 points, without a reload.
        expect(board.first).to_contain_text("leyla", timeout=10_000)
        expect(board.first.locator(".arena-points")).to_have_text(re.compile(r"^\s*2\b"),
                                                                  timeout=10_000)
        expect(board.nth(1).locator(".arena-points")).to_have_text(re.compile(r"^\s*0\b"))
        watcher.screenshot(path=str(artifacts / "arena-leaderboard.png"))
    finally:
        for page in pages:
            page.context.close()
