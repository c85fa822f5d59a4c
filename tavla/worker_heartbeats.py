"""Each Celery worker says, every two seconds, that it is alive and which queues it reads.

Celery's own worker heartbeat (an event sent every 2 s by the worker's main process, however
busy its pool is) calls :func:`record`, which leaves ``hostname → {"queues", "at"}`` in one
Redis hash; ``/healthz`` reads it with :func:`fresh_workers` and so learns which queues have
a live worker without waiting on a broadcast ping. A worker that stops cleanly takes its
entry away; one that dies leaves an entry that stops growing fresh, and is dropped once it
is :data:`FORGET_SECONDS` old. A worker started ``--without-heartbeat`` never records:
``/healthz`` then falls back to asking the workers. Times are the worker's wall clock, so
hosts must keep the same time (NTP); a host seconds off only sends ``/healthz`` to ask.

The handlers are connected when this module is imported, which ``tavla.celery`` does, so
every worker of the app has them.
"""

from __future__ import annotations

import json
import logging
import time
from typing import Any, Final

import redis
from celery.signals import celeryd_after_setup, heartbeat_sent, worker_shutdown

from tavla.redis_client import redis_client

logger = logging.getLogger(__name__)

WORKERS_KEY: Final = "tavla:workers"
FORGET_SECONDS: Final = 3600.0

# This process's worker: set once Celery has set it up (its name and its -Q queues).
_this_worker: dict[str, Any] = {}


@celeryd_after_setup.connect
def _remember_this_worker(sender: str, instance: Any, **kwargs: Any) -> None:
    _this_worker.update(hostname=sender, queues=sorted(instance.app.amqp.queues.consume_from))


@heartbeat_sent.connect
def _on_heartbeat(sender: Any, **kwargs: Any) -> None:
    if _this_worker:
        record(_this_worker["hostname"], _this_worker["queues"])


@worker_shutdown.connect
def _on_shutdown(sender: Any, **kwargs: Any) -> None:
    if _this_worker:
        forget(_this_worker["hostname"])


def record(hostname: str, queues: list[str], now: float | None = None) -> None:
    """Note that the worker ``hostname``, reading ``queues``, is alive at ``now``.

    Never raises: a worker whose Redis is away has its broker away too and will say so
    itself; its heartbeat must not add a traceback every two seconds.
    """
    entry = json.dumps({"queues": queues, "at": time.time() if now is None else now})
    try:
        redis_client().hset(WORKERS_KEY, hostname, entry)
    except redis.RedisError as exc:
        logger.debug("worker heartbeat not recorded: %s", exc)


def forget(hostname: str) -> None:
    """Take the worker ``hostname`` off the list (it is stopping). Never raises."""
    try:
        redis_client().hdel(WORKERS_KEY, hostname)
    except redis.RedisError as exc:
        logger.debug("worker heartbeat not removed: %s", exc)


def fresh_workers(max_age: float, now: float | None = None) -> dict[str, list[str]]:
    """The workers whose last heartbeat is at most ``max_age`` seconds old, each with the
    queues it reads. Drops entries older than :data:`FORGET_SECONDS` on the way.

    Raises ``redis.RedisError`` when Redis does not answer.
    """
    now = time.time() if now is None else now
    client = redis_client()
    fresh: dict[str, list[str]] = {}
    forgotten: list[bytes] = []
    raw: dict[bytes, bytes] = client.hgetall(WORKERS_KEY)  # type: ignore[assignment]
    for hostname, value in raw.items():
        try:
            entry = json.loads(value)
            age = now - float(entry["at"])
            queues = [str(queue) for queue in entry["queues"]]
        except (ValueError, TypeError, KeyError):
            forgotten.append(hostname)
            continue
        if age > FORGET_SECONDS:
            forgotten.append(hostname)
        elif age <= max_age:
            fresh[hostname.decode()] = queues
    if forgotten:
        client.hdel(WORKERS_KEY, *forgotten)
    return fresh
