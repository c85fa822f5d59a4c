"""The adjudication page in a real browser: it opens with "Evaluating…", its script polls
the figures a real analysis worker computes, and fills them in (the site's
Content-Security-Policy allowing it)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from django.contrib.auth.models import Permission, User

from tests.conftest import CeleryWorkerProcess, start_celery_worker, subprocess_env
from tests.e2e.helpers import PASSWORD, in_thread, log_in, seat_two, wait_until
from tests.e2e.servers import WebServer, start_web_server

pytestmark = [pytest.mark.e2e, pytest.mark.slow, pytest.mark.celery,
              pytest.mark.django_db(transaction=True)]


@pytest.fixture(scope="module")
def server_and_worker(django_db_setup: None, django_db_blocker: Any
                      ) -> Iterator[tuple[WebServer, CeleryWorkerProcess]]:
    with django_db_blocker.unblock():
        env = subprocess_env(TAVLA_SCRIPTED_DICE="1")
    server = start_web_server(env, name="e2e-adjudication")
    worker = start_celery_worker(env, name="e2e-analysis", queues="analysis")
    try:
        yield server, worker
    finally:
        worker.stop()
        server.stop()


def test_the_page_fills_in_the_figures_from_the_worker(
    server_and_worker: tuple[WebServer, CeleryWorkerProcess], browser: Any,
) -> None:
    server, _worker = server_and_worker
    match = seat_two(("ada", "ben"), dice=[[6, 1], [3, 1]], match_length=5)

    def make_referee() -> None:
        user = User.objects.create_user("rhea", password=PASSWORD, is_staff=True)
        user.user_permissions.add(*Permission.objects.filter(
            codename__in=["view_match", "adjudicate_match"]))

    in_thread(make_referee)
    page = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
    page.set_default_timeout(10_000)
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    log_in(page, server, "rhea")
    page.goto(f"{server.url}/admin/matches/match/{match.pk}/adjudicate/")
    assert page.get_attribute("#adjudication-figures", "data-version") == str(match.version)
    wait_until(page, "document.getElementById('adjudication-figures').dataset.status "
                     "=== 'ready'", timeout=60)
    assert page.is_visible("#winning-chances")
    shown = [float(page.inner_text(f"#winning-chances .chance{i}").rstrip("%"))
             for i in (0, 1)]
    assert sum(shown) == pytest.approx(100.0, abs=0.11) and 0 < shown[0] < 100
    assert page.inner_text("#figures-note") == ""
    assert errors == []
