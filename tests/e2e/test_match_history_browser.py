"""A player's match history in a real browser: reached from the profile, filtered, a bad
filter shown as a form error, a review link followed; axe finds no serious or critical
violation; and at 360 px the page does not scroll sideways."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import User

from matches import services
from matches.models import Match, MatchStatus, Table
from tests.e2e.helpers import PASSWORD, in_thread, log_in
from tests.e2e.servers import WebServer
from tests.e2e.test_accessibility import AXE, audit, readable
from tests.e2e.test_newcomer_bugs import MENU_EDGE, PAGE_WIDTH

pytestmark = [pytest.mark.e2e, pytest.mark.slow, pytest.mark.django_db(transaction=True)]

# Long names, as a newcomer might choose: the table must scroll in its own box on a phone.
ME = "hanna_with_a_rather_long_name"
RIVALS = ("omid", "pari_also_has_a_long_user_name")


def _history() -> tuple[int, dict[str, int]]:
    """``ME`` wins one 1-point match against the first rival and one against the second, and
    loses one to the first: (my player id, {rival: id of the last match against them})."""
    def make() -> tuple[int, dict[str, int]]:
        me = services.player_for_user(User.objects.create_user(ME, password=PASSWORD))
        rivals = {name: services.player_for_user(User.objects.create_user(
            name, password=PASSWORD)) for name in RIVALS}
        last: dict[str, int] = {}
        for name, i_win in ((RIVALS[0], True), (RIVALS[1], True), (RIVALS[0], False)):
            table = services.table_create(name=f"{ME} v {name}", match_length=1)
            Table.objects.filter(pk=table.pk).update(scripted_dice=[[3, 1]])
            services.table_sit(table_id=table.pk, player=me)
            services.table_sit(table_id=table.pk, player=rivals[name])
            match = Match.objects.get(table=table)
            loser = rivals[name] if i_win else me
            services.match_act(match_id=match.pk, player=loser, action="resign",
                               expected_version=match.version)
            assert Match.objects.get(pk=match.pk).status == MatchStatus.FINISHED
            last[name] = match.pk
        return me.pk, last

    return in_thread(make)


def test_the_history_is_reached_filtered_and_leads_to_a_review(
        live_server_process: WebServer, browser: Any, artifacts: Path, settings: Any) -> None:
    if not AXE.exists():
        pytest.fail(f"{AXE} is missing: run `npm ci` (make install-test does)")
    settings.TAVLA_SCRIPTED_DICE = True
    server = live_server_process
    me, last = _history()
    context = browser.new_context(viewport={"width": 1280, "height": 900}, bypass_csp=True)
    page = context.new_page()
    page.set_default_timeout(15_000)
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    log_in(page, server, ME)

    page.goto(f"{server.url}/players/{me}/")
    page.click("p.all-matches a")
    page.wait_for_url(f"{server.url}/players/{me}/matches/")
    assert page.locator("table.history tbody tr").count() == 3
    found = audit(page)

    # A bad filter: a form error on the page, no rows.
    page.fill("#id_opponent", "nobody-here")
    page.click("form.history-filters button[type=submit]")
    page.wait_for_selector("#id_opponent ~ .errorlist")
    assert page.locator("table.history").count() == 0
    found += audit(page)

    # Only the matches against the second rival, then only those won.
    page.select_option("#id_length", "1")  # the list of lengths: nothing to type
    page.fill("#id_opponent", RIVALS[1])
    page.select_option("#id_result", "won")
    page.click("form.history-filters button[type=submit]")
    page.wait_for_selector("table.history")
    rows = page.locator("table.history tbody tr")
    assert rows.count() == 1
    assert rows.first.get_attribute("data-match") == str(last[RIVALS[1]])
    assert page.input_value("#id_opponent") == RIVALS[1]  # the filters stay filled in
    found += audit(page)
    page.screenshot(path=str(artifacts / "e2e-match-history.png"))
    assert found == [], "axe:\n" + readable({"match history": found})

    # The row's review link opens that match's review on the board.
    rows.first.locator("a.review").click()
    page.wait_for_url(f"{server.url}/matches/{last[RIVALS[1]]}/")
    page.wait_for_selector("#review[data-step='0']")
    assert errors == []
    context.close()

    # A phone: the page does not scroll sideways; the table scrolls in its own box.
    phone = browser.new_context(viewport={"width": 360, "height": 740}, is_mobile=True,
                                has_touch=True)
    page = phone.new_page()
    page.set_default_timeout(15_000)
    log_in(page, server, ME)
    page.goto(f"{server.url}/players/{me}/matches/?result=won")
    page.wait_for_selector("table.history")
    width, menu = page.evaluate(PAGE_WIDTH), page.evaluate(MENU_EDGE)
    if width > 360 or menu > 360:
        page.screenshot(path=str(artifacts / "e2e-360-match-history.png"))
    assert width <= 360 and menu <= 360, (width, menu)
    phone.close()
