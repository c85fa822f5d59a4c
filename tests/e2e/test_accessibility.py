"""axe-core audits the pages a player, a spectator and a director see, in a real browser:
no serious or critical violation (contrast, names, labels, structure) on the lobby, a board
while playing, a review, a profile, a tournament page (Swiss and knockout) and its projector,
the login and the sign-up pages, and the lobby, a board and a tournament in Persian (right
to left); and every page with the site's menu starts with a skip link to its main content.

axe comes from npm (package.json's devDependency; ``make install-test`` runs ``npm ci``).
The page's Content-Security-Policy would refuse the injected script, so the audit's browser
context bypasses it; the pages are the server's own.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import User

from matches.services import player_for_user
from tests.e2e.helpers import PASSWORD, act, in_thread, log_in, seat_two
from tests.e2e.servers import WebServer
from tournaments import services as tournament_services
from tournaments.models import Tournament

pytestmark = [pytest.mark.e2e, pytest.mark.slow, pytest.mark.django_db(transaction=True)]

AXE = Path(__file__).resolve().parents[2] / "node_modules" / "axe-core" / "axe.min.js"
FAILING = ("serious", "critical")

AUDIT = """async () => {
    const result = await axe.run(document, {resultTypes: ['violations']});
    return result.violations.map(v => ({
        id: v.id, impact: v.impact, help: v.help,
        nodes: v.nodes.map(n => ({target: n.target.join(' '), summary: n.failureSummary})),
    }));
}"""


@pytest.fixture(autouse=True)
def _scripted_dice(settings: Any) -> None:
    settings.TAVLA_SCRIPTED_DICE = True


def audit(page: Any) -> list[dict[str, Any]]:
    """axe's serious and critical violations on the page as it is now."""
    page.add_script_tag(path=str(AXE))
    return [v for v in page.evaluate(AUDIT) if v["impact"] in FAILING]


def readable(violations: dict[str, list[dict[str, Any]]]) -> str:
    lines = []
    for name, found in violations.items():
        for violation in found:
            lines.append(f"{name}: {violation['impact']} {violation['id']}: {violation['help']}")
            for node in violation["nodes"][:8]:
                summary = " ".join(node["summary"].split())
                lines.append(f"    {node['target']}  {summary[:220]}")
            if len(violation["nodes"]) > 8:
                lines.append(f"    ... and {len(violation['nodes']) - 8} more")
    return "\n".join(lines)


def a_tournament(name: str, players: int, **fields: Any) -> Tournament:
    """A started event of ``players`` (``fields``: its format and options), seeded by rating."""
    def create() -> Tournament:
        director, _ = User.objects.get_or_create(
            username="director", defaults={"is_staff": True, "is_superuser": True})
        tournament = Tournament.objects.create(name=name, director=director, seeding="rating",
                                               match_lengths=[3], is_rated=False, **fields)
        tournament_services.tournament_open_registration(tournament_id=tournament.pk,
                                                         actor=director)
        for number in range(players):
            user = User.objects.create_user(f"{name[:4].lower()}{number}", password=PASSWORD)
            player = player_for_user(user)
            player.rating = 1600 - number * 25
            player.save(update_fields=["rating"])
            tournament_services.entry_register(tournament_id=tournament.pk, player=player)
        tournament_services.tournament_start(tournament_id=tournament.pk, actor=director)
        return tournament

    return in_thread(create)


def test_axe_finds_no_serious_or_critical_violation_on_any_page(
        live_server_process: WebServer, browser: Any, artifacts: Path) -> None:
    if not AXE.exists():
        pytest.fail(f"{AXE} is missing: run `npm ci` (make install-test does)")
    server = live_server_process
    finished = seat_two(("rita", "ralf"), [[3, 1], [6, 4]], cube_enabled=False, match_length=1)
    act(finished.pk, 0, "play", "8/5 6/5")
    act(finished.pk, 1, "resign")
    playing = seat_two(("sara", "sami"), [[6, 1], [5, 3]], match_length=3)
    # Swiss: standings and a round's pairings. Six in a knockout: seeds, byes, sides to come.
    swiss = a_tournament("Club night", 4, format="swiss", format_options={"rounds": 3})
    knockout = a_tournament("Cup final", 6, format="single_elimination")

    violations: dict[str, list[dict[str, Any]]] = {}
    skip_links: dict[str, str | None] = {}

    def check(page: Any, name: str, path: str, ready: str = "main", menu: bool = True) -> None:
        page.goto(f"{server.url}{path}")
        page.wait_for_selector(ready)
        found = audit(page)
        if found:
            violations[name] = found
        if not menu:  # the projector: a screen for the room, no menu to skip
            return
        skip_links[name] = page.evaluate(
            """() => { const a = document.querySelector('a.skip-link');
                       return a && document.querySelector(a.getAttribute('href'))
                           ? 'ok' : null; }""")

    anonymous = browser.new_context(viewport={"width": 1280, "height": 900}, bypass_csp=True)
    page = anonymous.new_page()
    page.set_default_timeout(15_000)
    check(page, "login", "/accounts/login/")
    check(page, "sign-up", "/accounts/signup/")
    for name, event in (("Swiss", swiss), ("knockout", knockout)):
        check(page, f"projector ({name})", f"/tournaments/{event.pk}/projector/", ready=".slide",
              menu=False)
    anonymous.close()

    context = browser.new_context(viewport={"width": 1280, "height": 900}, bypass_csp=True)
    page = context.new_page()
    page.set_default_timeout(15_000)
    log_in(page, server, "sara")
    check(page, "lobby", "/lobby/")
    check(page, "board", f"/tables/{playing.table_id}/",
          ready="#table-page[data-connection='live']")
    page.screenshot(path=str(artifacts / "axe-board.png"))
    check(page, "review", f"/matches/{finished.pk}/", ready="#review[data-step='0']")
    check(page, "profile", f"/players/{finished.player0_id}/")
    check(page, "tournament (Swiss)", f"/tournaments/{swiss.pk}/")
    check(page, "tournament (knockout)", f"/tournaments/{knockout.pk}/")
    check(page, "tournaments", "/tournaments/")
    # right to left, in Persian: the same pages mirrored, their own words and digits
    context.add_cookies([{"name": "django_language", "value": "fa", "url": server.url}])
    check(page, "lobby (fa)", "/lobby/")
    assert page.get_attribute("html", "dir") == "rtl"
    check(page, "board (fa)", f"/tables/{playing.table_id}/",
          ready="#table-page[data-connection='live']")
    check(page, "tournament (knockout, fa)", f"/tournaments/{knockout.pk}/")
    context.close()

    assert violations == {}, "axe:\n" + readable(violations)
    # the skip link is the first tab stop and leads into <main>
    assert [name for name, ok in skip_links.items() if not ok] == []
    page = browser.new_page()
    page.goto(f"{server.url}/lobby/")
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.className") == "skip-link"
    page.keyboard.press("Enter")
    assert page.evaluate("document.activeElement.id") == "main"
    page.close()
