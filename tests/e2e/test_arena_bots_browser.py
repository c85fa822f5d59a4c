"""An arena of bots in real browsers: the director adds gnubg bots with the arena page's form,
the bot worker plays their matches, and a watching browser's leaderboard follows without a
reload."""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest
from django.contrib.auth.models import Permission, User
from django.utils import timezone
from playwright.sync_api import expect

from matches.services import player_for_user
from seasons import services
from tests.conftest import CeleryWorkerProcess, start_celery_worker, subprocess_env
from tests.e2e.servers import WebServer
from tests.e2e.test_pairing_notices import PASSWORD, log_in

pytestmark = [pytest.mark.e2e, pytest.mark.slow, pytest.mark.celery,
              pytest.mark.django_db(transaction=True)]


@pytest.fixture
def bot_worker() -> Iterator[CeleryWorkerProcess]:
    worker = start_celery_worker(subprocess_env(TAVLA_BOT_PAUSE="0,0"), name="arena-bots-e2e",
                                 queues="bots,analysis")
    try:
        yield worker
    finally:
        worker.stop()


def test_a_director_adds_bots_and_the_watchers_leaderboard_follows_their_play(
        live_server_process: WebServer, browser: Any, bot_worker: CeleryWorkerProcess,
        artifacts: Any) -> None:
    server = live_server_process
    now = timezone.now()
    user = User.objects.create_user("organiser", password=PASSWORD)
    user.user_permissions.add(Permission.objects.get(codename="add_arena"))
    player_for_user(user)
    arena = services.arena_create(name="Bot evening", starts_at=now - timedelta(seconds=1),
                                  ends_at=now + timedelta(hours=1), match_length=1)
    director, watcher = (browser.new_context().new_page() for _ in range(2))
    try:
        watcher.goto(f"{server.url}/arenas/{arena.pk}/")
        watcher.wait_for_selector("#tournament-live[data-socket=open]", timeout=10_000)
        assert watcher.locator("#add-bots").count() == 0  # not the watcher's to direct
        log_in(director, server, "organiser")
        director.goto(f"{server.url}/arenas/{arena.pk}/")
        director.select_option("#add-bots select[name=strength]", "beginner")
        director.fill("#add-bots input[name=count]", "3")
        director.click("#add-bots button[type=submit]")
        expect(director.locator("body")).to_contain_text("3 bots joined the arena",
                                                         timeout=10_000)
        board = watcher.locator(".arena-board tbody tr")
        expect(board).to_have_count(3, timeout=10_000)
        expect(board.filter(has_text="playing")).to_have_count(2, timeout=10_000)
        # The bot worker plays the match through; its winner leads with 2 points, live.
        expect(board.first.locator(".arena-points")).to_have_text(re.compile(r"^\s*[24]\b"),
                                                                  timeout=180_000)
        expect(board.first).to_contain_text("GNU Backgammon (Beginner)")
        watcher.screenshot(path=str(artifacts / "arena-bots-leaderboard.png"))
    finally:
        for page in (director, watcher):
            page.context.close()
