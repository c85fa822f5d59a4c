"""The adjudication page of a live match, served by a real daphne, with the figures computed
by a real Celery analysis worker running gnubg: opened again and again, it never stops the
web process, which afterwards still serves a table's socket.

gnubg crashes a process when it evaluates off the main thread; this page once evaluated on
a daphne request thread and took the whole web process down with every board on it.
"""

from __future__ import annotations

import json
import re
import time
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterator
from http.cookiejar import Cookie, CookieJar
from typing import Any

import pytest
from django.contrib.auth.models import Permission, User
from django.test import Client
from websockets.sync.client import connect
from websockets.typing import Origin

from matches.models import Event, LogKind, Match
from tests.conftest import CeleryWorkerProcess, subprocess_env
from tests.e2e.servers import WebServer, start_web_server

pytestmark = [pytest.mark.slow, pytest.mark.celery, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def web_server(celery_worker_process: CeleryWorkerProcess) -> Iterator[WebServer]:
    server = start_web_server(subprocess_env(), name="adjudication")
    try:
        yield server
    finally:
        server.stop()


def referee_browser(server: WebServer) -> urllib.request.OpenerDirector:
    """A logged-in referee (staff, may view and adjudicate matches), as a cookie-keeping
    HTTP client of ``server``."""
    user = User.objects.create_user("live-ref", password="live-ref-pass", is_staff=True)
    user.user_permissions.add(*Permission.objects.filter(
        codename__in=["view_match", "adjudicate_match"]))
    client = Client()
    client.force_login(user)
    jar = CookieJar()
    jar.set_cookie(Cookie(
        0, "sessionid", client.cookies["sessionid"].value, None, False, "127.0.0.1", True,
        False, "/", True, False, None, False, None, None, {}))
    return urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))


def get(browser: urllib.request.OpenerDirector, url: str) -> str:
    with browser.open(url, timeout=30) as response:
        assert response.status == 200, url
        return str(response.read().decode())


def figures_when_final(browser: urllib.request.OpenerDirector, url: str,
                       timeout: float = 120) -> dict[str, Any]:
    """Poll the page's figures endpoint, as the page does, until it stops evaluating."""
    deadline = time.monotonic() + timeout
    while True:
        figures: dict[str, Any] = json.loads(get(browser, url))
        if figures["status"] != "evaluating":
            return figures
        assert time.monotonic() < deadline, figures
        time.sleep(0.2)


def test_the_page_gets_its_figures_from_a_worker_and_daphne_stays_up(
    web_server: WebServer, start_match: Callable[..., Match],
    celery_worker_process: CeleryWorkerProcess,
) -> None:
    # Player 0 has rolled 6-1: the figures need gnubg's best play of that roll (the
    # evaluation that crashed daphne).
    match = start_match(match_length=5, dice=[[6, 1], [3, 1], [5, 2]])
    browser = referee_browser(web_server)
    page_url = f"{web_server.url}/admin/matches/match/{match.pk}/adjudicate/"
    figures_url = (f"{web_server.url}/admin/matches/match/{match.pk}/adjudicate_figures/"
                   f"?version={match.version}")

    first = get(browser, page_url)
    assert f'data-version="{match.version}"' in first
    assert 'data-status="evaluating"' in first or 'data-status="ready"' in first
    figures = figures_when_final(browser, figures_url)
    assert figures["status"] == "ready", (figures, celery_worker_process.log()[-3000:])
    chances = figures["chances"]
    assert sum(chances) == pytest.approx(100.0, abs=0.11) and 0 < chances[0] < 100

    # Again and again: every opening is served, with the same figures, by the same process.
    for _ in range(5):
        page = get(browser, page_url)
        assert 'data-status="ready"' in page
        assert f'class="chance0">{chances[0]:.1f}%' in page
        assert figures_when_final(browser, figures_url)["chances"] == chances
    assert web_server.process.poll() is None, web_server.log()
    assert "GnubgInWebProcessError" not in web_server.log()

    # The same daphne still serves a table's socket.
    with connect(f"{web_server.ws_url}/ws/tables/{match.table_id}/",
                 origin=Origin(web_server.url), open_timeout=10) as socket:
        while True:
            message = json.loads(socket.recv(timeout=10))
            if message["type"] == "state":
                break
    assert message["version"] == match.version and message["dice"] == [6, 1]

    # The decision records the figures the worker gave for the version the referee saw.
    page = get(browser, page_url)
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page)
    assert token is not None
    body = urllib.parse.urlencode({
        "csrfmiddlewaretoken": token.group(1), "winner": "0", "scope": "match",
        "points": "", "reason": "Player 1 cannot continue", "version": str(match.version),
    }).encode()
    request = urllib.request.Request(page_url, data=body, headers={"Referer": page_url})
    with browser.open(request, timeout=30) as response:
        assert response.status == 200 and "/change/" in response.url
    reason = Event.objects.get(match=match, kind=LogKind.ADJUDICATE).payload["action"]["reason"]
    assert reason.startswith("Player 1 cannot continue [gnubg match-winning chances: ")
    assert f"{chances[0]:.1f}%" in reason and f"{chances[1]:.1f}%" in reason
    assert web_server.process.poll() is None, web_server.log()
