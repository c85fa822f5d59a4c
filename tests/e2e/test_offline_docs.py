"""The API docs render in a real browser with no network beyond the site itself.

Every request to another origin is recorded and aborted, as on a club network with no way out;
Swagger UI must still list the operations and ReDoc must still show the API's title.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

import pytest

from tests.e2e.servers import WebServer

pytestmark = [pytest.mark.e2e, pytest.mark.slow, pytest.mark.django_db(transaction=True)]


def offline_page(browser: Any, server: WebServer) -> tuple[Any, list[str]]:
    """A page whose requests to any origin but the server's are refused and recorded."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    foreign: list[str] = []
    own = urlsplit(server.url).netloc

    def route(request_route: Any) -> None:
        url = request_route.request.url
        if urlsplit(url).scheme in ("data", "blob") or urlsplit(url).netloc == own:
            request_route.continue_()
        else:
            foreign.append(url)
            request_route.abort()

    context.route("**/*", route)
    return context.new_page(), foreign


def test_swagger_ui_and_redoc_render_offline(browser: Any, live_server_process: WebServer,
                                             artifacts: Any) -> None:
    page, foreign = offline_page(browser, live_server_process)
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))

    page.goto(f"{live_server_process.url}/api/docs/")
    page.wait_for_selector(".opblock", timeout=20_000)
    assert page.locator(".opblock").count() >= 10  # every operation is listed
    assert "Tavla API" in page.locator(".info .title").inner_text()
    page.screenshot(path=str(artifacts / "offline-swagger-ui.png"))

    page.goto(f"{live_server_process.url}/api/redoc/")
    page.get_by_text("Tavla API").first.wait_for(timeout=20_000)
    page.screenshot(path=str(artifacts / "offline-redoc.png"))

    for path in ("/", "/lobby/", "/tournaments/", "/accounts/login/", "/admin/login/"):
        page.goto(f"{live_server_process.url}{path}")
        page.wait_for_load_state("networkidle")

    assert foreign == []
    assert errors == []
