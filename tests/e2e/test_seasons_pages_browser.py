"""A league and a ladder in real browsers.

A director creates a league on its form (correspondence, two divisions), enrols six players,
starts the season, and a player finds their division on the league's page. On a ladder two
players join from their own browsers, one challenges, the other accepts and both are at the
match's table. Both pages: no serious or critical axe violation, no sideways scroll at
360 px, and in Persian the page is marked Persian and right to left, and every English
phrase left on it is one of our strings marked for translation (the catalogue is filled when
the lead translates; the strings must be there for it).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import User
from playwright.sync_api import expect

from matches.services import player_for_user
from seasons import services
from seasons.models import LadderChallenge, League
from tests.e2e.helpers import PASSWORD, in_thread, log_in
from tests.e2e.servers import WebServer
from tests.e2e.test_accessibility import AXE, audit, readable
from tests.e2e.test_languages import SEEN
from tests.test_translations import english_left, fresh_msgids  # noqa: F401 - the fixture

pytestmark = [pytest.mark.e2e, pytest.mark.slow, pytest.mark.django_db(transaction=True)]

PHONE = {"width": 360, "height": 740}
# Where one string of ours ends and the next begins in a page's text.
SEPARATORS = re.compile(r"\s*(?:\n|\t| · | — )\s*")
PLACEHOLDER = re.compile(r"%\(\w+\)[sd]|%[sd]")


def phrase_patterns(msgids: set[tuple[str | None, str, str]]) -> list[re.Pattern[str]]:
    """Each msgid (and plural) as a pattern of the text it shows (placeholders match any
    text), the longest first; strings of fewer than four letters of their own are left out
    (they would match anywhere)."""
    found = []
    for _context, *texts in msgids:
        for text in texts:
            parts = PLACEHOLDER.split(re.sub(r"<[^>]+>", "", text.replace("%%", "%")))
            parts = [" ".join(p.split()) for p in parts]
            if sum(len(p) for p in parts) < 4:
                continue
            pattern = re.compile(r".+?".join(re.escape(p) for p in parts), re.S)
            found.append((sum(len(p) for p in parts), pattern))
    return [pattern for _length, pattern in sorted(found, key=lambda f: -f[0])]


def unmarked_english(texts: list[str], data: list[str],
                     patterns: list[re.Pattern[str]]) -> list[str]:
    """The English in ``texts`` (what a page shows) that no string of ours accounts for:
    each piece, once the data (names) and every string of ours found in it are taken out."""
    found = []
    for text in texts:
        for piece in SEPARATORS.split(text or ""):
            rest = " ".join(piece.split())
            for kept in sorted(data, key=len, reverse=True):
                rest = rest.replace(kept, " ")
            if not english_left([rest]):
                continue
            for pattern in patterns:
                rest = pattern.sub(" ", rest)
            if english_left([rest]):
                found.append(f"{' '.join(rest.split())!r} in {piece!r}")
    return found


def test_the_check_sees_english_that_is_not_ours() -> None:
    patterns = phrase_patterns({(None, "You play in division %(number)s.", ""),
                                (None, "Season %(number)s", ""),
                                (None, "%(count)s player enrolled.",
                                 "%(count)s players enrolled.")})
    shown = ["You play in division ۲. Season ۱\t6 players enrolled.", "ayda\tNasrin"]
    assert unmarked_english(shown, ["ayda", "Nasrin"], patterns) == []
    assert unmarked_english(["You play in division ۲. Close the season"], [], patterns) == [
        "'Close the season' in 'You play in division ۲. Close the season'"]
    assert unmarked_english(["ayda wins"], [], patterns) == ["'ayda wins' in 'ayda wins'"]


def check_page(browser: Any, server: WebServer, user: str, path: str, ready: str,
               data: list[str], patterns: list[re.Pattern[str]], artifacts: Path,
               name: str) -> None:
    """axe at a desktop width, no sideways scroll at 360 px, and the Persian page."""
    desktop = browser.new_context(viewport={"width": 1280, "height": 900}, bypass_csp=True)
    page = desktop.new_page()
    page.set_default_timeout(15_000)
    log_in(page, server, user)
    page.goto(f"{server.url}{path}")
    page.wait_for_selector(ready)
    found = audit(page)
    assert found == [], "axe:\n" + readable({name: found})
    desktop.add_cookies([{"name": "django_language", "value": "fa", "url": server.url}])
    page.goto(f"{server.url}{path}")
    page.wait_for_selector(ready)
    assert page.get_attribute("html", "lang") == "fa"
    assert page.get_attribute("html", "dir") == "rtl"
    found = audit(page)
    assert found == [], "axe (fa):\n" + readable({name: found})
    assert unmarked_english(page.evaluate(SEEN), data, patterns) == []
    page.screenshot(path=str(artifacts / f"{name}-fa.png"), full_page=True)
    desktop.close()

    phone = browser.new_context(viewport=PHONE, is_mobile=True, bypass_csp=True)
    page = phone.new_page()
    page.set_default_timeout(15_000)
    log_in(page, server, user)
    page.goto(f"{server.url}{path}")
    page.wait_for_selector(ready)
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    page.screenshot(path=str(artifacts / f"{name}-360.png"), full_page=True)
    phone.close()


def make_users(names: list[str], **fields: Any) -> None:
    def make() -> None:
        for number, name in enumerate(names):
            user = User.objects.create_user(name, password=PASSWORD, **fields)
            player = player_for_user(user)
            player.rating = 1700 - 10 * number
            player.save(update_fields=["rating"])

    in_thread(make)


def test_a_director_runs_a_league_and_players_climb_a_ladder(
        live_server_process: WebServer, browser: Any, artifacts: Path,
        fresh_msgids: set[tuple[str | None, str, str]]) -> None:  # noqa: F811
    if not AXE.exists():
        pytest.fail(f"{AXE} is missing: run `npm ci` (make install-test does)")
    server = live_server_process
    patterns = phrase_patterns(fresh_msgids)
    names = ["ayda", "baran", "cyrus", "dara", "elham", "farid"]
    make_users(["Nasrin"], is_staff=True, is_superuser=True)
    make_users(names)

    # -- the director's league -----------------------------------------------------------
    director = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
    director.set_default_timeout(20_000)
    log_in(director, server, "Nasrin")
    director.goto(f"{server.url}/leagues/")
    director.click("text=New league")
    director.fill("#id_name", "Evening league")
    director.fill("#id_divisions", "2")
    director.fill("#id_division_size", "3")
    director.fill("#id_match_length", "1")
    director.select_option("#id_clock", "correspondence")
    director.fill("#id_days", "9")  # out of range: the browser refuses to send it
    director.click("text=Create the league")
    expect(director.locator("#id_days:invalid")).to_have_count(1)
    assert not League.objects.exists()
    director.fill("#id_days", "2")
    director.click("text=Create the league")
    director.wait_for_url(re.compile(r".*/leagues/\d+/$"))
    league = League.objects.get()
    assert league.correspondence_days == 2
    director.fill("#id_enrol-usernames", "ayda, nobody")
    director.click("button:has-text('Enrol')")
    expect(director.locator(".messages")).to_contain_text("nobody")
    assert not league.members.exists()
    director.fill("#id_enrol-usernames", "\n".join(names))
    director.click("button:has-text('Enrol')")
    expect(director.locator(".messages")).to_contain_text("6 players enrolled.")
    director.click("text=Start the first season")
    expect(director.locator(".messages")).to_contain_text("Season 1 has started.")
    expect(director.locator(".league-division")).to_have_count(2)
    director.context.close()

    # The weakest player finds their division (the second) and its page.
    farid = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
    log_in(farid, server, "farid")
    farid.goto(f"{server.url}/leagues/{league.pk}/")
    expect(farid.locator("#my-division")).to_contain_text("division 2")
    farid.click("#my-division a")
    farid.wait_for_url(re.compile(r".*/tournaments/\d+/$"))
    expect(farid.locator("main")).to_contain_text("farid")
    farid.context.close()

    data = [*names, "Nasrin", "Evening league", "Rungs"]
    check_page(browser, server, "farid", f"/leagues/{league.pk}/", ".league-division", data,
               patterns, artifacts, "league")
    check_page(browser, server, "Nasrin", f"/leagues/{league.pk}/", ".league-director", data,
               patterns, artifacts, "league-director")

    # -- a ladder: join, challenge, accept from a second browser --------------------------
    ladder = in_thread(lambda: services.ladder_create(name="Rungs", reach=2))
    pages = {}
    for name in ("ayda", "baran"):
        page = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
        page.set_default_timeout(20_000)
        log_in(page, server, name)
        page.goto(f"{server.url}/ladders/{ladder.pk}/")
        page.wait_for_selector("#tournament-live[data-socket=open]")
        page.click("text=Join the ladder")
        expect(page.locator(".messages")).to_contain_text("You are on the ladder")
        pages[name] = page
    baran, ayda = pages["baran"], pages["ayda"]
    baran.click(".ladder-order button:has-text('Challenge')")
    expect(baran.locator(".messages")).to_contain_text("Challenge sent")
    # Ayda's page hears of it over the socket: her Accept appears without a reload.
    ayda.click("button:has-text('Accept')")
    ayda.wait_for_url(re.compile(r".*/tables/\d+/$"))
    challenge = LadderChallenge.objects.get()
    assert challenge.status == "accepted" and challenge.match is not None
    baran.goto(f"{server.url}/ladders/{ladder.pk}/")
    baran.click(".ladder-challenges a:has-text('the match')")
    baran.wait_for_url(f"{server.url}/tables/{challenge.match.table_id}/")
    for page in pages.values():
        page.context.close()
    check_page(browser, server, "baran", f"/ladders/{ladder.pk}/", ".ladder-order", data,
               patterns, artifacts, "ladder")
