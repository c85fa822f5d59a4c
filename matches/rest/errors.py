"""Every API error as ``{"error": code, "detail": text}`` with a fitting HTTP status.

:func:`api_exception_handler` is DRF's ``EXCEPTION_HANDLER``: it turns a
:class:`matches.errors.ServiceError` (a refused request; nothing was changed) and DRF's own
exceptions (validation, authentication, permission, not found, malformed JSON) into the one
error shape. Validation errors also carry ``fields``: the message list of each bad field.
The status of every code is in :data:`matches.errors.ERROR_STATUS`, the one table for
matches, tournaments and analysis.
"""

from __future__ import annotations

from typing import Any, Final

from django.core.exceptions import PermissionDenied, RequestDataTooBig
from django.http import Http404
from rest_framework import exceptions
from rest_framework.response import Response
from rest_framework.views import exception_handler

from matches.errors import ERROR_STATUS, ServiceError, http_status

__all__ = ["ERROR_STATUS", "api_exception_handler", "error_response", "service_error_response"]

# DRF's own codes in our vocabulary: one word for one meaning on both doors.
_DRF_CODES: Final[dict[str, str]] = {
    "parse_error": "bad_request",
    "invalid": "bad_request",
    "permission_denied": "forbidden",
    "throttled": "rate_limited",
}


def error_response(code: str, detail: str, **extra: Any) -> Response:
    """The error body, with the code's status from :data:`matches.errors.ERROR_STATUS` (the
    only place a status is chosen)."""
    return Response({"error": code, "detail": detail, **extra}, status=http_status(code))


def service_error_response(error: ServiceError) -> Response:
    """A refused request as REST answers it: the same code and detail as the socket's (and
    the bad field's name in ``fields``, as for every validation error)."""
    if error.field is not None:
        return error_response(error.code, error.detail, fields={error.field: [error.detail]})
    return error_response(error.code, error.detail)


def _flatten(detail: Any, prefix: str = "") -> dict[str, list[str]]:
    """DRF's nested error detail as ``{"field.sub": [messages]}`` (``non_field_errors`` as is)."""
    if isinstance(detail, dict):
        out: dict[str, list[str]] = {}
        for key, value in detail.items():
            out.update(_flatten(value, f"{prefix}.{key}" if prefix else str(key)))
        return out
    if isinstance(detail, list) and detail and not all(isinstance(i, str) for i in detail):
        out = {}
        for index, value in enumerate(detail):
            out.update(_flatten(value, f"{prefix}.{index}" if prefix else str(index)))
        return out
    messages = detail if isinstance(detail, list) else [detail]
    return {prefix or "non_field_errors": [str(message) for message in messages]}


def api_exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    """DRF's exception handler, answering in Tavla's error shape."""
    if isinstance(exc, ServiceError):
        return service_error_response(exc)
    if isinstance(exc, exceptions.ValidationError):
        fields = _flatten(exc.detail)
        detail = "; ".join(
            f"{name}: {' '.join(messages)}" if name != "non_field_errors" else " ".join(messages)
            for name, messages in fields.items()
        )
        return error_response("bad_request", detail or "Invalid input.", fields=fields)
    if isinstance(exc, RequestDataTooBig):  # a body that did not declare its size
        return error_response("too_large", "The request body is too large.")
    if isinstance(exc, Http404):
        exc = exceptions.NotFound()
    elif isinstance(exc, PermissionDenied):
        exc = exceptions.PermissionDenied()
    response = exception_handler(exc, context)
    if response is None or not isinstance(exc, exceptions.APIException):
        return response  # not an API error: a bug, let Django report it
    codes = exc.get_codes()
    code = codes if isinstance(codes, str) else exc.default_code
    response.data = {"error": _DRF_CODES.get(code, code), "detail": str(exc.detail)}
    return response
