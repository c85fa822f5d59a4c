"""Template context of every page: the header's "your turn" count (docs/correspondence.md)."""

from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest

from matches.selectors import your_turn_count


def your_turn(request: HttpRequest) -> dict[str, Callable[[], int]]:
    """``your_turn_count``: matches waiting for the logged-in viewer. A callable, which a
    template calls when it shows the value: a page without the header runs no query, one
    with it runs one indexed count."""
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {}
    user_id = user.pk
    return {"your_turn_count": lambda: your_turn_count(user_id)}
