"""The table of a season's match: arenas and ladders start their matches the same way."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext as _

from matches import services as match_services
from matches.errors import ServiceError
from matches.models import Match, Player
from matches.rules import rule_names
from tavla.engine.clock import CORRESPONDENCE_PRESET


def start_match(*, name: str, match_length: int, rules: dict[str, Any], a: Player,
                b: Player) -> Match:
    """A table with ``rules`` at ``match_length``, both players seated: the match starts at
    once (the table's own clocks, forfeits, ratings and analysis apply)."""
    table = match_services.table_create(name=name[:80], match_length=match_length, **rules)
    for player in (a, b):
        match_services.table_sit(table_id=table.pk, player=player,
                                 invite=table.invite_token or None)
    match = match_services.current_match(table)
    if match is None:  # pragma: no cover - two seated players always start a match
        raise ServiceError("not_started", _("The match did not start."))
    return match


def template_clock_fields(preset: str, days: int | None = None) -> dict[str, Any]:
    """The fields of a clock preset that a season's table template (an arena's, a ladder's,
    a league's) has: a live preset's, or for ``correspondence`` that many ``days`` per move
    (the preset's default without them)."""
    names = set(rule_names(template=True))
    fields = match_services.clock_preset_fields(preset)
    if preset == CORRESPONDENCE_PRESET and days is not None:
        fields["correspondence_days"] = days
    return {name: value for name, value in fields.items() if name in names}


def correspondence_refusal(rules: dict[str, Any]) -> str | None:
    """Why a template's ``correspondence_days`` is refused (1 to 7 days, or none), or None."""
    days = rules.get("correspondence_days")
    if days is None or (isinstance(days, int) and not isinstance(days, bool)
                        and 1 <= days <= 7):
        return None
    return _("A correspondence clock gives 1 to 7 days per move.")
