"""Clock services: the sweep that backs up the per-deadline tasks, a client's request to
check, and the grace period of a player who flagged while disconnected.

Flags themselves are :func:`matches.services.flag_if_expired` (one idempotent function for
the deadline task, the sweep, a late move and a client's check).

The grace rule ("a player who flags while disconnected and does not come back within the
table's grace period forfeits the match") is read this way:

* *flags while disconnected*: when the flag falls, the player has no board of the table open
  (:mod:`matches.presence`); a player who never opened one counts as disconnected. The
  timeout event records ``absent`` and ``flagged_at``. The flag costs what it always costs.
* *comes back*: within G seconds of the flag the player opens a board of the table (even if
  they close it again), or acts in the match (a bot or REST client that never opens a board).
* Otherwise, once G seconds have passed since the flag, the sweep forfeits the match for the
  opponent (:func:`matches.services.match_forfeit`, reason ``"disconnected past grace"``).
  A flag that ended the match (the USBGF option) leaves nothing to forfeit.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Final

from django.db import transaction
from django.utils import timezone

from matches import presence, services
from matches.models import Event, LogKind, Match, MatchStatus, Player

logger = logging.getLogger(__name__)

GRACE_FORFEIT_REASON: Final = "disconnected past grace"
# How far back the sweep looks for flags of absent players (beyond any sensible grace).
GRACE_LOOKBACK: Final = timedelta(days=1)


def match_check_clock(*, match_id: int) -> bool:
    """A client whose clock display reached zero asks the server to check; the server still
    decides. Returns True when this call flagged the player. Cheap when nothing is due (no
    lock is taken), so a client may ask as often as its display reaches zero."""
    return services.flag_if_expired(match_id=match_id)


def expired_match_ids(now: datetime, *, limit: int = 1000) -> list[int]:
    """Matches being played whose deadline has passed, earliest first (the deadline index)."""
    return list(
        Match.objects.filter(status=MatchStatus.PLAYING, deadline__lte=now)
        .order_by("deadline").values_list("pk", flat=True)[:limit]
    )


@dataclass(frozen=True)
class AbsentFlag:
    """A flag that fell while its player had no board open."""

    match_id: int
    table_id: int
    player_id: int
    user_id: int
    sequence: int
    flagged_at: float
    grace: float

    @property
    def grace_ends(self) -> float:
        return self.flagged_at + self.grace


def absent_flags(now: datetime) -> list[AbsentFlag]:
    """Flags of absent players in matches still being played, oldest first."""
    events = (
        Event.objects.filter(kind=LogKind.TIMEOUT, match__status=MatchStatus.PLAYING,
                             created_at__gte=now - GRACE_LOOKBACK, payload__absent=True)
        .select_related("match", "match__table", "match__player0", "match__player1")
        .order_by("created_at")
    )
    flags = []
    for event in events:
        match = event.match
        seat = event.payload["action"]["player"]
        player: Player = match.player0 if seat == 0 else match.player1
        flags.append(AbsentFlag(
            match_id=match.pk, table_id=match.table_id, player_id=player.pk,
            user_id=player.user_id, sequence=event.sequence,
            flagged_at=float(event.payload["flagged_at"]), grace=match.table.grace_seconds,
        ))
    return flags


def came_back(flag: AbsentFlag) -> bool:
    """Whether the flagged player has been back since the flag: a board open now, a board
    closed after the flag (so opened after it), or an action of theirs in the match."""
    if presence.is_connected(table_id=flag.table_id, player_id=flag.player_id):
        return True
    since = presence.disconnected_since(table_id=flag.table_id, player_id=flag.player_id)
    if since is not None and since > flag.flagged_at:
        return True
    return Event.objects.filter(match_id=flag.match_id, sequence__gt=flag.sequence,
                                actor_id=flag.user_id).exists()


def forfeit_if_absent(*, flag: AbsentFlag, now: datetime | None = None) -> bool:
    """Forfeit the match of a player who flagged while disconnected and has not come back
    within the grace period. Re-checked under the match lock; returns True when forfeited."""
    now = now or timezone.now()
    if now.timestamp() < flag.grace_ends:
        return False
    with transaction.atomic():
        match = Match.objects.select_for_update().filter(pk=flag.match_id).first()
        if match is None or match.is_finished or came_back(flag):
            return False
        loser = Player.objects.get(pk=flag.player_id)
        services.match_forfeit(match_id=match.pk, loser=loser, reason=GRACE_FORFEIT_REASON)
        return True


@dataclass
class SweepResult:
    flagged: list[int] = field(default_factory=list)
    forfeited: list[int] = field(default_factory=list)


def sweep_expired_clocks(*, now: datetime | None = None) -> SweepResult:
    """Flag every match whose deadline has passed, then forfeit the matches of players who
    flagged while disconnected and did not come back within the grace period.

    Only ids are read here; each match is decided by a service under its lock, so a sweep
    that overlaps a deadline task, a move or another sweep changes nothing twice. ``now``
    is for tests; by default each service reads the time when it holds the lock.
    """
    checked_at = now or timezone.now()
    result = SweepResult()
    for match_id in expired_match_ids(checked_at):
        try:
            if services.flag_if_expired(match_id=match_id, now=now):
                result.flagged.append(match_id)
        except Exception:  # one bad match must not stop the sweep for the others
            logger.exception("sweep could not flag match %s", match_id)
    done: set[int] = set()
    for flag in absent_flags(checked_at):
        if flag.match_id in done or checked_at.timestamp() < flag.grace_ends:
            continue
        try:
            if not came_back(flag) and forfeit_if_absent(flag=flag, now=now):
                result.forfeited.append(flag.match_id)
                done.add(flag.match_id)
        except Exception:
            logger.exception("sweep could not check the grace of match %s", flag.match_id)
    return result
