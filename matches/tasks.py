"""Celery tasks of match play: thin callers of :mod:`matches.services.clocks` (and of the
expiry of seeks and challenges, :func:`expire_seeks`).

Beat sends ``sweep_expired_clocks`` every ``TAVLA_CLOCK_SWEEP_SECONDS`` (``CELERY_BEAT_SCHEDULE``)
to the clock queue, which has workers of its own (``tavla.queues``), so it never waits behind
other work. It is the only path of clock enforcement besides a late move and a client's check:
nothing is enqueued per action.
"""

from __future__ import annotations

from typing import Any

from celery import shared_task

from matches.services import broadcast, challenges, clocks, correspondence, seeks


@shared_task(name="matches.sweep_expired_clocks", ignore_result=True)
def sweep_expired_clocks() -> dict[str, Any]:
    """Flag every match whose deadline has passed and forfeit the matches of players who
    flagged while disconnected and stayed away past the grace period; nothing when a newer
    sweep is queued behind this one (``{"skipped": True}``)."""
    result = clocks.sweep_unless_newer_queued()
    if result is None:
        return {"skipped": True}
    return {"flagged": result.flagged, "forfeited": result.forfeited}


@shared_task(name="matches.expire_seeks", ignore_result=True)
def expire_seeks() -> dict[str, int]:
    """Mark the seeks and challenges past their time expired (every read and pairing already
    looks at their time: this keeps their recorded status true), and tell the lobbies when a
    seek went."""
    seeks_gone = seeks.seeks_expire()
    if seeks_gone:
        broadcast.broadcast_now(broadcast.LOBBY_GROUP, {"type": "lobby.changed"})
    return {"seeks": seeks_gone, "challenges": challenges.challenges_expire()}


@shared_task(name="matches.notify_turn", ignore_result=True, autoretry_for=(OSError,),
             retry_backoff=True, max_retries=5)
def notify_turn(match_id: int, player_id: int, turn_since: str) -> bool:
    """Mail a correspondence player that it is their turn (queued after the change that
    began the turn commits); a mail server that cannot be reached is tried again."""
    return correspondence.send_turn_mail(match_id=match_id, player_id=player_id,
                                         turn_since=turn_since)
