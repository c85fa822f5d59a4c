"""The late-arrival penalty: points to the opponent for each full period a player sat down
late at a table reserved for a pairing (UK Open and NVBC: 1 point per 5 minutes), applied as
the match's starting score and recorded in its ``start`` event.

Lateness counts from ``Table.reserved_at`` (when the pairing armed the table) to the moment
the player took their seat. A penalty never gives anyone the match: each starting score is
at most the match length minus one (the no-show limit deals with players who never come).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from matches.models import Table


def late_start_score(table: Table, match_length: int | None
                     ) -> tuple[tuple[int, int], dict[str, Any] | None]:
    """The starting score (seat 0, seat 1) and what to log, or ``((0, 0), None)`` when no
    penalty applies (none set, a money session, the table not reserved, nobody late)."""
    points, minutes = table.late_penalty_points, table.late_penalty_minutes
    reserved_at = table.reserved_at
    if not points or minutes < 1 or reserved_at is None or not match_length:
        return (0, 0), None
    periods = [_periods_late(since, reserved_at, minutes)
               for since in (table.seat0_since, table.seat1_since)]
    if not any(periods):
        return (0, 0), None
    cap = match_length - 1
    # Seat 1's lateness is seat 0's points, and the other way round.
    score = (min(cap, points * periods[1]), min(cap, points * periods[0]))
    return score, {"points_per_period": points, "period_minutes": minutes,
                   "periods_late": periods, "start_score": list(score),
                   "reserved_at": reserved_at.isoformat()}


def _periods_late(since: datetime | None, reserved_at: datetime, minutes: int) -> int:
    if since is None or since <= reserved_at:
        return 0
    return int((since - reserved_at).total_seconds() // (minutes * 60))
