"""REST throttling (DRF): anonymous clients by address, logged-in ones by user, and the token
endpoint by address. Rates come from ``settings.TAVLA_API_RATES`` at request time; over the
rate a client gets 429 ``rate_limited`` (the API's JSON error) with ``Retry-After``.

Login lockout is in :mod:`tavla.security`, the WebSocket limits in
:mod:`matches.live.socket_limits`; every limit is listed in ``docs/protocol.md``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.conf import settings
from rest_framework import throttling

if TYPE_CHECKING:  # DRF imports this module while its views module is half loaded
    from rest_framework.request import Request
    from rest_framework.views import APIView


class _SettingsRate:
    """Reads the rate of ``scope`` from ``settings.TAVLA_API_RATES`` when asked, so a change of
    settings (a deployment's environment, a test) applies at once, and keys the counters
    under ``settings.TAVLA_RATE_LIMIT_PREFIX``."""

    scope: str

    def get_rate(self) -> str | None:
        rate: str | None = settings.TAVLA_API_RATES.get(self.scope)
        return rate

    def prefixed(self, key: str | None) -> str | None:
        return None if key is None else f"{settings.TAVLA_RATE_LIMIT_PREFIX}:{key}"


class AnonymousRateThrottle(_SettingsRate, throttling.AnonRateThrottle):
    """Anonymous clients, counted by address."""

    scope = "anonymous"

    def allow_request(self, request: Request, view: APIView) -> bool:
        self.rate = self.get_rate()
        self.num_requests, self.duration = self.parse_rate(self.rate)
        return super().allow_request(request, view)

    def get_cache_key(self, request: Request, view: APIView) -> str | None:
        return self.prefixed(super().get_cache_key(request, view))


class UserRateThrottle(_SettingsRate, throttling.UserRateThrottle):
    """Logged-in clients (session or token), counted by user."""

    scope = "user"

    def allow_request(self, request: Request, view: APIView) -> bool:
        self.rate = self.get_rate()
        self.num_requests, self.duration = self.parse_rate(self.rate)
        return super().allow_request(request, view)

    def get_cache_key(self, request: Request, view: APIView) -> str | None:
        if not (request.user and request.user.is_authenticated):
            return None  # the anonymous throttle counts these
        return self.prefixed(super().get_cache_key(request, view))


class TokenRateThrottle(_SettingsRate, throttling.AnonRateThrottle):
    """``POST /api/token/``, counted by address: each attempt costs a password hash."""

    scope = "token"

    def allow_request(self, request: Request, view: APIView) -> bool:
        self.rate = self.get_rate()
        self.num_requests, self.duration = self.parse_rate(self.rate)
        return super().allow_request(request, view)

    def get_cache_key(self, request: Request, view: APIView) -> str | None:
        ident = self.get_ident(request)
        return self.prefixed(self.cache_format % {"scope": self.scope, "ident": ident})
