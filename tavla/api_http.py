"""The API's HTTP edge: every answer under ``/api/`` is the API's JSON error shape
(``{"error": code, "detail": text}``), for an unknown path and an oversized body too.

* :func:`api_not_found` — the catch-all route at the end of ``/api/``: 404 ``not_found``.
* :class:`ApiBodyLimitMiddleware` — a request under ``/api/`` whose declared body is larger
  than ``settings.TAVLA_API_MAX_BODY_BYTES`` is refused with 413 ``too_large`` before anything
  reads it. Bodies that hide their size (chunked) meet Django's own
  ``DATA_UPLOAD_MAX_MEMORY_SIZE``, which :mod:`matches.rest.errors` answers with the same 413.
"""

from __future__ import annotations

from collections.abc import Callable

from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse


def api_not_found(request: HttpRequest) -> HttpResponse:
    return JsonResponse({"error": "not_found", "detail": "There is no such API endpoint."},
                        status=404)


def too_large_response() -> JsonResponse:
    limit = settings.TAVLA_API_MAX_BODY_BYTES
    return JsonResponse({"error": "too_large",
                         "detail": f"A request body is at most {limit} bytes."}, status=413)


class ApiBodyLimitMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if request.path.startswith("/api/"):
            try:
                length = int(request.META.get("CONTENT_LENGTH") or 0)
            except ValueError:
                return JsonResponse({"error": "bad_request", "detail": "Bad Content-Length."},
                                    status=400)
            if length > settings.TAVLA_API_MAX_BODY_BYTES:
                return too_large_response()
        return self.get_response(request)
