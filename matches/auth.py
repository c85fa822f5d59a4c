"""WebSocket authentication for bots: ``Authorization: Token <key>``, as the REST API takes.

:class:`TokenAuthMiddleware` sits inside Channels' ``AuthMiddlewareStack``: a browser's
session has already put its user in ``scope["user"]``; a socket without a logged-in session
that sends an API token gets the token's user instead. An unknown token leaves the socket
anonymous (a spectator), exactly as no token does.
"""

from __future__ import annotations

from typing import Any

from channels.db import database_sync_to_async
from channels.middleware import BaseMiddleware


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
    from rest_framework.authtoken.models import Token

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
