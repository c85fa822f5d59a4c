"""Health for two kinds of asker: ``GET /livez`` for a load balancer, ``GET /healthz`` for
monitoring.

``/livez`` (:func:`livez`) is per process: this web process serves and its database
connection answers ``SELECT 1``. Nothing shared by the cluster counts, so a stopped worker or
beat never takes a web process out of a load balancer's rotation.

``/healthz`` (:func:`healthz`) is the whole cluster, for alerting. It answers JSON
``{"status", "problems", "database", "redis", "celery", "workers", "beat", "heartbeats",
"clock"}``. ``database``, ``redis`` and ``celery`` are ``"ok"`` or a short error. ``workers``
names, for each queue of ``tavla.queues``, the live workers that read it. ``beat`` is the
time of the last heartbeat (scheduled by beat, run by a default-queue worker) or ``null``.
``clock`` describes the clock enforcement: ``last_sweep`` (ISO time the last sweep finished,
or ``null``), ``sweep_age`` (seconds), ``queue_depth`` (sweeps waiting on the clock queue),
``oldest_overdue`` (the earliest passed deadline of a match still being played, or ``null``)
and ``overdue_seconds``.

A worker counts as live when its own heartbeat (``tavla.worker_heartbeats``, every 2 s from
the worker's main process) is at most :data:`WORKER_FRESH_SECONDS` old; only for a queue with
no such worker are the workers asked, once, which queues they read, and one that answers
within :data:`WORKER_ANSWER_SECONDS` counts too. So one slow answer to a ping is no longer
an outage: ``celery`` fails only when some queue has no worker that either beat recently or
answered.

The status is 503, with each reason in ``problems``, when the database or Redis is down,
when a queue has no live worker, when beat's heartbeat is older than three intervals (or
never came), when no clock sweep finished for :data:`SWEEP_STALE_SECONDS`, or when the clock
queue is far behind (deeper than :data:`MAX_CLOCK_QUEUE`, or a deadline overdue by more than
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

from matches.services import clocks
from tavla.celery import app
from tavla.queues import CLOCK_QUEUE, queue_depth, queue_names
from tavla.tasks import BEAT_COUNT_KEY, BEAT_LAST_KEY
from tavla.worker_heartbeats import fresh_workers

OK: Final = "ok"
# A sweep runs every TAVLA_CLOCK_SWEEP_SECONDS; one may take a few seconds after an outage.
SWEEP_STALE_SECONDS: Final = 10.0
# Normally 0-2 sweeps wait; sweeps coalesce, so a deep queue means no clock worker reads it.
MAX_CLOCK_QUEUE: Final = 50
MAX_OVERDUE_SECONDS: Final = 5.0
# A worker's heartbeat comes every 2 s: five missed in a row and it no longer counts by it.
WORKER_FRESH_SECONDS: Final = 10.0
# How long the workers are given to answer when some queue has no fresh heartbeat.
WORKER_ANSWER_SECONDS: Final = 2.0


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


def workers_by_queue(queues: list[str] | None = None) -> dict[str, list[str]]:
    """For each queue (by default every queue of ``tavla.queues``), the names of the live
    workers that read it: those whose heartbeat is at most :data:`WORKER_FRESH_SECONDS`
    old, and, only when that leaves some queue without one, those that answer within
    :data:`WORKER_ANSWER_SECONDS` when asked which queues they read. An empty list: no
    worker of that queue is alive.

    Raises ``redis.RedisError`` or kombu's ``OperationalError`` when Redis is away.
    """
    found: dict[str, set[str]] = {name: set() for name in queues or queue_names()}
    for hostname, read in fresh_workers(WORKER_FRESH_SECONDS).items():
        for name in read:
            if name in found:
                found[name].add(hostname)
    if not all(found.values()):
        # A worker without heartbeats (started --without-heartbeat), or one that just came.
        answers = app.control.inspect(timeout=WORKER_ANSWER_SECONDS).active_queues() or {}
        for hostname, read_queues in answers.items():
            for queue in read_queues:
                if queue.get("name") in found:
                    found[queue["name"]].add(hostname)
    return {name: sorted(hostnames) for name, hostnames in found.items()}


def check_celery(workers: dict[str, list[str]]) -> str:
    """``"ok"`` when every queue in ``workers`` (from :func:`workers_by_queue`) has a live
    worker, else which queues have none."""
    missing = [name for name, hostnames in workers.items() if not hostnames]
    if not missing:
        return OK
    return "no live worker reads queue " + ", ".join(missing)


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
    sweep = clocks.last_sweep()
    finished = None if sweep is None else float(sweep["finished"])
    depth = queue_depth(CLOCK_QUEUE)
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
    # Without Redis the broker is gone too; don't wait on answers that cannot arrive.
    workers: dict[str, list[str]] | None = None
    celery_state = "broker unreachable"
    if redis_state == OK:
        try:
            workers = workers_by_queue()
        except Exception as exc:
            celery_state = _describe(exc)
        else:
            celery_state = check_celery(workers)
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
        "workers": workers,
        "beat": beat,
        "heartbeats": heartbeats,
        "clock": clock,
    }
    return JsonResponse(body, status=503 if problems else 200)
