"""Two browsers open their boards of a new match: each sends 32 bytes from
crypto.getRandomValues as its client seed, and the first roll follows at once."""

from __future__ import annotations

import re
import time
from typing import Any

import pytest
from django.contrib.auth.models import User

from matches import services
from matches.models import Match, MatchStatus
from tests.e2e.servers import WebServer
from tests.e2e.test_live_game import PASSWORD, log_in

pytestmark = [pytest.mark.e2e, pytest.mark.slow, pytest.mark.django_db(transaction=True)]


def test_both_boards_contribute_a_random_seed_before_the_first_roll(
        live_server_process: WebServer, browser: Any, settings: Any) -> None:
    settings.TAVLA_CLIENT_SEED_SECONDS = 60  # the match below starts in this process
    players = [services.player_for_user(User.objects.create_user(name, password=PASSWORD))
               for name in ("seed-alice", "seed-bob")]
    table = services.table_create(name="Seeded table", match_length=1)
    for player in players:
        services.table_sit(table_id=table.pk, player=player)
    match = Match.objects.get(table=table, status=MatchStatus.PLAYING)
    assert match.client_seeds_due is not None and not match.events.filter(
        kind="opening_roll").exists()

    contexts = [browser.new_context() for _ in players]
    try:
        for context, player in zip(contexts, players, strict=True):
            page = context.new_page()
            log_in(page, live_server_process, player.user.username)
            page.goto(f"{live_server_process.url}/tables/{table.pk}/")
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            match.refresh_from_db()
            if match.client_seeds_due is None:
                break
            time.sleep(0.2)
        assert match.client_seeds_due is None, "the boards did not send their seeds"
        seeds = (match.client_seed0 or "", match.client_seed1 or "")
        assert all(re.fullmatch(r"[0-9a-f]{64}", seed) for seed in seeds), seeds
        assert seeds[0] != seeds[1]
        assert match.events.filter(kind="opening_roll").exists()
    finally:
        for context in contexts:
            context.close()
