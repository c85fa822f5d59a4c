"""Login lockout (django-axes): the backend and the answer a locked-out login gets.

The WebSocket limits are in :mod:`matches.live.socket_limits`; every limit and its error is listed
in ``docs/protocol.md``.

* :class:`LockoutBackend` — django-axes' standalone backend, first in
  ``AUTHENTICATION_BACKENDS``: a username locked out from an address is refused before any
  password is hashed. Every login over the network (``/accounts/login/``, ``/admin/login/``,
  ``/api/token/``) passes its request; a call without one (the test client's ``login()``,
  a shell) is not an attempt from anywhere and is left to the next backend.
* :func:`lockout_response` — what a locked-out login gets: 429 with the API's JSON error
  ``locked_out`` under ``/api/``, a page saying when to try again elsewhere.

The REST throttles are in :mod:`tavla.throttles`.
"""

from __future__ import annotations

from typing import Any

from axes.backends import AxesStandaloneBackend
from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render

LOCKED_OUT_STATUS = 429


class LockoutBackend(AxesStandaloneBackend):  # type: ignore[misc]
    """django-axes' lockout check for every authentication that comes with a request."""

    def authenticate(self, request: HttpRequest | None, username: str | None = None,
                     password: str | None = None, **kwargs: Any) -> None:
        if request is None:
            return None
        return super().authenticate(  # type: ignore[no-any-return]
            request, username=username, password=password, **kwargs)


def lockout_message() -> str:
    minutes = settings.AXES_COOLOFF_TIME.total_seconds() / 60
    return (f"Too many failed logins for this username from this address: try again in "
            f"{minutes:g} minutes.")


def lockout_response(request: HttpRequest, original_response: HttpResponse | None = None,
                     credentials: dict[str, Any] | None = None) -> HttpResponse:
    """django-axes' ``AXES_LOCKOUT_CALLABLE``: 429, JSON under ``/api/``, a page elsewhere."""
    retry_after = str(int(settings.AXES_COOLOFF_TIME.total_seconds()))
    response: HttpResponse
    if request.path.startswith("/api/"):
        response = JsonResponse({"error": "locked_out", "detail": lockout_message()},
                                status=LOCKED_OUT_STATUS)
    else:
        response = render(request, "registration/locked_out.html",
                          {"detail": lockout_message()}, status=LOCKED_OUT_STATUS)
    response["Retry-After"] = retry_after
    return response
