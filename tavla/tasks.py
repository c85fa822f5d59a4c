"""Project-wide periodic tasks."""

from __future__ import annotations

from celery import shared_task
from django.core.cache import cache
from django.utils import timezone

BEAT_LAST_KEY = "tavla:beat:last"
BEAT_COUNT_KEY = "tavla:beat:count"
# Long enough to outlive a few missed beats, short enough that a dead beat shows.
BEAT_TTL_SECONDS = 3600


@shared_task(name="tavla.tasks.heartbeat", ignore_result=True)  # type: ignore[untyped-decorator]
def heartbeat() -> str:
    """Leave a trace that beat scheduled and a worker ran a task; /healthz shows it.

    Sets ``tavla:beat:last`` to the ISO time of this run and increments
    ``tavla:beat:count``. Returns the timestamp written.
    """
    now = timezone.now().isoformat()
    cache.set(BEAT_LAST_KEY, now, timeout=BEAT_TTL_SECONDS)
    try:
        cache.incr(BEAT_COUNT_KEY)
    except ValueError:  # first beat since the cache was emptied
        cache.add(BEAT_COUNT_KEY, 1, timeout=None)
    return now
