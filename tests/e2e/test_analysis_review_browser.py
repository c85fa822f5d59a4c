"""The review tied to the analysis, in a real browser, on a match two gnubg bots played and
gnubg analysed (no mock): a row moves the board to its position and draws the played and the
best play, the next-error key goes to an error, the graph jumps to a decision, a phone can tap
all of it, the profile's PR link lands on the visible analysis, and in Persian and Turkish the
review, the profile and the referee's replay show none of gnubg's English words.
Screenshots go to ``test-artifacts/e2e-analysis-*.png``."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import User

from matches import services
from matches.gnubg.bots import bot_player
from matches.gnubg.evaluation import analysis_run, bot_act
from matches.models import Match, MatchAnalysis, Player
from tests.e2e.helpers import PASSWORD, in_thread, log_in
from tests.e2e.servers import WebServer
from tests.test_translations import LATIN_DIGIT, english_left

# A play's notation (``13/9*/3``, ``bar/22``, ``6/off``) is the game's standard script, kept
# as it is written in every language (its digits follow the page's).
NOTATION = re.compile(r"\S*/\S*")

pytestmark = [pytest.mark.e2e, pytest.mark.slow, pytest.mark.django_db(transaction=True)]

# gnubg's English words that must not be left on a Persian or Turkish page.
ANALYSIS_ENGLISH = ("doubtful", "blunder", "Supernatural", "World class", "Expert", "Advanced",
                    "Intermediate", "Casual player", "Awful", "Go to bed", "Better luck",
                    "Good dice", "Go to Las Vegas", "lucky", "no double", "take", "pass", "double")


# What the reader sees inside `root`: its text as drawn, the board's SVG text, and the
# titles and labels of its elements (as tests/e2e/test_languages.py reads a whole page).
SEEN_IN = """(selector) => {
  const root = document.querySelector(selector);
  const shown = (el) => el.getClientRects().length > 0;
  const out = [root.innerText];
  for (const el of root.querySelectorAll('svg text')) if (shown(el)) out.push(el.textContent);
  for (const el of root.querySelectorAll('[title], [aria-label]')) {
    if (!shown(el)) continue;
    for (const name of ['title', 'aria-label']) {
      if (el.getAttribute(name)) out.push(el.getAttribute(name));
    }
  }
  return out;
}"""


def english_seen(page: Any, selector: str, language: str, data: list[str]) -> list[str]:
    """English words (and in Persian Latin digits) shown inside ``selector``, leaving out
    ``data`` (names), a play's notation and the key names the page documents."""
    seen = []
    for text in page.evaluate(SEEN_IN, selector):
        for kept in sorted(data, key=len, reverse=True):  # as drawn: maybe upper-cased
            text = re.sub(re.escape(kept), " ", text, flags=re.IGNORECASE)
        text = re.sub(r"\b(Home|End)\b|\b[jknp]\b", " ", NOTATION.sub(" ", text))
        seen.append(text)
    found = english_left(seen)
    found += [word for word in ANALYSIS_ENGLISH for text in seen
              if word.lower() in text.lower()]
    if language == "fa":
        found += [f"Latin digits in {line!r}" for text in seen for line in text.splitlines()
                  if LATIN_DIGIT.search(line)]
    return found


def _play_and_analyse() -> int:
    """A finished 3-point match between two bots with at least three errors in checker
    play (so that there is always a next error to go to), analysed."""
    for _ in range(7):
        table = services.table_create(name="Bots", match_length=3)
        services.table_sit(table_id=table.pk, player=bot_player("beginner"), seat=0)
        services.table_sit(table_id=table.pk, player=bot_player("intermediate"), seat=1)
        match = Match.objects.get(table=table)
        while not match.is_finished:
            assert bot_act(match_id=match.pk, version=match.version)
            match.refresh_from_db()
        analysis = analysis_run(match.pk)
        if sum(d["mark"] in ("error", "blunder") and d["kind"] == "move"
               for d in analysis.decisions) >= 3:
            return match.pk
    raise AssertionError("seven bot matches without three errors")


@pytest.fixture(scope="module")
def analysed_match(django_db_setup: None, django_db_blocker: Any) -> Iterator[int]:
    """Made before the browser starts: gnubg evaluates in this (main) thread, and the
    services' after-commit broadcasts need a thread without Playwright's event loop."""
    with django_db_blocker.unblock():
        match_id = _play_and_analyse()
        User.objects.create_superuser("Referee", password=PASSWORD)
    yield match_id


def _current(page: Any) -> tuple[int, int]:
    """The chosen row's number and the review's step."""
    row = page.locator("tr.decision.current")
    return int(row.get_attribute("data-decision")), int(page.get_attribute("#review", "data-step"))


