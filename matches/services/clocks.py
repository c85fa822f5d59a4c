"""Clock services: the flag, the sweep that enforces every deadline, a client's request to
check, and the grace period of a player who flagged while disconnected.

Every flag goes through :func:`flag_if_expired` (one idempotent function for the sweep and
a client's check; a late move flags under the lock it already holds, in
:func:`matches.services.match_act`). Nothing is enqueued per action: the deadline of the
player on turn is a column with an index (``Match.deadline``), and the beat sends
:func:`sweep_expired_clocks` to a queue and worker pool of its own (``tavla.queues``) every
``TAVLA_CLOCK_SWEEP_SECONDS``. Sweeps carry no expiry, so none is dropped while a backlog
drains; a sweep with a newer one queued behind it does nothing (that one will see all it
would), so after an outage the backlog drains at once and the last sweep flags every
overdue match. Each sweep leaves its time and findings in Redis
for ``/healthz`` (:func:`last_sweep`).

Imports go one way: tasks and consumers → clocks → services → presence.

The grace rule ("a player who flags while disconnected and does not come back within the
table's grace period forfeits the match") is read this way:

* *flags while disconnected*: when the flag falls, the player has no board of the table open
  (:mod:`matches.services.presence`); a player who never opened one counts as disconnected. The
  timeout event records ``absent`` (``None`` when presence could not tell: no grace then)
  and ``flagged_at``. The flag costs what it always costs.
* *comes back*: within G seconds of the flag the player opens a board of the table (even if
  they close it again), or acts in the match (a bot or REST client that never opens a board).
* Otherwise, once G seconds have passed since the flag, the sweep forfeits the match for the
  opponent (:func:`matches.services.match_forfeit`, reason ``"disconnected past grace"``).
  A flag that ended the match (the USBGF option) leaves nothing to forfeit.
"""

from __future__ import annotations

import json
import logging
import time
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, Final

from django.conf import settings
from django.utils import timezone

from matches import log_reasons, services
from matches.errors import ServiceError
from matches.models import Event, LogKind, Match, MatchStatus, Player
from matches.services import presence
from matches.services.dice_seeds import close_due_client_seeds
from tavla import metrics
from tavla.queues import CLOCK_QUEUE, queue_depth
from tavla.redis_client import redis_client

logger = logging.getLogger(__name__)

GRACE_FORFEIT_REASON: Final = log_reasons.DISCONNECTED
# How far back the sweep looks for flags of absent players (beyond any sensible grace),
# and for how long after a grace period ended it still checks (an outage of the clock
# workers, presence unknown for a while): bounded work per sweep.
GRACE_LOOKBACK: Final = timedelta(hours=1)
GRACE_RECHECK_SECONDS: Final = 300.0
LAST_SWEEP_KEY: Final = "tavla:clock:last-sweep"


def sweep_interval() -> float:
    """Seconds between two sweeps sent by beat."""
    return float(getattr(settings, "TAVLA_CLOCK_SWEEP_SECONDS", 0.5))


def flag_if_expired(*, match_id: int, now: datetime | None = None,
                    skip_locked: bool = False) -> bool:
    """Flag the player whose deadline has passed; idempotent and safe to call any time.

    Locks the match, re-checks the deadline under the lock (a play that got in first
    moved it), and applies the table's flag penalty. Returns True when it flagged.
    A match whose deadline has not passed is not locked at all, so asking often is cheap.
    With ``skip_locked`` (the sweep) a match locked by someone else is left alone: whoever
    holds it decides (a late move flags), and the next sweep looks again.
    """
    deadline = (Match.objects.filter(pk=match_id, status=MatchStatus.PLAYING)
                .values_list("deadline", flat=True).first())
    if deadline is None or deadline > (now or timezone.now()):
        return False
    try:
        with services.match_change(match_id, skip_locked=skip_locked, now=now) as change:
            flagged = (services.deadline_passed(change.match, change.now)
                       and services.flag_change(change))
            flagged_at = change.now
            if flagged:  # inside the door: the line carries the match's id (tavla.logs)
                logger.info("flag fell %.2f s after the deadline",
                            (flagged_at - deadline).total_seconds())
    except ServiceError as error:
        if error.code in ("match_busy", "match_over", "not_found"):
            return False  # another holds it (it decides), or it ended meanwhile
        raise
    if flagged:
        # How far behind the clock workers are: the operator's first figure (tavla.metrics).
        metrics.record_flag_lateness((flagged_at - deadline).total_seconds())
    return flagged


def match_check_clock(*, match_id: int) -> bool:
    """A client whose clock display reached zero asks the server to check; the server still
    decides. Returns True when this call flagged the player. Cheap when nothing is due (no
    lock is taken), so a client may ask as often as its display reaches zero."""
    return flag_if_expired(match_id=match_id)


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
                             created_at__gte=now - GRACE_LOOKBACK, payload__absent=True,
                             # Correspondence players are away between moves by design:
                             # the grace rule is a live table's (docs/correspondence.md).
                             match__table__correspondence_days__isnull=True)
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


