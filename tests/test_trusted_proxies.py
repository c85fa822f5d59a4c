"""``X-Forwarded-For`` is believed only from ``TAVLA_TRUSTED_PROXIES`` (tavla/site/proxies.py).

A client that writes the header itself must change nothing: not the REST throttles, not the
login lockout, not the address the sockets' limits count. Behind a listed proxy the header
names the client for all of them at once.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client

from tavla.site.proxies import TrustedProxyMiddleware, client_address, trusted_networks

PROXIES = trusted_networks(["10.0.0.5", "10.1.0.0/16"])


@pytest.mark.parametrize(("peer", "forwarded", "expected"), [
    ("203.0.113.7", ["198.51.100.1"], "203.0.113.7"),  # not from a proxy: header ignored
    ("10.0.0.5", ["198.51.100.1"], "198.51.100.1"),  # from our proxy: the client it names
    ("10.0.0.5", ["198.51.100.1, 10.1.2.3"], "198.51.100.1"),  # through two of ours
    ("10.0.0.5", ["198.51.100.1", "10.1.2.3"], "198.51.100.1"),  # as two header lines
    ("10.0.0.5", ["1.1.1.1, 198.51.100.1"], "198.51.100.1"),  # the client's own claim: no
    ("10.0.0.5", ["not-an-address, 198.51.100.1"], "198.51.100.1"),
    ("10.0.0.5", ["198.51.100.1, junk"], "10.0.0.5"),  # garbage next to us: believe nothing
    ("10.0.0.5", [], "10.0.0.5"),
    ("10.0.0.5", ["10.1.0.9"], "10.1.0.9"),  # only proxies: the farthest of them
])
def test_the_client_is_the_first_untrusted_address_from_the_right(
        peer: str, forwarded: list[str], expected: str) -> None:
    assert client_address(peer, forwarded, PROXIES) == expected


def test_with_no_trusted_proxy_the_header_is_never_read() -> None:
    assert client_address("10.0.0.5", ["198.51.100.1"], ()) == "10.0.0.5"


def test_a_bad_entry_is_refused_by_name() -> None:
    with pytest.raises(ValueError, match="'proxy.example'"):
        trusted_networks(["10.0.0.5", "proxy.example"])


async def _client_seen(scope_client: list[Any], headers: list[tuple[bytes, bytes]],
                       kind: str = "http") -> Any:
    seen: dict[str, Any] = {}

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        seen["client"] = scope["client"]

    await TrustedProxyMiddleware(app, PROXIES)(
        {"type": kind, "client": scope_client, "headers": headers}, None, None)
    return seen["client"]


@pytest.mark.parametrize("kind", ["http", "websocket"])
async def test_the_middleware_sets_the_scope_client_for_pages_and_sockets(kind: str) -> None:
    header = [(b"x-forwarded-for", b"198.51.100.1")]
    assert await _client_seen(["10.0.0.5", 4000], header, kind) == ["198.51.100.1", 4000]
    assert await _client_seen(["203.0.113.7", 4000], header, kind) == ["203.0.113.7", 4000]


@pytest.mark.django_db
def test_a_spoofed_header_does_not_escape_the_anonymous_throttle(settings: Any) -> None:
    settings.TAVLA_API_RATES = {**settings.TAVLA_API_RATES, "anonymous": "3/min"}
    client = Client(REMOTE_ADDR="203.0.113.20")
    assert [client.get("/api/tables/").status_code for _ in range(3)] == [200] * 3
    rotated = [client.get("/api/tables/", HTTP_X_FORWARDED_FOR=f"192.0.2.{n}").status_code
               for n in range(10)]
    assert rotated == [429] * 10


@pytest.mark.django_db
def test_a_spoofed_header_does_not_escape_the_login_lockout(settings: Any) -> None:
    User.objects.create_user("victim", password="right-horse-battery-9")
    attacker = Client(REMOTE_ADDR="203.0.113.21")
    for n in range(settings.AXES_FAILURE_LIMIT + 3):
        attacker.post("/accounts/login/", {"username": "victim", "password": f"guess-{n}"},
                      HTTP_X_FORWARDED_FOR=f"192.0.2.{n}")
    locked = attacker.post("/accounts/login/",
                           {"username": "victim", "password": "right-horse-battery-9"},
                           HTTP_X_FORWARDED_FOR="192.0.2.200")
    assert locked.status_code == 429
