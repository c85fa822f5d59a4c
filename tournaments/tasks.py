"""Celery tasks of tournaments: thin callers of :mod:`tournaments.services`."""

from __future__ import annotations

from celery import shared_task

from tournaments import services


@shared_task(name="tournaments.forfeit_no_shows", ignore_result=True)
def forfeit_no_shows() -> int:
    """Beat sweep: forfeit paired players who did not sit down in time. Each pairing is
    re-checked under its tournament's lock, so overlapping sweeps are harmless."""
    return len(services.forfeit_no_shows())
