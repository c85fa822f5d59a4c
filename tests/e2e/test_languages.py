"""Persian and Turkish in a real browser: the lobby, a board with a match in progress, the
review page and a tournament page show no English (and, in Persian, no Latin digits) once
their scripts have drawn them. Screenshots go to ``test-artifacts/e2e-lang-*.png``."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import User

from matches import services as match_services
from matches.models import Table
from tests.e2e.helpers import PASSWORD, act, in_thread, log_in, seat_two
from tests.e2e.servers import WebServer
from tests.test_translations import english_left

pytestmark = [pytest.mark.e2e, pytest.mark.slow, pytest.mark.django_db(transaction=True)]

# What the reader sees: the text of the page as drawn (hidden elements left out), the
# board's SVG text, and the titles, labels and placeholders of elements.
SEEN = """() => {
  const shown = (el) => el.getClientRects().length > 0;
  const out = [document.body.innerText];
  for (const el of document.querySelectorAll('svg text')) if (shown(el)) out.push(el.textContent);
  for (const el of document.querySelectorAll('[title], [aria-label], [placeholder]')) {
    if (!shown(el)) continue;
    for (const name of ['title', 'aria-label', 'placeholder']) {
      const value = el.getAttribute(name);
      if (value) out.push(value);
    }
  }
  for (const el of document.querySelectorAll('svg title')) out.push(el.textContent);
  return out;
}"""
# Machine values shown as typed or to be checked (the draw seed): kept in Latin digits.
LITERALS = "() => [...document.querySelectorAll('code, pre, kbd')].map((el) => el.textContent)"
# Key names, as printed on Persian and Turkish keyboards too.
KEYS = ("Home", "End")
LATIN_DIGIT = re.compile(r"[0-9]")


@pytest.fixture(autouse=True)
def _scripted_dice(settings: Any) -> None:
    settings.TAVLA_SCRIPTED_DICE = True


def a_started_tournament(names: list[str]) -> int:
    from tournaments import services as tournament_services
    from tournaments.models import Tournament

    def make() -> int:
        director = User.objects.create_user("Nasrin", is_staff=True, is_superuser=True)
        tournament = Tournament.objects.create(name="Nowruz 1405", director=director,
                                               match_lengths=[3], is_rated=False)
        tournament_services.tournament_open_registration(tournament_id=tournament.pk,
                                                         actor=director)
        for name in names:
            player = match_services.player_for_user(
                User.objects.create_user(name, password=PASSWORD))
            tournament_services.entry_register(tournament_id=tournament.pk, player=player)
        tournament_services.tournament_start(tournament_id=tournament.pk, actor=director)
        return tournament.pk

    return in_thread(make)


def seen_problems(page: Any, language: str, data: list[str]) -> list[str]:
    """English words and (in Persian) Latin digits the page shows, leaving out ``data``
    (names people gave: users, tables, tournaments), literals and key names."""
    seen = [text for text in page.evaluate(SEEN) if text and text.strip()]
    for kept in sorted(data + page.evaluate(LITERALS), key=len, reverse=True):
        if kept.strip():
            seen = [text.replace(kept, " ") for text in seen]
    seen = [re.sub(rf"\b({'|'.join(KEYS)})\b", " ", text) for text in seen]
    found = english_left(seen)
    if language == "fa":
        found += [f"Latin digits in {line!r}" for text in seen for line in text.splitlines()
                  if LATIN_DIGIT.search(line)]
    return found


def test_persian_and_turkish_pages_have_no_english_left(
        live_server_process: WebServer, browser: Any, artifacts: Path) -> None:
    server = live_server_process
    # A match in progress, three plays in, Kerem to roll.
    playing = seat_two(("Shirin", "Kerem"), [[3, 1], [6, 4], [5, 5], [2, 1]], match_length=5)
    act(playing.pk, 0, "play", "8/5 6/5")
    act(playing.pk, 1, "roll")
    act(playing.pk, 1, "play", "24/18 13/9")
    act(playing.pk, 0, "roll")
    act(playing.pk, 0, "play", "13/3(2)")
    # A finished match to review.
    done = seat_two(("Dara", "Aylin"), [[3, 1], [6, 4]], cube_enabled=False, match_length=1)
    act(done.pk, 0, "play", "8/5 6/5")
    act(done.pk, 1, "resign")
    tournament = a_started_tournament(["Babak", "Emre", "Leyla", "Deniz"])

    pages = {
        "lobby": ("/lobby/", "#lobby-tables, main"),
        "table": (f"/tables/{playing.table_id}/", "#table-page[data-connection='live']"),
        "review": (f"/matches/{done.pk}/", "#review[data-step]"),
        "tournament": (f"/tournaments/{tournament}/", "main"),
    }
    data = in_thread(lambda: [*Table.objects.values_list("name", flat=True),
                              *User.objects.values_list("username", flat=True), "Nowruz 1405"])
    problems: dict[str, list[str]] = {}
    for language in ("fa", "tr"):
        context = browser.new_context(viewport={"width": 1280, "height": 900})
        context.add_cookies([{"name": "django_language", "value": language, "url": server.url}])
        page = context.new_page()
        page.set_default_timeout(10_000)
        errors: list[str] = []
        page.on("pageerror", lambda error, errors=errors: errors.append(str(error)))
        log_in(page, server, "Shirin")
        for name, (path, ready) in pages.items():
            page.goto(f"{server.url}{path}")
            page.wait_for_selector(ready, state="attached")
            if name == "review":
                page.keyboard.press("End")  # the last step: the resignation and the result
            page.wait_for_timeout(300)
            assert page.get_attribute("html", "lang") == language
            page.screenshot(path=str(artifacts / f"e2e-lang-{language}-{name}.png"),
                            full_page=True)
            found = seen_problems(page, language, data)
            if found:
                problems[f"{language} {name}"] = found
        assert errors == []
        context.close()
    for where, found in problems.items():
        print(where, *found, sep="\n  ")
    assert problems == {}
