"""Every API error as ``{"error": code, "detail": text}`` with a fitting HTTP status.

:func:`api_exception_handler` is DRF's ``EXCEPTION_HANDLER``: it turns a
:class:`matches.errors.ServiceError` (a refused request; nothing was changed) and DRF's own
exceptions (validation, authentication, permission, not found, malformed JSON) into the one
error shape. Validation errors also carry ``fields``: the message list of each bad field.
"""

from __future__ import annotations

from typing import Any, Final

from django.core.exceptions import PermissionDenied, RequestDataTooBig
from django.http import Http404
from rest_framework import exceptions, status
from rest_framework.response import Response
from rest_framework.views import exception_handler

from matches.errors import ServiceError

# The one error vocabulary of the live protocol (docs/protocol.md, "Errors"): every code the
# REST API and the sockets send, with the HTTP status REST answers it with. A test checks
# that the documentation's table and this one agree, and that every code the services raise
# is here.
ERROR_STATUS: Final[dict[str, int]] = {
    "bad_request": status.HTTP_400_BAD_REQUEST,
    "unknown_type": status.HTTP_400_BAD_REQUEST,
    "unknown_action": status.HTTP_400_BAD_REQUEST,
    "invalid_play": status.HTTP_400_BAD_REQUEST,
    "invalid_level": status.HTTP_400_BAD_REQUEST,
    "invalid_seat": status.HTTP_400_BAD_REQUEST,
    "invalid_option": status.HTTP_400_BAD_REQUEST,
    "invalid_scope": status.HTTP_400_BAD_REQUEST,
    "reason_required": status.HTTP_400_BAD_REQUEST,
    "message_too_long": status.HTTP_400_BAD_REQUEST,
    "not_authenticated": status.HTTP_401_UNAUTHORIZED,
    "authentication_failed": status.HTTP_401_UNAUTHORIZED,
    "forbidden": status.HTTP_403_FORBIDDEN,
    "not_a_player": status.HTTP_403_FORBIDDEN,
    "not_your_turn": status.HTTP_403_FORBIDDEN,
    "seat_reserved": status.HTTP_403_FORBIDDEN,
    "not_found": status.HTTP_404_NOT_FOUND,
    "method_not_allowed": status.HTTP_405_METHOD_NOT_ALLOWED,
    "not_acceptable": status.HTTP_406_NOT_ACCEPTABLE,
    "stale_version": status.HTTP_409_CONFLICT,
    "illegal_action": status.HTTP_409_CONFLICT,
    "match_over": status.HTTP_409_CONFLICT,
    "flag_fell": status.HTTP_409_CONFLICT,
    "no_match": status.HTTP_409_CONFLICT,
    "already_seated": status.HTTP_409_CONFLICT,
    "seat_taken": status.HTTP_409_CONFLICT,
    "table_full": status.HTTP_409_CONFLICT,
    "not_seated": status.HTTP_409_CONFLICT,
    "match_in_progress": status.HTTP_409_CONFLICT,
    "table_not_full": status.HTTP_409_CONFLICT,
    "match_live": status.HTTP_409_CONFLICT,
    "rematch_unavailable": status.HTTP_409_CONFLICT,
    "too_large": status.HTTP_413_REQUEST_ENTITY_TOO_LARGE,
    "unsupported_media_type": status.HTTP_415_UNSUPPORTED_MEDIA_TYPE,
    "rate_limited": status.HTTP_429_TOO_MANY_REQUESTS,
    "too_many_sockets": status.HTTP_429_TOO_MANY_REQUESTS,
    "locked_out": status.HTTP_429_TOO_MANY_REQUESTS,
    "seeds_closed": status.HTTP_409_CONFLICT,
    "seed_already_sent": status.HTTP_409_CONFLICT,
    "invalid_seed": status.HTTP_400_BAD_REQUEST,
}

# DRF's own codes in our vocabulary: one word for one meaning on both doors.
_DRF_CODES: Final[dict[str, str]] = {
    "parse_error": "bad_request",
    "invalid": "bad_request",
    "permission_denied": "forbidden",
    "throttled": "rate_limited",
}


def error_response(code: str, detail: str, http_status: int,
                   **extra: Any) -> Response:
    return Response({"error": code, "detail": detail, **extra}, status=http_status)


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
        return error_response(exc.code, exc.detail,
                              ERROR_STATUS.get(exc.code, status.HTTP_400_BAD_REQUEST))
    if isinstance(exc, exceptions.ValidationError):
        fields = _flatten(exc.detail)
        detail = "; ".join(
            f"{name}: {' '.join(messages)}" if name != "non_field_errors" else " ".join(messages)
            for name, messages in fields.items()
        )
        return error_response("bad_request", detail or "Invalid input.",
                              status.HTTP_400_BAD_REQUEST, fields=fields)
    if isinstance(exc, RequestDataTooBig):  # a body that did not declare its size
        return error_response("too_large", "The request body is too large.",
                              status.HTTP_413_REQUEST_ENTITY_TOO_LARGE)
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
