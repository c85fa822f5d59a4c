"""What a newcomer tripped on (issue 24), each checked in a real browser against the session's
server: the turn row of a bot table within a 1280x720 window, no page wider than a 360 px
phone, a review's move numbers beside the first line of their entry, whole-number ratings,
a tournament's messages shown once and no rematch offered after a tournament match.

(The chat's fixes, which a socket proves, are in tests/matches/test_chat.py.)"""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.utils import timezone

from matches import services
from matches.gnubg.bots import bot_player
from matches.gnubg.evaluation import analysis_run
from matches.models import Match, MatchStatus, Table
from matches.state import load_state
from seasons import services as season_services
from tests.e2e.helpers import PASSWORD, act, in_thread, log_in, open_table, seat_two, wait_until
from tests.e2e.servers import WebServer
from tournaments import services as tournament_services
from tournaments.models import Pairing, Tournament

pytestmark = [pytest.mark.e2e, pytest.mark.slow, pytest.mark.django_db(transaction=True)]

# Long names without a space, as the newcomer's were: nothing may widen the page for them.
LONG = ("nazanin_hosseini_2026", "mehmet_yildirim_2026")


def _bot_table(username: str) -> int:
    """A bot table as "Play the bot" makes it (private, its creator in seat 0, the bot in
    seat 1), with the opening roll scripted so that the person moves first."""
    def make() -> int:
        user = (User.objects.filter(username=username).first()
                or User.objects.create_user(username, password=PASSWORD))
        human = services.player_for_user(user)
        table = services.table_create(name=f"{username} – bot", creator=human, is_public=False,
                                      match_length=1)
        Table.objects.filter(pk=table.pk).update(scripted_dice=[[3, 1]])
        services.table_sit(table_id=table.pk, player=human, seat=0)
        services.table_sit(table_id=table.pk, player=bot_player("intermediate"), seat=1,
                           invite=table.invite_token)
        return table.pk

    return in_thread(make)


def test_the_turn_row_of_a_bot_table_fits_a_1280x720_window(
        live_server_process: WebServer, browser: Any, artifacts: Path, settings: Any) -> None:
    server = live_server_process
    settings.TAVLA_SCRIPTED_DICE = True
    table_id = _bot_table("bea")
    page = open_table(browser, server, "bea", table_id, viewport={"width": 1280, "height": 720})
    page.wait_for_selector("#table-page[data-phase='move']", state="attached")
    confirm = page.locator("#controls button[data-act='confirm']")
    confirm.wait_for(state="visible")
    for selector in ("#status", "#controls button[data-act='confirm']", "#player-bottom"):
        box = page.locator(selector).bounding_box()
        assert box is not None and box["y"] + box["height"] <= 720, (selector, box)
    # The creator's invitation link moved out of the way, and is still there to copy.
    assert page.locator(".side form.invitation #invite-link").is_visible()
    page.screenshot(path=str(artifacts / "e2e-bot-table-1280x720.png"))
    assert page.js_errors == []
    page.context.close()


def _finished_public_match() -> tuple[int, int]:
    """A finished 1-point match between two long-named players at a public table, analysed:
    (match id, table id)."""
    match = seat_two(LONG, [[3, 1]], match_length=1)
    act(match.pk, 0, "resign")
    analysis_run(match.pk)  # gnubg on this (main) thread; nothing is broadcast
    return match.pk, match.table_id


def _started_tournament(director_name: str, names: tuple[str, str]) -> int:
    def make() -> int:
        director = User.objects.create_user(director_name, password=PASSWORD, is_staff=True,
                                            is_superuser=True)
        tournament = Tournament.objects.create(director=director, name="Newcomers' cup",
                                               match_lengths=[1], is_rated=False,
                                               seeding="rating")
        tournament_services.tournament_open_registration(tournament_id=tournament.pk,
                                                         actor=director)
        for name in names:
            player = services.player_for_user(
                User.objects.filter(username=name).first()
                or User.objects.create_user(name, password=PASSWORD))
            tournament_services.entry_register(tournament_id=tournament.pk, player=player)
        tournament_services.tournament_start(tournament_id=tournament.pk, actor=director)
        return tournament.pk

    return in_thread(make)


PAGE_WIDTH = "document.documentElement.scrollWidth"
# The language menu's right edge (these pages are left to right): inside the screen, not cut off.
MENU_EDGE = ("document.querySelector('header.site select[name=language]')"
             ".getBoundingClientRect().right")


