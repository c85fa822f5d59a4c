"""WebSocket authentication for bots: ``Authorization: Token <key>``, as the REST API takes.

:class:`TokenAuthMiddleware` sits inside Channels' auth stack (:func:`socket_auth_stack`):
a browser's session has already put its user in ``scope["user"]``; a socket without a
logged-in session that sends an API token gets the token's user instead. An unknown token
leaves the socket anonymous (a spectator), exactly as no token does.
"""

from __future__ import annotations

from typing import Any

from channels.auth import AuthMiddleware
from channels.db import database_sync_to_async
from channels.middleware import BaseMiddleware
from channels.sessions import CookieMiddleware, InstanceSessionWrapper, SessionMiddleware
from rest_framework.authtoken.models import Token


def token_key(headers: list[tuple[bytes, bytes]]) -> str | None:
    """The key of an ``Authorization: Token <key>`` header, if there is one."""
    for name, value in headers:
        if name.lower() == b"authorization":
            kind, _, key = value.decode("latin-1").partition(" ")
            if kind.lower() == "token" and key.strip():
                return key.strip()
    return None


def user_of_token(key: str) -> Any:
    """The active user owning the API token ``key``, else ``None``."""
    token = Token.objects.select_related("user").filter(key=key).first()
    if token is None or not token.user.is_active:
        return None
    return token.user


class TokenAuthMiddleware(BaseMiddleware):  # type: ignore[misc]
    """Put the owner of a valid API token in ``scope["user"]`` when no session user is."""

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> Any:
        user = scope.get("user")
        if user is None or not getattr(user, "is_authenticated", False):
            key = token_key(scope.get("headers", []))
            if key is not None:
                owner = await database_sync_to_async(user_of_token)(key)
                if owner is not None:
                    scope = dict(scope, user=owner)
        return await super().__call__(scope, receive, send)


class ReadOnlySessionMiddleware(SessionMiddleware):  # type: ignore[misc]
    """Channels' session middleware for sockets, which read the session and never write it
    (invitations are stored by the board's page, over HTTP): the session is resolved the
    same way, but the socket's sends are not wrapped. Channels' wrapper looked at the
    session on every message sent, to save it on an HTTP response's start only; on a table
    with 400 spectators that was about a sixth of a pushed state's cost per board (24 -> 20
    µs, ``benchmarks/live_load.py``)."""

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> Any:
        wrapper = InstanceSessionWrapper(scope, send)
        await wrapper.resolve_session()
        return await self.inner(wrapper.scope, receive, send)


def socket_auth_stack(inner: Any) -> Any:
    """Channels' ``AuthMiddlewareStack`` with a read-only session, then API tokens."""
    return CookieMiddleware(
        ReadOnlySessionMiddleware(AuthMiddleware(TokenAuthMiddleware(inner))))
