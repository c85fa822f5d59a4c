"""A paired tournament player who looks elsewhere gets a browser notification: "your
tournament match is ready", from the pairing notices of the home page."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import User

from matches import services as match_services
from tests.e2e.helpers import PASSWORD, in_thread, log_in, wait_until
from tests.e2e.servers import WebServer
from tests.e2e.test_board_moves import LOOKING_AWAY
from tournaments import services
from tournaments.models import Tournament

pytestmark = [pytest.mark.e2e, pytest.mark.slow, pytest.mark.django_db(transaction=True)]


def test_a_paired_player_looking_away_is_notified_that_the_match_is_ready(
        live_server_process: WebServer, browser: Any) -> None:
    server = live_server_process

    def open_registration() -> int:
        director = User.objects.create_user("td", password=PASSWORD, is_staff=True,
                                            is_superuser=True)
        tournament = Tournament.objects.create(director=director, name="Night cup",
                                               match_lengths=[1], is_rated=False,
                                               seeding="rating")
        services.tournament_open_registration(tournament_id=tournament.pk, actor=director)
        for name in ("tina", "tom"):
            player = match_services.player_for_user(
                User.objects.create_user(name, password=PASSWORD))
            services.entry_register(tournament_id=tournament.pk, player=player)
        return tournament.pk

    tournament_id = in_thread(open_registration)
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.add_init_script(LOOKING_AWAY)
    page = context.new_page()
    page.set_default_timeout(10_000)
    log_in(page, server, "tina")  # lands on the home page, which carries the notices
    page.wait_for_selector("#pairing-notices", state="attached")
    page.wait_for_timeout(500)  # its socket is open
    assert page.evaluate("window.__notes.length") == 0

    def start() -> None:
        director = User.objects.get(username="td")
        services.tournament_start(tournament_id=tournament_id, actor=director)

    in_thread(start)
    wait_until(page, "window.__notes.length > 0")
    title, body = page.evaluate("window.__notes[0]")
    assert title == "Your tournament match is ready" and "tom" in body
    context.close()
