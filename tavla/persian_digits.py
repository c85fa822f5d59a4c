"""Persian digits on Persian pages.

Templates print numbers (ratings, scores, dates, table numbers…) with Django's Latin digits,
and Django's ``fa`` formats keep them Latin. Rather than a filter on every number in every
template, the HTML of a Persian page has the digits of its *text* turned into Persian digits
once, on the way out. Markup is left alone: tags and their attributes (URLs, ids, form values),
character references (``&#39;``), and the content of ``script``, ``style``, ``textarea``,
``code`` and ``pre`` (JSON data for the page's scripts, CSS, what a user typed, examples of
input such as ``{"rounds": 5}`` that must be typed with Latin digits).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from django.http import HttpRequest, HttpResponse
from django.utils.translation import get_language

PERSIAN_DIGITS = str.maketrans("0123456789", "۰۱۲۳۴۵۶۷۸۹")

# Markup that keeps its digits: raw-text elements, comments, then any other tag.
_KEPT = re.compile(
    r"(<(script|style|textarea|code|pre)\b.*?</\2\s*>|<!--.*?-->|<[^>]*>)",
    re.IGNORECASE | re.DOTALL,
)
_REFERENCE_OR_DIGITS = re.compile(r"&#?\w+;|[0-9]+")


def _text_digits(text: str) -> str:
    return _REFERENCE_OR_DIGITS.sub(
        lambda m: m.group() if m.group().startswith("&") else m.group().translate(PERSIAN_DIGITS),
        text)


def persian_digits_in_html(html: str) -> str:
    """``html`` with Persian digits in its text and its markup unchanged."""
    out: list[str] = []
    last = 0
    for match in _KEPT.finditer(html):
        out.append(_text_digits(html[last:match.start()]))
        out.append(match.group())
        last = match.end()
    out.append(_text_digits(html[last:]))
    return "".join(out)


class PersianDigitsMiddleware:
    """Persian digits in the text of every HTML page served in Persian."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if (get_language() == "fa" and not response.streaming
                and response.get("Content-Type", "").startswith("text/html")):
            charset = response.charset or "utf-8"
            response.content = persian_digits_in_html(
                response.content.decode(charset)).encode(charset)
            if response.has_header("Content-Length"):
                response["Content-Length"] = str(len(response.content))
        return response
