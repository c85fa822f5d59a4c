"""The language a socket's reader reads, by the rule pages use.

A page's language is :class:`~django.middleware.locale.LocaleMiddleware`'s choice: the
``django_language`` cookie (what the language menu sets, ``LANGUAGE_COOKIE_NAME``), else the
browser's ``Accept-Language``, else ``LANGUAGE_CODE`` (English); the site has no language in its
addresses. A socket opened by that page sends the same cookie and header with its handshake,
so :func:`reader_language` asks Django's own :func:`~django.utils.translation.
get_language_from_request` of them, and the page and its socket always agree.

:class:`ReaderLanguage` (mixed into every consumer through :class:`~matches.live.socket_limits.
GuardedSocket`) runs the whole socket, its connect and every message it handles, with that
language active, so a refusal's ``detail`` (made by ``gettext`` where it is raised) and any
other words sent to this one reader are in the reader's language. Words broadcast to a group
are never made here: a group message carries codes and data, and each socket that receives
it speaks to its own reader.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from django.conf import settings
from django.http.cookie import parse_cookie
from django.utils import translation


def _header(scope: dict[str, Any], name: bytes) -> str:
    for key, value in scope.get("headers") or ():
        if key.lower() == name:
            return bytes(value).decode("latin-1")
    return ""


def reader_language(scope: dict[str, Any]) -> str:
    """The language of the reader of the socket with ASGI ``scope``: the page's rule
    (cookie, then ``Accept-Language``, then the site's default)."""
    cookies = scope.get("cookies")
    if cookies is None:
        cookies = parse_cookie(_header(scope, b"cookie"))
    # Only what get_language_from_request reads (it reads no path: i18n_patterns are off).
    request = SimpleNamespace(
        COOKIES={settings.LANGUAGE_COOKIE_NAME: cookies.get(settings.LANGUAGE_COOKIE_NAME)}
        if cookies.get(settings.LANGUAGE_COOKIE_NAME) else {},
        META={"HTTP_ACCEPT_LANGUAGE": _header(scope, b"accept-language")},
        path_info="/",
    )
    return translation.get_language_from_request(request)  # type: ignore[arg-type]


class ReaderLanguage:
    """A mixin for a Channels consumer: the whole socket runs in its reader's language.

    The language is the one the page chose when the socket opened (a change in the language
    menu reloads the page, which opens a new socket)."""

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        # translation.override keeps its language in a context variable (asgiref's Local):
        # it holds for every handler this socket's task awaits, and sync_to_async hands it to
        # the database thread with the rest of the context.
        with translation.override(reader_language(scope)):
            await super().__call__(scope, receive, send)  # type: ignore[misc]
