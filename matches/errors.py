"""The one error type of a refused request, shared by services, consumers and APIs."""

from __future__ import annotations


class ServiceError(Exception):
    """A refused request; nothing was changed.

    ``code`` is stable for programs (the socket sends it as ``error``, the REST API maps it to
    an HTTP status in :mod:`matches.rest.errors`); ``detail`` is for people. Services raise it
    when a rule refuses a request; consumers raise it for a malformed message before any
    service is called.
    """

    def __init__(self, code: str, detail: str) -> None:
        super().__init__(detail)
        self.code = code
        self.detail = detail
