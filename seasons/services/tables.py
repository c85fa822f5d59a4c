"""The table of a season's match: arenas and ladders start their matches the same way."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext as _

from matches import services as match_services
from matches.errors import ServiceError
from matches.models import Match, Player
from matches.rules import rule_names


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


def template_clock_fields(preset: str) -> dict[str, Any]:
    """The fields of a live clock preset that a season's table template (an arena's, a
    ladder's) has: a correspondence table's days are a table's rule, not a template's."""
    names = set(rule_names(template=True))
    return {name: value for name, value in match_services.clock_preset_fields(preset).items()
            if name in names}
