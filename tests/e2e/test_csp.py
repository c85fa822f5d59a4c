"""The Content Security Policy (only the site's own origin, nothing inline) breaks no page.

Chromium reports every blocked script, style, image, font or socket as a
``securitypolicyviolation`` event; each page below must load and work with none.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import User

from matches import services
from matches.demo.tables import seed_match_demo
from matches.models import Match, MatchStatus
from tests.e2e.servers import WebServer
from tournaments.demo import seed_demo_tournament
from tournaments.models import Tournament

pytestmark = [pytest.mark.e2e, pytest.mark.slow, pytest.mark.django_db(transaction=True)]

RECORD_VIOLATIONS = """
window.__csp = [];
document.addEventListener("securitypolicyviolation", (event) => {
  window.__csp.push(`${event.violatedDirective} ${event.blockedURI} ${event.sourceFile}:` +
                    `${event.lineNumber}`);
});
"""


def _violations(page: Any, url: str, console: list[str], ready: str) -> list[str]:
    console.clear()
    page.goto(url)
    page.wait_for_selector(ready, state="attached", timeout=15_000)
    page.wait_for_timeout(300)  # late scripts, sockets, images
    found = list(page.evaluate("window.__csp"))
    return found + [text for text in console if "Content Security Policy" in text]


def test_lobby_board_tournament_admin_and_api_docs_run_without_a_violation(
        live_server_process: WebServer, browser: Any) -> None:
    server = live_server_process
    seed_match_demo(lambda line: None)
    tournament = seed_demo_tournament(lambda line: None)
    User.objects.create_superuser("csp-admin", password="csp-Passw0rd!")
    first, second = (services.player_for_user(User.objects.create_user(name, password="x-pass-1"))
                     for name in ("csp-a", "csp-b"))
    table = services.table_create(name="CSP table", match_length=3)
    services.table_sit(table_id=table.pk, player=first)
    services.table_sit(table_id=table.pk, player=second)
    match = Match.objects.get(table=table, status=MatchStatus.PLAYING)
    assert Tournament.objects.filter(pk=tournament.pk).exists()

    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.add_init_script(RECORD_VIOLATIONS)
    page = context.new_page()
    console: list[str] = []
    page.on("console", lambda message: console.append(message.text))

    anonymous = [
        ("/", "header.site"),
        ("/lobby/", "header.site"),
        (f"/tables/{table.pk}/", "svg"),
        ("/tournaments/", "header.site"),
        (f"/tournaments/{tournament.pk}/", "#tournament-live"),
        ("/accounts/login/", "form.login"),
        ("/api/docs/", ".swagger-ui .info"),
    ]
    for path, ready in anonymous:
        assert _violations(page, server.url + path, console, ready) == [], path

    page.goto(f"{server.url}/admin/login/")
    page.fill("#id_username", "csp-admin")
    page.fill("#id_password", "csp-Passw0rd!")
    page.click("input[type=submit]")
    page.wait_for_url(f"{server.url}/admin/")
    admin = [
        ("/admin/", "#content"),
        ("/admin/matches/match/", "#changelist"),
        (f"/admin/matches/match/{match.pk}/change/", "#content"),
        (f"/admin/matches/match/{match.pk}/replay/", "svg"),
        (f"/admin/matches/table/{table.pk}/change/", "#table_form"),
        ("/admin/tournaments/tournament/", "#changelist"),
        (f"/admin/tournaments/tournament/{tournament.pk}/change/", "#content"),
    ]
    for path, ready in admin:
        assert _violations(page, server.url + path, console, ready) == [], path
    # The language menu still submits itself (its handler moved out of the HTML).
    page.goto(f"{server.url}/lobby/")
    page.select_option("select[name=language]", "fa")
    page.wait_for_selector("html[dir=rtl]", timeout=10_000)
    context.close()
