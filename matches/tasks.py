"""Celery tasks of match play: thin callers of :mod:`matches.services` and
:mod:`matches.clocks`.

Two paths reach the one idempotent :func:`matches.services.flag_if_expired`: ``flag_match``,
enqueued for each deadline with ``eta=deadline`` when a turn starts, and the beat sweep
``sweep_expired_clocks`` (every 2 s, ``CELERY_BEAT_SCHEDULE``), which catches whatever the
first missed: a lost message, a worker killed while holding it, a broker restart.
"""

from __future__ import annotations

from typing import Any

from celery import shared_task
from django.utils import timezone

from matches import clocks, services
from matches.models import Match, MatchStatus

# A task that fires before its deadline (clock skew, an early timer) waits for it at most
# this often; after that the sweep is the backstop.
EARLY_RETRIES = 3


@shared_task(name="matches.flag_match", ignore_result=True)
def flag_match(match_id: int, version: int | None = None, attempt: int = 0) -> bool:
    """Flag the player on turn if their deadline has passed (idempotent; the service
    re-checks under the row lock, so a late or repeated task changes nothing).

    Fired a little early for the same turn (``version``), it schedules itself again for
    the deadline instead of leaving the flag to the next sweep.
    """
    if services.flag_if_expired(match_id=match_id):
        return True
    if version is not None and attempt < EARLY_RETRIES:
        deadline = (Match.objects.filter(pk=match_id, version=version,
                                         status=MatchStatus.PLAYING)
                    .values_list("deadline", flat=True).first())
        if deadline is not None and deadline > timezone.now():
            flag_match.apply_async((match_id, version, attempt + 1), eta=deadline)
    return False


@shared_task(name="matches.sweep_expired_clocks", ignore_result=True)
def sweep_expired_clocks() -> dict[str, Any]:
    """Flag every match whose deadline has passed and forfeit the matches of players who
    flagged while disconnected and stayed away past the grace period."""
    result = clocks.sweep_expired_clocks()
    return {"flagged": result.flagged, "forfeited": result.forfeited}
