"""The API schema documents the errors every operation can answer, not only its own.

drf-spectacular documents what each view declares; but any request may also be throttled
(429), carry a bad token (401), and, by its shape, name a missing object (404), send an
invalid or oversized body (400, 413) or be refused by a service (403, 409). This
postprocessing hook adds those answers, in the API's one error shape, wherever a view did not
declare them, so a client written from ``/api/schema/`` knows every status it can meet.
"""

from __future__ import annotations

from typing import Any, Final

_METHODS: Final = ("get", "post", "put", "patch", "delete")
_WRITES: Final = ("post", "put", "patch", "delete")
_TEXTS: Final = {
    "400": "Malformed request or invalid input (query parameters or body).",
    "401": "Not logged in, or a wrong token.",
    "403": "Not allowed.",
    "404": "No such object (or not visible to you); also any id that is not a number.",
    "409": "The request conflicts with the current state.",
    "413": "The request body is too large.",
    "429": "Too many requests (rate_limited) or too many failed logins (locked_out); see "
           "Retry-After.",
}


def document_common_errors(result: dict[str, Any], generator: Any, request: Any,
                           public: Any) -> dict[str, Any]:
    schemas = result.setdefault("components", {}).setdefault("schemas", {})
    error: dict[str, Any] = ({"$ref": "#/components/schemas/Error"} if "Error" in schemas
                             else {"type": "object"})
    for path, item in result.get("paths", {}).items():
        for method, operation in item.items():
            if method not in _METHODS:
                continue
            codes = ["401", "429"]
            if "{" in path:
                codes.append("404")
            has_body = "requestBody" in operation
            if has_body or any(p.get("in") == "query" for p in operation.get("parameters", [])):
                codes.append("400")
            if has_body:
                codes.append("413")
            if method in _WRITES:
                codes += ["400", "403", "409"]
            responses = operation.setdefault("responses", {})
            for code in codes:
                responses.setdefault(code, {
                    "description": _TEXTS[code],
                    "content": {"application/json": {"schema": error}},
                })
    return result
