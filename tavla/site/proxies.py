"""The client's address, from ``X-Forwarded-For`` only when a trusted proxy says so.

A reverse proxy in front of Tavla connects from its own address and names the client in
``X-Forwarded-For``. Anyone can send that header, so it is believed only from the addresses
or networks in ``TAVLA_TRUSTED_PROXIES`` (default: none, so the header is never read). This
ASGI middleware sets ``scope["client"]`` once, for HTTP and WebSockets alike, so everything
that asks for the client's address agrees: Django's ``REMOTE_ADDR`` (and through it the
REST throttles and django-axes' login lockout), the sockets' limits and the logs.

Of the header's addresses, read from the right (the proxy nearest to us appends last), the
first that is not itself a trusted proxy is the client; a value that is no address stops the
walk and the connection's own address stays.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache
from ipaddress import IPv4Network, IPv6Network, ip_address, ip_network
from typing import Any

from django.conf import settings

Network = IPv4Network | IPv6Network


def trusted_networks(values: Iterable[str]) -> tuple[Network, ...]:
    """``TAVLA_TRUSTED_PROXIES``' entries (addresses or networks) as networks. Raises
    ``ValueError`` naming an entry that is neither."""
    networks = []
    for value in values:
        value = value.strip()
        if not value:
            continue
        try:
            networks.append(ip_network(value, strict=False))
        except ValueError:
            raise ValueError(f"TAVLA_TRUSTED_PROXIES: {value!r} is not an address or a "
                             "network") from None
    return tuple(networks)


@lru_cache(maxsize=8)
def _configured(values: tuple[str, ...]) -> tuple[Network, ...]:
    return trusted_networks(values)


def configured_networks() -> tuple[Network, ...]:
    """``settings.TAVLA_TRUSTED_PROXIES`` as networks (parsed once per value)."""
    return _configured(tuple(settings.TAVLA_TRUSTED_PROXIES))


def is_trusted(address: str, trusted: tuple[Network, ...]) -> bool:
    try:
        parsed = ip_address(address)
    except ValueError:
        return False
    return any(parsed in network for network in trusted)


def client_address(peer: str | None, forwarded: list[str],
                   trusted: tuple[Network, ...]) -> str | None:
    """The client's address for a connection from ``peer`` carrying the ``X-Forwarded-For``
    values ``forwarded`` (each header line as sent)."""
    if peer is None or not trusted or not is_trusted(peer, trusted):
        return peer
    addresses = [part.strip() for line in forwarded for part in line.split(",")]
    client = peer
    for address in reversed([part for part in addresses if part]):
        try:
            ip_address(address)
        except ValueError:
            break  # garbage from further out: believe nothing beyond our own proxies
        client = address
        if not is_trusted(address, trusted):
            break
    return client


class TrustedProxyMiddleware:
    """Wrap an ASGI app: HTTP and WebSocket scopes get the client's address (see the
    module's docstring) in ``scope["client"]``."""

    def __init__(self, app: Any, trusted: tuple[Network, ...]) -> None:
        self.app = app
        self.trusted = trusted

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> Any:
        if self.trusted and scope["type"] in ("http", "websocket") and scope.get("client"):
            peer, port = scope["client"][0], scope["client"][1]
            forwarded = [value.decode("latin-1") for name, value in scope.get("headers", ())
                         if name.lower() == b"x-forwarded-for"]
            client = client_address(peer, forwarded, self.trusted)
            if client != peer:
                scope = {**scope, "client": [client, port]}
        return await self.app(scope, receive, send)
