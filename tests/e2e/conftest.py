"""A real server and a real browser: daphne on a free port, Debian's Chromium via Playwright.

The server shares the test database and Redis (``subprocess_env``) and rolls scripted dice
(``TAVLA_SCRIPTED_DICE=1``) where a test sets them on a table. Screenshots go to
``test-artifacts/``.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from typing import Any

import pytest

from tests.conftest import ARTIFACTS_DIR, subprocess_env
from tests.e2e.servers import WebServer, start_web_server

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--no-first-run"]


@pytest.fixture(scope="module")
def live_server_process(django_db_setup: None, django_db_blocker: Any) -> Iterator[WebServer]:
    with django_db_blocker.unblock():
        env = subprocess_env(TAVLA_SCRIPTED_DICE="1")
    server = start_web_server(env, name="e2e")
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    if not shutil.which(CHROMIUM):
        pytest.skip(f"{CHROMIUM} is not installed (apt-get install chromium)")
    from playwright.sync_api import sync_playwright

    # Playwright's sync API keeps an event loop running in this thread, which Django takes
    # for async code and refuses ORM calls in. The tests are synchronous: allow them while
    # the browser is open (the database fixtures' teardown included), then restore.
    previous = os.environ.get("DJANGO_ALLOW_ASYNC_UNSAFE")
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    try:
        with sync_playwright() as playwright:
            chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            try:
                yield chromium
            finally:
                chromium.close()
    finally:
        if previous is None:
            os.environ.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
        else:
            os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = previous


@pytest.fixture(scope="session")
def artifacts() -> Any:
    ARTIFACTS_DIR.mkdir(exist_ok=True)
    return ARTIFACTS_DIR
