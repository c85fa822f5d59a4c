"""``GET /healthz``: is every part of a running Tavla alive?

Answers JSON ``{"status", "database", "redis", "celery", "beat", "heartbeats"}``. Each part
is ``"ok"`` or a short error. ``beat`` is the time of the last heartbeat (scheduled by beat,
run by a worker) or ``null``. The status is 503 when the database, Redis or every Celery
worker is down; a stale beat is shown but does not fail the check, since a web process can
serve players without it.
"""

from __future__ import annotations

import redis
from django.conf import settings
from django.core.cache import cache
from django.db import connection
from django.http import HttpRequest, JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

from tavla.tasks import BEAT_COUNT_KEY, BEAT_LAST_KEY

OK = "ok"


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


@never_cache
@require_GET
def healthz(request: HttpRequest) -> JsonResponse:
    database = check_database()
    redis_state = check_redis()
    # Without Redis the broker is gone too; don't wait on a ping that cannot arrive.
    celery_state = check_celery() if redis_state == OK else "broker unreachable"
    beat: str | None = None
    heartbeats: int | None = None
    if redis_state == OK:
        try:
            beat = cache.get(BEAT_LAST_KEY)
            heartbeats = cache.get(BEAT_COUNT_KEY)
        except Exception:  # the cache may point elsewhere than REDIS_URL; the check stands
            pass
    healthy = database == OK and redis_state == OK and celery_state == OK
    body = {
        "status": OK if healthy else "error",
        "database": database,
        "redis": redis_state,
        "celery": celery_state,
        "beat": beat,
        "heartbeats": heartbeats,
    }
    return JsonResponse(body, status=200 if healthy else 503)
