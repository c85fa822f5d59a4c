"""The table of a season's match: arenas and ladders start their matches the same way."""

from __future__ import annotations

from typing import Any

from matches import services as match_services
from matches.errors import ServiceError
from matches.models import Match, Player


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
        raise ServiceError("not_started", "The match did not start.")
    return match
