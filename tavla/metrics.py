"""Tavla's Prometheus metrics (prometheus_client), served per web process at ``/metrics``.

Two kinds of figure, see docs/operations.md:

* **This process's**, kept in the process by prometheus_client: actions and their latency,
  open sockets, sockets refused or cut off, pushes, HTTP responses, errors, and the database
  pool. Each daphne process serves its own: Prometheus scrapes every web instance (by its own
  address, not through the proxy) and sums.
* **The cluster's**, read from Redis when scraped: queue depths (from the broker) and flag
  lateness. Flags fall in the clock workers, which serve no HTTP: each flag adds its lateness
  to a histogram kept in Redis (:func:`record_flag_lateness`), and every web instance reports
  it, the same figures from each (take ``max``, not ``sum``, across instances).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Final

import redis
from django.conf import settings
from django.db import connections
from prometheus_client import REGISTRY, Counter, Gauge, Histogram
from prometheus_client.core import GaugeMetricFamily, HistogramMetricFamily, Metric
from prometheus_client.registry import Collector

from tavla.queues import queue_depth, queue_names
from tavla.redis_client import redis_client

logger = logging.getLogger(__name__)

# An action is a few milliseconds; a slow one waits for a lock or the pool.
_ACTION_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0)
# A flag is due each sweep (0.5 s); late means the clock workers or the broker fell behind.
FLAG_LATENESS_BUCKETS: Final = (0.1, 0.25, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0, 60.0)
FLAG_LATENESS_KEY: Final = "tavla:metrics:flag_lateness"

ACTIONS = Histogram(
    "tavla_action_seconds", "Players' actions on matches (socket and REST), by kind and "
    "outcome (ok or refused), and how long each took in the services.",
    ["kind", "outcome"], buckets=_ACTION_BUCKETS)
OPEN_SOCKETS = Gauge("tavla_open_sockets", "WebSockets open on this process.")
SOCKETS_REFUSED = Counter(
    "tavla_sockets_refused_total", "WebSockets refused at admission, by reason "
    "(penalised, too_fast, too_many).", ["reason"])
SOCKETS_CUT = Counter("tavla_sockets_cut_total",
                      "WebSockets closed for flooding (1008), their client penalised.")
PUSHES = Counter("tavla_pushes_total", "States pushed to open boards by this process.")
HTTP_RESPONSES = Counter("tavla_http_responses_total", "HTTP responses, by status class.",
                         ["status"])
ERRORS = Counter(
    "tavla_errors_total", "Errors: unhandled in a request (http) or a socket (socket), Redis "
    "unreachable for the socket limits (limits).", ["where"])
# Every known label shown from the start, at 0: a rate() over a counter that appears only at
# its first error misses that error, and an operator's "no errors" should read 0, not absent.
for _reason in ("penalised", "too_fast", "too_many"):
    SOCKETS_REFUSED.labels(reason=_reason)
for _where in ("http", "socket", "limits", "metrics"):
    ERRORS.labels(where=_where)


@contextmanager
def timed_action(kind: str, refused: type[Exception]) -> Iterator[None]:
    """Time one action of ``kind`` (an action the services know: the label stays small);
    ``refused`` is the error of an action the rules refused (the rest are errors)."""
    started, outcome = time.perf_counter(), "error"
    try:
        yield
        outcome = "ok"
    except refused:
        outcome = "refused"
        raise
    finally:
        ACTIONS.labels(kind=kind, outcome=outcome).observe(time.perf_counter() - started)


def record_error(where: str) -> None:
    ERRORS.labels(where=where).inc()


def record_flag_lateness(seconds: float) -> None:
    """A flag fell ``seconds`` after its deadline: count it in the cluster's histogram (one
    Redis round trip). Never raises: a lost sample is better than a lost flag."""
    bucket = next((f"{bound:g}" for bound in FLAG_LATENESS_BUCKETS if seconds <= bound),
                  "+Inf")
    try:
        with redis_client().pipeline(transaction=True) as pipe:
            pipe.hincrby(FLAG_LATENESS_KEY, bucket, 1)
            pipe.hincrby(FLAG_LATENESS_KEY, "count", 1)
            pipe.hincrbyfloat(FLAG_LATENESS_KEY, "sum", max(0.0, seconds))
            pipe.execute()
    except redis.RedisError:
        logger.warning("metrics: could not record a flag's lateness", exc_info=True)


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


class ClusterCollector(Collector):
    """The figures read when scraped: the cluster's (queues, flags) and the pool's."""

    def collect(self) -> Iterator[Metric]:
        yield from self._queues()
        yield from self._flag_lateness()
        yield from self._pool()

    def _queues(self) -> Iterator[Metric]:
        depths = GaugeMetricFamily("tavla_queue_depth",
                                   "Tasks waiting on each Celery queue (cluster-wide).",
                                   labels=["queue"])
        for name in queue_names():
            try:
                depths.add_metric([name], queue_depth(name))
            except Exception:  # noqa: BLE001 - broker down: the figure is missing, not wrong
                record_error("metrics")
        yield depths

    def _flag_lateness(self) -> Iterator[Metric]:
        try:
            raw = redis_client().hgetall(FLAG_LATENESS_KEY)
        except redis.RedisError:
            record_error("metrics")
            return
        counts = {_text(key): _text(value) for key, value in raw.items()}
        cumulative, buckets = 0, []
        for bound in [*(f"{bound:g}" for bound in FLAG_LATENESS_BUCKETS), "+Inf"]:
            cumulative += int(counts.get(bound, 0))
            buckets.append((bound, float(cumulative)))
        yield HistogramMetricFamily(
            "tavla_flag_lateness_seconds", "How long after its deadline each flag fell "
            "(cluster-wide, from the clock workers).",
            buckets=buckets, sum_value=float(counts.get("sum", 0)))

    def _pool(self) -> Iterator[Metric]:
        size = GaugeMetricFamily("tavla_db_pool_connections", "This process's PostgreSQL "
                                 "pool: connections open, idle, and its maximum.",
                                 labels=["state"])
        waiting = GaugeMetricFamily("tavla_db_pool_waiting",
                                    "Requests waiting for a pooled connection.")
        connection = connections["default"]
        options = settings.DATABASES["default"].get("OPTIONS", {})
        if connection.vendor == "postgresql" and options.get("pool"):
            # psycopg_pool's public statistics of the pool Django keeps for the alias.
            stats = connection.pool.get_stats()  # type: ignore[attr-defined]
            size.add_metric(["open"], stats.get("pool_size", 0))
            size.add_metric(["idle"], stats.get("pool_available", 0))
            size.add_metric(["max"], stats.get("pool_max", 0))
            waiting.add_metric([], stats.get("requests_waiting", 0))
        yield size
        yield waiting


REGISTRY.register(ClusterCollector())