def test_no_page_is_wider_than_a_360_px_screen(live_server_process: WebServer, browser: Any,
                                               artifacts: Path, settings: Any) -> None:
    server = live_server_process
    settings.TAVLA_SCRIPTED_DICE = True
    match_id, table_id = _finished_public_match()
    tournament_id = _started_tournament("director360", LONG)
    bot_table = _bot_table(LONG[0])
    player_id = in_thread(lambda: Match.objects.get(pk=match_id).player0_id)
    arena_id = in_thread(lambda: season_services.arena_create(
        name="A long arena name for a narrow phone", starts_at=timezone.now(),
        ends_at=timezone.now() + timedelta(hours=1)).pk)
    context = browser.new_context(viewport={"width": 360, "height": 740}, is_mobile=True,
                                  has_touch=True)
    page = context.new_page()
    page.set_default_timeout(10_000)
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    for path in ("/accounts/login/", "/accounts/signup/"):
        page.goto(server.url + path)
        assert page.evaluate(PAGE_WIDTH) <= 360, path
    log_in(page, server, LONG[0])
    pages = ["/", "/lobby/", f"/tables/{table_id}/", f"/matches/{match_id}/",
             f"/players/{player_id}/", "/tournaments/", f"/tournaments/{tournament_id}/",
             f"/tournaments/{tournament_id}/results/", f"/players/{player_id}/matches/",
             "/arenas/", f"/arenas/{arena_id}/", "/ladders/", "/leagues/", "/turn/",
             "/vacation/"]
    wide = {}
    for path in pages:
        page.goto(server.url + path)
        width, menu = page.evaluate(PAGE_WIDTH), page.evaluate(MENU_EDGE)
        if width > 360 or menu > 360:
            wide[path] = (width, menu)
            name = path.strip("/").replace("/", "-")
            page.screenshot(path=str(artifacts / f"e2e-360-{name}.png"))
    # and a board being played, with its buttons
    page.goto(f"{server.url}/tables/{bot_table}/")
    page.wait_for_selector("#table-page[data-phase='move']", state="attached")
    if page.evaluate(PAGE_WIDTH) > 360:
        wide["bot table"] = page.evaluate(PAGE_WIDTH)
    assert wide == {}
    assert errors == []
    context.close()


# Where an entry's list marker is drawn: on its first line box's baseline, where an inline
# probe put first in the item sits too. Answers (probe top - entry top, line height).
MARKER_LINE = """(item) => {
  const probe = document.createElement('span');
  probe.textContent = '\\u200b';
  item.prepend(probe);
  const top = probe.getBoundingClientRect().top - item.getBoundingClientRect().top;
  probe.remove();
  return [top, parseFloat(getComputedStyle(item).lineHeight) || 24];
}"""


def test_review_numbers_sit_beside_the_first_line_and_ratings_are_whole(
        live_server_process: WebServer, browser: Any, settings: Any) -> None:
    server = live_server_process
    settings.TAVLA_SCRIPTED_DICE = True
    match_id, _table_id = _finished_public_match()
    player_id = in_thread(lambda: Match.objects.get(pk=match_id).player0_id)
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.set_default_timeout(10_000)
    page.goto(f"{server.url}/matches/{match_id}/")
    page.wait_for_selector("#review[data-step]")
    entry = page.locator("#moves li.ev").first  # the opening roll, with both long names
    height = entry.locator(".ev-link").bounding_box()["height"]
    top, line = entry.evaluate(MARKER_LINE)
    assert height > 1.8 * line, "the entry wraps (else this proves nothing)"
    assert top < line, f"the number sits {top}px down a {height}px entry"

    page.goto(f"{server.url}/players/{player_id}/")
    rating = page.locator("dd.rating").inner_text()
    assert rating.isdigit(), rating
    change = page.locator("table.matches:not(.opponents) tbody tr td").nth(5).inner_text()
    assert change == "" or len(change.split(".")[-1]) == 1, change
    context.close()


def test_a_tournament_match_offers_no_rematch_and_messages_show_once(
        live_server_process: WebServer, browser: Any) -> None:
    server = live_server_process

    def open_registration() -> int:
        director = User.objects.create_user("td", password=PASSWORD, is_staff=True,
                                            is_superuser=True)
        tournament = Tournament.objects.create(director=director, name="Rematch cup",
                                               match_lengths=[1], is_rated=False,
                                               seeding="rating")
        tournament_services.tournament_open_registration(tournament_id=tournament.pk,
                                                         actor=director)
        for name in ("tina", "tom"):
            User.objects.create_user(name, password=PASSWORD)
        tournament_services.entry_register(
            tournament_id=tournament.pk,
            player=services.player_for_user(User.objects.get(username="tina")))
        return tournament.pk

    tournament_id = in_thread(open_registration)
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.set_default_timeout(10_000)
    log_in(page, server, "tom")
    page.goto(f"{server.url}/tournaments/{tournament_id}/")
    page.click(f"form[action$='/tournaments/{tournament_id}/register/'] button")
    page.wait_for_selector(".messages li")
    assert page.locator(".messages li").all_inner_texts() == ["You are registered."]

    def play_it_out() -> int:
        director = User.objects.get(username="td")
        tournament_services.tournament_start(tournament_id=tournament_id, actor=director)
        table = Pairing.objects.get(tournament_id=tournament_id, table__isnull=False).table
        for name in ("tina", "tom"):
            services.table_sit(table_id=table.pk, player=services.player_for_user(
                User.objects.get(username=name)))
        return table.pk

    table_id = in_thread(play_it_out)
    match = in_thread(lambda: Match.objects.get(table_id=table_id))
    seat = in_thread(lambda: load_state(match).player_to_act)
    act(match.pk, seat, "resign")
    if in_thread(lambda: Match.objects.get(pk=match.pk).status) == MatchStatus.PLAYING:
        act(match.pk, 1 - seat, "accept_resign")  # a table whose resignations are offers
    page.goto(f"{server.url}/tables/{table_id}/")
    page.wait_for_selector("#table-page[data-connection='live']")
    wait_until(page, "!document.querySelector('#panel').hidden")
    assert page.locator("#panel .match-result").is_visible()
    assert page.locator("#panel [data-act^='rematch']").count() == 0
    assert page.get_attribute("#table-page", "data-rematch") == "0"
    context.close()
