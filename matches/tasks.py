"""Celery tasks of match play: thin callers of :mod:`matches.services`."""

from __future__ import annotations

from celery import shared_task

from matches import services


@shared_task(name="matches.flag_match", ignore_result=True)
def flag_match(match_id: int, version: int | None = None) -> bool:
    """Flag the player on turn if their deadline has passed (idempotent; the service
    re-checks under the row lock, so a late or repeated task changes nothing)."""
    return services.flag_if_expired(match_id=match_id)
