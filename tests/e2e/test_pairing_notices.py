"""A paired player learns of the pairing at once, in a real browser: the home page and the
lobby they have open show "Your match ... against X" the moment the director starts the
tournament, and the lobby offers them "Sit" at their reserved table."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.db import connection

from matches.services import player_for_user
from tests.e2e.servers import WebServer
from tournaments import services
from tournaments.models import PairingStatus, Tournament

pytestmark = [pytest.mark.e2e, pytest.mark.slow, pytest.mark.django_db(transaction=True)]

PASSWORD = "e2e-Passw0rd!"


def log_in(page: Any, server: WebServer, username: str) -> None:
    page.goto(f"{server.url}/accounts/login/")
    page.fill("#id_username", username)
    page.fill("#id_password", PASSWORD)
    page.click("form.login button[type=submit]")
    page.wait_for_url(f"{server.url}/")


def start_in_thread(tournament_id: int, director: User) -> None:
    try:
        services.tournament_start(tournament_id=tournament_id, actor=director)
    finally:
        connection.close()


def test_players_see_their_new_pairing_live_on_home_and_lobby(
    live_server_process: WebServer, browser: Any, artifacts: Any
) -> None:
    director = User.objects.create_superuser("director", password=PASSWORD)
    tournament = Tournament.objects.create(name="Friday cup", director=director,
                                           seeding="rating", is_rated=False,
                                           over_the_board=False)
    services.tournament_open_registration(tournament_id=tournament.pk, actor=director)
    players = []
    for name, rating in (("yasmin", 1700), ("omid", 1600)):
        player = player_for_user(User.objects.create_user(name, password=PASSWORD))
        player.rating = rating
        player.save()
        services.entry_register(tournament_id=tournament.pk, player=player)
        players.append(player)
    home = browser.new_context().new_page()
    lobby = browser.new_context().new_page()
    try:
        log_in(home, live_server_process, "yasmin")
        log_in(lobby, live_server_process, "omid")
        lobby.goto(f"{live_server_process.url}/lobby/")
        for page in (home, lobby):
            assert page.locator(".pairing-notice").count() == 0
        home.wait_for_timeout(500)  # both sockets open

        # The director starts it from another thread: this one runs Playwright's event
        # loop, where the after-commit broadcast could not be sent.
        with ThreadPoolExecutor(1) as pool:
            pool.submit(start_in_thread, tournament.pk, director).result()
        row = tournament.pairings.get(status=PairingStatus.PAIRED)
        home.wait_for_selector(".pairing-notice", timeout=10_000)
        lobby.wait_for_selector(".pairing-notice", timeout=10_000)
        assert "against omid" in home.locator(".pairing-notice").inner_text()
        assert f"table {row.board_number}" in home.locator(".pairing-notice").inner_text()
        assert "against yasmin" in lobby.locator(".pairing-notice").inner_text()
        link = lobby.locator(".pairing-notice a")
        assert link.get_attribute("href") == f"/tables/{row.table_id}/"
        # The lobby's row for the reserved table offers its player a seat, not only Watch.
        seat_row = lobby.locator(f"tr[data-table-id='{row.table_id}']")
        seat_row.wait_for(timeout=10_000)
        assert seat_row.locator("button.primary").count() == 1
        lobby.screenshot(path=str(artifacts / "lobby-pairing-notice.png"))
    finally:
        home.context.close()
        lobby.context.close()
