"""A request id for every HTTP request and socket, and the HTTP figures of ``/metrics``.

The id is the ``X-Request-ID`` header when a proxy of ``TAVLA_TRUSTED_PROXIES`` sent it (so a
line in the proxy's log and Tavla's share it), else a new one; it is set in
:data:`tavla.logs.request_id` for everything the request or the socket logs, and HTTP
responses carry it back in ``X-Request-ID``. Outermost of the ASGI stack: it sees the
connection's own peer, which decides whether the header is believed.
"""

from __future__ import annotations

import re
from typing import Any

from tavla import logs, metrics
from tavla.site.proxies import Network, is_trusted

# A proxy's id: letters, digits and a few separators, short enough for a log line.
_VALID_ID = re.compile(r"[A-Za-z0-9._:@/+=-]{1,128}")


def request_id_of(scope: dict[str, Any], trusted: tuple[Network, ...]) -> str:
    client = scope.get("client")
    if client and trusted and is_trusted(client[0], trusted):
        for name, value in scope.get("headers", ()):
            if name.lower() == b"x-request-id":
                given = value.decode("latin-1").strip()
                if _VALID_ID.fullmatch(given):
                    return given
    return logs.new_request_id()


class RequestIdMiddleware:
    """Wrap an ASGI app: each HTTP request and socket runs with its request id."""

    def __init__(self, app: Any, trusted: tuple[Network, ...]) -> None:
        self.app = app
        self.trusted = trusted

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> Any:
        if scope["type"] not in ("http", "websocket"):
            return await self.app(scope, receive, send)
        identifier = request_id_of(scope, self.trusted)
        token = logs.request_id.set(identifier)
        try:
            if scope["type"] == "websocket":
                return await self.app(scope, receive, send)

            async def send_with_id(message: dict[str, Any]) -> None:
                if message["type"] == "http.response.start":
                    status = int(message["status"])
                    metrics.HTTP_RESPONSES.labels(status=f"{status // 100}xx").inc()
                    if status >= 500:
                        metrics.record_error("http")
                    message = {**message, "headers": [
                        *message.get("headers", ()), (b"x-request-id", identifier.encode())]}
                await send(message)

            return await self.app(scope, receive, send_with_id)
        finally:
            logs.request_id.reset(token)