def test_the_review_follows_the_analysis_on_a_desktop_and_a_phone_in_three_languages(
        analysed_match: int, live_server_process: WebServer, browser: Any,
        artifacts: Path) -> None:
    server = live_server_process
    match_id = analysed_match
    rows = in_thread(lambda: [d for d in MatchAnalysis.objects.get(match_id=match_id).decisions
                              if d["kind"] != "no_double" or d["counted"]])
    players = in_thread(lambda: list(Player.objects.select_related("user").filter(
        pk__in=Match.objects.filter(pk=match_id).values_list("player0", "player1")[0])))
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.set_default_timeout(10_000)
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(f"{server.url}/matches/{match_id}/")
    page.wait_for_selector("#review[data-step]")
    assert page.locator("#analysis").count() == 1 and page.locator("#analysis").is_visible()

    # a click on a row with a better play moves the board there and draws both plays
    number = next(i for i, d in enumerate(rows)
                  if d["kind"] == "move" and d["mark"] in ("error", "blunder"))
    row = page.locator(f"tr.decision[data-decision='{number}']")
    frame = int(row.get_attribute("data-frame"))
    row.locator("button.decision-link").click()
    page.wait_for_selector(f"#review[data-step='{frame}']")
    assert _current(page) == (number, frame)
    assert page.locator("#board g.arrow-played path.arrow-line").count() >= 1
    assert page.locator("#board g.arrow-best path.arrow-line").count() >= 1
    dice = rows[number]["dice"]
    assert page.locator("#board g.die").count() == (4 if dice[0] == dice[1] else 2)
    detail = page.text_content("#decision-detail") or ""
    assert rows[number]["chosen"] in detail and rows[number]["best"] in detail
    page.screenshot(path=str(artifacts / "e2e-analysis-row.png"), full_page=True)

    # the move list carries the marks
    assert page.locator("#moves .sign").count() >= 2

    # j goes to the next decision, n to the next error or blunder, p back
    page.keyboard.press("j")
    page.wait_for_selector(f"tr.decision.current[data-decision='{number + 1}']")
    page.keyboard.press("n")
    page.wait_for_function(
        "n => Number(document.querySelector('tr.decision.current').dataset.decision) > n",
        arg=number + 1)
    got, step = _current(page)
    assert rows[got]["mark"] in ("error", "blunder")
    assert step == int(page.locator(f"tr.decision[data-decision='{got}']").get_attribute(
        "data-frame"))
    page.keyboard.press("p")
    before = max(i for i, d in enumerate(rows[:got]) if d["mark"] in ("error", "blunder"))
    assert before >= number
    page.wait_for_selector(f"tr.decision.current[data-decision='{before}']")

    # a cube decision shows its three equities and the verdict
    cube = next((i for i, d in enumerate(rows) if d["kind"] in ("double", "take", "drop")), None)
    if cube is not None:
        page.locator(f"tr.decision[data-decision='{cube}']").click()
        page.wait_for_selector("#decision-detail table.cube-equities")
        assert page.locator("#decision-detail table.cube-equities tr").count() == 3
        assert page.locator("#decision-detail .verdict").is_visible()
        assert page.locator("#board g.arrows").count() == 0

    # the graph: the far right is the last decision, the far left the first
    graph = page.locator("#win-graph")
    box = graph.bounding_box()
    graph.click(position={"x": box["width"] - 2, "y": box["height"] / 2})
    page.wait_for_selector(f"tr.decision.current[data-decision='{len(rows) - 1}']")
    graph.click(position={"x": 2, "y": box["height"] / 2})
    page.wait_for_selector("tr.decision.current[data-decision='0']")
    assert _current(page)[1] == int(page.locator(
        "tr.decision[data-decision='0']").get_attribute("data-frame"))
    assert errors == []
    context.close()

    # a phone: narrow, touch
    phone = browser.new_context(viewport={"width": 390, "height": 844}, has_touch=True,
                                is_mobile=True, device_scale_factor=2)
    page = phone.new_page()
    page.set_default_timeout(10_000)
    page.goto(f"{server.url}/matches/{match_id}/")
    page.wait_for_selector("#review[data-step]")
    target = page.locator(f"tr.decision[data-decision='{number}']")
    target.scroll_into_view_if_needed()
    target.locator("td").first.tap()
    page.wait_for_selector(f"#review[data-step='{frame}']")
    assert page.locator("#board g.arrow-played").count() == 1
    graph = page.locator("#win-graph")
    graph.scroll_into_view_if_needed()
    box = graph.bounding_box()
    graph.tap(position={"x": box["width"] - 2, "y": box["height"] / 2})
    page.wait_for_selector(f"tr.decision.current[data-decision='{len(rows) - 1}']")
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 390 + 1, "the page fits a phone's width"
    page.screenshot(path=str(artifacts / "e2e-analysis-phone.png"), full_page=True)
    phone.close()

    # Persian and Turkish: the review, the profile and the referee's replay
    names = [*(p.display_name for p in players), *(p.user.username for p in players), "Bots",
             "Referee"]
    problems: dict[str, list[str]] = {}
    for language in ("fa", "tr"):
        context = browser.new_context(viewport={"width": 1280, "height": 900})
        context.add_cookies([{"name": "django_language", "value": language,
                              "url": server.url}])
        page = context.new_page()
        page.set_default_timeout(10_000)
        log_in(page, server, "Referee")
        pages = {
            "review": (f"/matches/{match_id}/", "#review[data-step]"),
            "profile": (f"/players/{players[0].pk}/", "#player-pr"),
            "replay": (f"/admin/matches/match/{match_id}/replay/", "#review[data-step]"),
        }
        for name, (path, ready) in pages.items():
            page.goto(f"{server.url}{path}")
            page.wait_for_selector(ready, state="attached")
            if name != "profile":
                page.locator(f"tr.decision[data-decision='{number}']").click()
                page.wait_for_selector("#decision-detail .played")
            page.screenshot(path=str(artifacts / f"e2e-analysis-{language}-{name}.png"),
                            full_page=True)
            # the admin's own frame (its menu of every app) is Django's: the replay is #content
            found = english_seen(page, "#content" if name == "replay" else "body", language, names)
            if found:
                problems[f"{language} {name}"] = found
        # the profile's PR link lands on the one visible analysis section
        page.goto(f"{server.url}/players/{players[0].pk}/")
        page.locator(f"#player-pr a[href$='/matches/{match_id}/#analysis']").click()
        page.wait_for_selector("#review[data-step]")
        assert page.locator("[id=analysis]").count() == 1
        assert page.locator("#analysis").is_visible()
        context.close()
    for where, found in problems.items():
        print(where, *found, sep="\n  ")
    assert problems == {}
