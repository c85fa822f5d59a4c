"""Nothing from the internet: no page and none of our static files refers to another origin.

A club may run Tavla on a network with no way out, and every asset from elsewhere is also a
privacy leak and a CSP hole. Pages are checked as served (every URL-bearing attribute and every
CSS ``url()``/``@import``), our own static files as written, and the vendor CSS that pages load
(the admin's, Swagger UI's, ReDoc's) for ``url()``/``@import``. ``tests/e2e/test_offline_docs.py``
checks the same in a real browser, where scripts run.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from django.contrib.staticfiles import finders
from django.test import Client

from tests.conftest import BASE_DIR

pytestmark = pytest.mark.django_db

# URLs that name something without fetching it: XML namespaces in SVG markup and scripts.
NAMESPACES = ("http://www.w3.org/2000/svg", "http://www.w3.org/1999/xlink",
              "http://www.w3.org/1999/xhtml", "http://www.w3.org/XML/1998/namespace")
URL_ATTRIBUTES = {"src", "href", "srcset", "action", "poster", "data", "formaction",
                  "xlink:href", "manifest", "background"}
ABSOLUTE = re.compile(r"""(?:https?:)?//[^\s"'()<>]+""", re.IGNORECASE)
# In scripts a bare ``//`` starts a comment, and ``//${location.host}`` is our own origin: only
# URLs with a scheme can name another one there.
WITH_SCHEME = re.compile(r"""\b(?:https?|wss?)://[^\s"'`()<>]+""", re.IGNORECASE)
CSS_REFERENCES = re.compile(r"""url\(\s*['"]?([^'")\s]+)|@import\s+['"]([^'"]+)""", re.IGNORECASE)

PAGES = ["/", "/lobby/", "/tournaments/", "/accounts/login/", "/accounts/signup/",
         "/admin/login/", "/api/docs/", "/api/redoc/", "/players/me/", "/admin/"]


def is_foreign(url: str) -> bool:
    url = url.strip()
    if url.startswith(NAMESPACES):
        return False
    parts = urlsplit(url)
    if parts.scheme in ("", "data", "blob", "mailto", "javascript"):
        # A scheme-relative //host/... still names another host.
        return url.startswith("//")
    return parts.scheme in ("http", "https", "ws", "wss", "ftp") and parts.hostname not in (
        "testserver", "localhost", "127.0.0.1")


class References(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.urls: list[str] = []
        self.in_style = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.in_style = tag == "style"
        for name, value in attrs:
            if value is None:
                continue
            if name in URL_ATTRIBUTES:
                self.urls += [part.strip().split(" ")[0] for part in value.split(",")] \
                    if name == "srcset" else [value]
            elif name == "style":
                self.urls += css_references(value)
            elif name == "content" and ABSOLUTE.search(value):
                self.urls += ABSOLUTE.findall(value)

    def handle_data(self, data: str) -> None:
        if self.in_style:
            self.urls += css_references(data)

    def handle_endtag(self, tag: str) -> None:
        if tag == "style":
            self.in_style = False


def css_references(css: str) -> list[str]:
    return [a or b for a, b in CSS_REFERENCES.findall(css)]


def test_is_foreign_tells_other_origins_apart() -> None:
    assert is_foreign("https://cdn.jsdelivr.net/npm/swagger-ui-dist@latest/swagger-ui.css")
    assert is_foreign("//fonts.googleapis.com/css2")
    assert is_foreign("wss://example.org/ws/")
    assert not is_foreign("/static/board.js")
    assert not is_foreign("http://testserver/api/schema/")
    assert not is_foreign("http://www.w3.org/2000/svg")
    assert not is_foreign("data:image/svg+xml;base64,AAAA")


@pytest.mark.parametrize("anonymous", [True, False], ids=["anonymous", "admin"])
def test_no_page_refers_to_another_origin(anonymous: bool, admin_client: Client,
                                          client: Client) -> None:
    browser = client if anonymous else admin_client
    checked = 0
    for page in PAGES:
        response = browser.get(page, follow=True)
        if response.status_code != 200 or "html" not in response.get("Content-Type", ""):
            continue
        parser = References()
        parser.feed(response.content.decode())
        foreign = [url for url in parser.urls if is_foreign(url)]
        assert not foreign, f"{page} refers to {foreign}"
        checked += 1
    assert checked >= 6  # the test must have read real pages


def test_own_static_files_refer_to_no_other_origin() -> None:
    files = [p for p in (BASE_DIR / "static").rglob("*") if p.is_file()]
    assert any(p.suffix == ".js" for p in files)
    for path in files:
        if path.suffix not in (".js", ".mjs", ".css", ".svg", ".html", ".json", ".webmanifest"):
            continue
        foreign = [url for url in WITH_SCHEME.findall(path.read_text()) if is_foreign(url)]
        assert not foreign, f"{path.relative_to(BASE_DIR)} refers to {foreign}"


@pytest.mark.parametrize("prefix", ["admin/", "drf_spectacular_sidecar/", "rest_framework/"])
def test_vendor_stylesheets_load_nothing_from_another_origin(prefix: str) -> None:
    stylesheets: list[Path] = []
    for finder in finders.get_finders():
        for relative, storage in finder.list([]):
            if relative.startswith(prefix) and relative.endswith(".css"):
                stylesheets.append(Path(storage.path(relative)))
    assert stylesheets, f"no stylesheet under {prefix}"
    for path in stylesheets:
        foreign = [url for url in css_references(path.read_text(errors="replace"))
                   if is_foreign(url)]
        assert not foreign, f"{path} loads {foreign}"


def test_favicon_ico_leads_to_the_sites_icon(client: Client) -> None:
    response = client.get("/favicon.ico")
    assert response.status_code == 302
    assert response["Location"] == "/static/favicon.svg"
    icon = finders.find("favicon.svg")
    assert icon and "<svg" in Path(str(icon)).read_text()