def came_back(flag: AbsentFlag) -> bool | None:
    """Whether the flagged player has been back since the flag: a board open now, a board
    closed after the flag (so opened after it), or an action of theirs in the match.
    None when presence cannot tell yet (Redis just lost it) and they have not acted."""
    if Event.objects.filter(match_id=flag.match_id, sequence__gt=flag.sequence,
                            actor_id=flag.user_id).exists():
        return True
    return presence.came_back(table_id=flag.table_id, player_id=flag.player_id,
                              flagged_at=flag.flagged_at)


def forfeit_if_absent(*, flag: AbsentFlag, now: datetime | None = None) -> bool:
    """Forfeit the match of a player who flagged while disconnected and has not come back
    within the grace period. Re-checked under the match lock; returns True when forfeited."""
    now = now or timezone.now()
    if now.timestamp() < flag.grace_ends:
        return False
    try:
        with services.match_change(flag.match_id, now=now) as change:
            if came_back(flag) is not False:
                return False
            loser = Player.objects.get(pk=flag.player_id)
            services.forfeit_change(change, loser=loser, reason=GRACE_FORFEIT_REASON)
            return True
    except ServiceError as error:
        if error.code in ("match_over", "not_found"):
            return False
        raise


@dataclass
class SweepResult:
    flagged: list[int] = field(default_factory=list)
    forfeited: list[int] = field(default_factory=list)


def sweep_expired_clocks(*, now: datetime | None = None) -> SweepResult:
    """Flag every match whose deadline has passed, then forfeit the matches of players who
    flagged while disconnected and did not come back within the grace period.

    Only ids are read here; each match is decided by a service under its lock, so a sweep
    that overlaps a move, a client's check or another sweep changes nothing twice (a match
    another holds is skipped: the holder decides). ``now`` is for tests; by default each
    service reads the time when it holds the lock.
    """
    checked_at = now or timezone.now()
    result = SweepResult()
    for match_id in expired_match_ids(checked_at):
        try:
            if flag_if_expired(match_id=match_id, now=now, skip_locked=True):
                result.flagged.append(match_id)
        except Exception:  # one bad match must not stop the sweep for the others
            logger.exception("sweep could not flag match %s", match_id)
    done: set[int] = set()
    for flag in absent_flags(checked_at):
        if flag.match_id in done or not (
                flag.grace_ends <= checked_at.timestamp() <= flag.grace_ends
                + GRACE_RECHECK_SECONDS):
            continue
        try:
            if came_back(flag) is False and forfeit_if_absent(flag=flag, now=now):
                result.forfeited.append(flag.match_id)
                done.add(flag.match_id)
        except Exception:
            logger.exception("sweep could not check the grace of match %s", flag.match_id)
    try:  # client-seed windows that ran out: the first roll waits no longer
        close_due_client_seeds(now=now)
    except Exception:
        logger.exception("sweep could not close the client seeds")
    return result


def sweep_unless_newer_queued() -> SweepResult | None:
    """The beat's sweep. Does nothing (returns None) while a newer sweep waits on the clock
    queue behind this one: that one will see every deadline this one would, so a backlog of
    queued sweeps (after an outage, or while sweeps run slower than beat sends them) costs
    one Redis command each, and no sweep is ever dropped unrun for being old. Records what
    it did for :func:`last_sweep`, and keeps the presence store's epoch (so a Redis flush
    is seen)."""
    # Beat sends nothing else to the clock queue.
    if queue_depth(CLOCK_QUEUE):
        return None
    started = time.time()
    presence.keep_epoch(now=started)
    result = sweep_expired_clocks()
    record_sweep(started=started, flagged=len(result.flagged),
                 forfeited=len(result.forfeited))
    return result


def record_sweep(*, started: float, flagged: int, forfeited: int) -> None:
    """Leave the trace of a sweep that started at ``started`` and finished now."""
    redis_client().set(LAST_SWEEP_KEY, json.dumps({
        "started": started, "finished": time.time(), "flagged": flagged, "forfeited": forfeited,
    }))


def last_sweep() -> dict[str, Any] | None:
    """The last sweep that ran: ``started`` and ``finished`` (epoch seconds), how many it
    ``flagged`` and ``forfeited``; None if none ran since Redis was emptied."""
    raw: Any = redis_client().get(LAST_SWEEP_KEY)
    if raw is None:
        return None
    record: dict[str, Any] = json.loads(raw)
    return record


def oldest_overdue_deadline(now: datetime | None = None) -> datetime | None:
    """The earliest deadline that has passed in a match still being played: how far the
    clock enforcement is behind."""
    return (Match.objects.filter(status=MatchStatus.PLAYING, deadline__lte=now or timezone.now())
            .order_by("deadline").values_list("deadline", flat=True).first())
