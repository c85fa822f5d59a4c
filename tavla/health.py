"""``GET /healthz``: is every part of a running Tavla alive, and are the clocks on time?

Answers JSON ``{"status", "problems", "database", "redis", "celery", "beat", "heartbeats",
"clock"}``. ``database``, ``redis`` and ``celery`` are ``"ok"`` or a short error. ``beat`` is
the time of the last heartbeat (scheduled by beat, run by a default-queue worker) or
``null``. ``clock`` describes the clock enforcement: ``last_sweep`` (ISO time the last sweep
finished, or ``null``), ``sweep_age`` (seconds), ``queue_depth`` (sweeps waiting on the clock
queue), ``oldest_overdue`` (the earliest passed deadline of a match still being played, or
``null``) and ``overdue_seconds``.

The status is 503, with each reason in ``problems``, when the database, Redis or every
Celery worker is down, when beat's heartbeat is older than three intervals (or never came),
when no clock sweep finished for :data:`SWEEP_STALE_SECONDS`, or when the clock queue is
far behind (deeper than :data:`MAX_CLOCK_QUEUE`, or a deadline overdue by more than
:data:`MAX_OVERDUE_SECONDS`): flags and forfeits would not fall on time.
"""

from __future__ import annotations

import time
from datetime import datetime
from typing import Any, Final

import redis
from django.conf import settings
from django.core.cache import cache
from django.db import connection
from django.http import HttpRequest, JsonResponse
from django.utils import timezone
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

from tavla.queues import CLOCK_QUEUE
from tavla.redis_client import redis_client
from tavla.tasks import BEAT_COUNT_KEY, BEAT_LAST_KEY

OK: Final = "ok"
# A sweep runs every TAVLA_CLOCK_SWEEP_SECONDS; one may take a few seconds after an outage.
SWEEP_STALE_SECONDS: Final = 10.0
# Normally 0-2 sweeps wait; sweeps coalesce, so a deep queue means no clock worker reads it.
MAX_CLOCK_QUEUE: Final = 50
MAX_OVERDUE_SECONDS: Final = 5.0


def _describe(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"[:200]


def check_database() -> str:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    except Exception as exc:  # any failure here means "down"; say which
        return _describe(exc)
    return OK


def check_redis() -> str:
    client = redis.Redis.from_url(settings.REDIS_URL, socket_timeout=1,
                                  socket_connect_timeout=1)
    try:
        client.ping()
    except Exception as exc:
        return _describe(exc)
    finally:
        client.close()
    return OK


def check_celery() -> str:
    """At least one worker answers a broadcast ping within a second."""
    from tavla.celery import app

    try:
        replies = app.control.ping(timeout=1, limit=1)
    except Exception as exc:
        return _describe(exc)
    return OK if replies else "no worker answered ping"


def beat_age(beat: str | None, now: datetime) -> float | None:
    """Seconds since the heartbeat ``beat`` (ISO time), or None when there is none."""
    if not beat:
        return None
    try:
        return (now - datetime.fromisoformat(beat)).total_seconds()
    except (TypeError, ValueError):
        return None


def clock_state(now: datetime) -> dict[str, Any]:
    """What ``clock`` reports: the last sweep, the clock queue and the oldest overdue
    deadline. Needs Redis and the database."""
    from matches import clocks

    sweep = clocks.last_sweep()
    finished = None if sweep is None else float(sweep["finished"])
    # The Redis broker keeps a queue as a list named after it.
    depth = int(redis_client().llen(CLOCK_QUEUE))
    overdue = clocks.oldest_overdue_deadline(now)
    return {
        "last_sweep": None if finished is None
        else datetime.fromtimestamp(finished, tz=now.tzinfo).isoformat(),
        "sweep_age": None if finished is None else round(time.time() - finished, 3),
        "queue_depth": depth,
        "oldest_overdue": None if overdue is None else overdue.isoformat(),
        "overdue_seconds": None if overdue is None else round((now - overdue).total_seconds(), 3),
    }


def clock_problems(clock: dict[str, Any], beat_seconds: float | None) -> list[str]:
    """Why the clock enforcement or beat is not healthy (empty when it is)."""
    problems = []
    heartbeat = float(getattr(settings, "TAVLA_HEARTBEAT_SECONDS", 5.0))
    if beat_seconds is None:
        problems.append("beat: no heartbeat yet")
    elif beat_seconds > 3 * heartbeat:
        problems.append(f"beat: last heartbeat {beat_seconds:.0f} s ago")
    if clock["sweep_age"] is None:
        problems.append("clock: no sweep has run")
    elif clock["sweep_age"] > SWEEP_STALE_SECONDS:
        problems.append(f"clock: last sweep {clock['sweep_age']:.0f} s ago")
    if clock["queue_depth"] > MAX_CLOCK_QUEUE:
        problems.append(f"clock: {clock['queue_depth']} sweeps waiting")
    if clock["overdue_seconds"] is not None and clock["overdue_seconds"] > MAX_OVERDUE_SECONDS:
        problems.append(f"clock: a deadline is {clock['overdue_seconds']:.0f} s overdue")
    return problems


@never_cache
@require_GET
def livez(request: HttpRequest) -> JsonResponse:
    """``GET /livez``: this web process serves requests and its database connection answers.

    For a load balancer's or proxy's health check: it asks nothing shared by the whole
    cluster (workers, beat, the clock queue), so a stopped worker never takes a web process
    out of rotation. 200 ``{"status": "ok", "database": "ok"}``, or 503 with the database's
    error.
    """
    database = check_database()
    body = {"status": OK if database == OK else "error", "database": database}
    return JsonResponse(body, status=200 if database == OK else 503)


@never_cache
@require_GET
def healthz(request: HttpRequest) -> JsonResponse:
    now = timezone.now()
    database = check_database()
    redis_state = check_redis()
    # Without Redis the broker is gone too; don't wait on a ping that cannot arrive.
    celery_state = check_celery() if redis_state == OK else "broker unreachable"
    problems = [f"{name}: {state}" for name, state in
                (("database", database), ("redis", redis_state), ("celery", celery_state))
                if state != OK]
    beat: str | None = None
    heartbeats: int | None = None
    clock: dict[str, Any] | None = None
    if redis_state == OK:
        try:
            beat = cache.get(BEAT_LAST_KEY)
            heartbeats = cache.get(BEAT_COUNT_KEY)
        except Exception:  # the cache may point elsewhere than REDIS_URL; the check stands
            pass
        if database == OK:
            try:
                clock = clock_state(now)
            except Exception as exc:
                problems.append(f"clock: {_describe(exc)}")
            else:
                problems += clock_problems(clock, beat_age(beat, now))
    body = {
        "status": "error" if problems else OK,
        "problems": problems,
        "database": database,
        "redis": redis_state,
        "celery": celery_state,
        "beat": beat,
        "heartbeats": heartbeats,
        "clock": clock,
    }
    return JsonResponse(body, status=503 if problems else 200)
