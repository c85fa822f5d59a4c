"""Template helpers for tournament pages."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django import template
from django.utils.translation import gettext_lazy as _

from matches.models import Player
from tournaments.notices import notices_for

register = template.Library()

TIEBREAK_LABELS = {
    "buchholz": _("Buchholz"),
    "median_buchholz": _("Median Buchholz"),
    "sonneborn_berger": _("Sonneborn-Berger"),
    "head_to_head": _("Head to head"),
    "points_difference": _("Points +/-"),
    "wins": _("Wins"),
}


@register.filter
def tiebreak_label(name: str) -> str:
    return str(TIEBREAK_LABELS.get(name, name.replace("_", " ")))


@register.inclusion_tag("tournaments/_pairing.html")
def pairing_box(pairing: dict[str, Any]) -> dict[str, Any]:
    """One match box of the bracket (a pairing as :func:`selectors.pairing_dict` gives it)."""
    return {"p": {**pairing, "sides": [pairing["a"], pairing["b"]]}}


@register.filter
def parse_iso(value: str | None) -> datetime | None:
    """An ISO 8601 time from a JSON-ready dict, back as a datetime for the ``date`` filter."""
    return datetime.fromisoformat(value) if value else None


@register.inclusion_tag("tournaments/_notices.html", takes_context=True)
def pairing_notices(context: dict[str, Any]) -> dict[str, Any]:
    """The viewer's pairings to play ("Your match: table 7 against X"), kept live."""
    request = context.get("request")
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {"show": False}
    strings = {
        "with_table": _("Your match: table {table} against {opponent}"),
        "without_table": _("Your match against {opponent}"),
        "sit": _("Sit down"),
        "report": _("Report the result"),
        "ready": _("Your tournament match is ready"),
        "starts": _("starts {time}"),
        "challenged": _("{name} challenges you to a game"),
        "challenge_title": _("A challenge"),
        "answer": _("Answer"),
    }
    return {"show": True, "notices": notices_for(Player.objects.filter(user=user).first()),
            "strings": {key: str(value) for key, value in strings.items()}}
