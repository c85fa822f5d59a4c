"""Casual play in two browsers: a takeback asked and accepted at an unrated table (the same
dice come back), refused at a rated one, and a quick chat phrase that a Persian reader sees
in the words of their own page."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from matches.models import Match
from matches.state import load_state
from tests.e2e.helpers import act, in_thread, open_table, seat_two, wait_until
from tests.e2e.servers import WebServer

pytestmark = [pytest.mark.e2e, pytest.mark.slow, pytest.mark.django_db(transaction=True)]

TAKEBACK = "#takeback button[data-takeback='{}']"


def _state(match_id: int) -> tuple[Any, int]:
    def read() -> tuple[Any, int]:
        match = Match.objects.get(pk=match_id)
        return load_state(match), match.version

    return in_thread(read)


def test_a_takeback_in_casual_play_and_a_persian_quick_phrase(
        live_server_process: WebServer, browser: Any, settings: Any) -> None:
    settings.TAVLA_SCRIPTED_DICE = True
    artifacts = Path("test-artifacts")
    artifacts.mkdir(exist_ok=True)
    match = seat_two(("tara", "omid"), [[3, 1], [6, 4], [5, 2]], cube_enabled=False,
                     is_rated=False)
    tara = open_table(browser, live_server_process, "tara", match.table_id)
    omid = open_table(browser, live_server_process, "omid", match.table_id)
    # omid reads the site in Persian.
    omid.context.add_cookies([{"name": "django_language", "value": "fa",
                               "url": live_server_process.url}])
    omid.reload()
    omid.wait_for_selector("#table-page[data-connection='live']")
    assert omid.get_attribute("html", "lang") == "fa"

    act(match.pk, 0, "play", "8/5 6/5")  # the server then rolls 6-4 for omid
    tara.click(TAKEBACK.format("request"))
    omid.click(TAKEBACK.format("accept"))
    tara.wait_for_selector("#takeback", state="hidden")
    state, version = _state(match.pk)
    assert state.player_to_act == 0 and state.dice == (3, 1)  # the same dice, not a new roll
    wait_until(tara, f"document.getElementById('table-page').dataset.version === '{version}'")
    tara.screenshot(path=str(artifacts / "e2e-takeback-accepted.png"))
    act(match.pk, 0, "play", "24/23 24/21")
    assert _state(match.pk)[0].dice == (6, 4)  # omid's roll comes back as it was

    tara.click("#chat-phrases button[data-phrase='good_luck']")
    line = "#chat-log li[data-phrase='good_luck'] .text"
    omid.wait_for_selector(line)
    catalogue = json.loads(omid.text_content("#board-strings") or "{}")
    assert omid.text_content(line) == catalogue["phrase_good_luck"]
    # ...and it is Persian, not the English the sender's page shows.
    assert omid.text_content(line) not in ("", "Good luck!")
    assert any("\u0600" <= char <= "\u06ff" for char in omid.text_content(line) or "")
    assert tara.wait_for_selector(line).text_content() == "Good luck!"
    omid.screenshot(path=str(artifacts / "e2e-quick-phrase-fa.png"))
    assert not tara.js_errors and not omid.js_errors


def test_a_takeback_on_a_rated_table_is_refused(live_server_process: WebServer,
                                                browser: Any, settings: Any) -> None:
    settings.TAVLA_SCRIPTED_DICE = True
    match = seat_two(("lale", "cem"), [[3, 1], [6, 4], [5, 2]], cube_enabled=False,
                     is_rated=True)
    lale = open_table(browser, live_server_process, "lale", match.table_id)
    act(match.pk, 0, "play", "8/5 6/5")
    _, version = _state(match.pk)
    wait_until(lale, f"document.getElementById('table-page').dataset.version === '{version}'")
    assert lale.is_hidden("#takeback")  # nothing offered at a rated table
    # A request sent all the same is refused, and nothing changes.
    lale.evaluate("document.dispatchEvent(new CustomEvent('tavla:send', "
                  "{detail: {type: 'takeback', answer: 'request'}}))")
    lale.wait_for_selector("#error:not([hidden])")
    assert "unrated" in (lale.text_content("#error") or "")
    assert _state(match.pk)[1] == version
    assert not lale.js_errors
