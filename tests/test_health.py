"""``/healthz`` tells the truth about the clocks and beat: 503 when beat's heartbeat is
older than three intervals, when no clock sweep ran recently, when a deadline is overdue or
the clock queue is deep; 200 with all of them fresh. (Database, Redis and workers:
tests/test_foundation.py; a real outage of the clock workers: tests/matches/test_clock_celery.py.)
"""

from __future__ import annotations

import json
import time
from datetime import timedelta
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.core.cache import cache
from django.test import Client
from django.utils import timezone

from matches import services
from matches.models import Match
from matches.services import clocks
from tavla.redis_client import redis_client
from tavla.site import health
from tavla.tasks import BEAT_LAST_KEY, heartbeat
from tests.conftest import CeleryWorkerProcess

pytestmark = [pytest.mark.celery, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def fresh(celery_worker_process: CeleryWorkerProcess) -> None:
    """Beat and the sweep have just run; a worker answers."""
    heartbeat()
    clocks.record_sweep(started=time.time(), flagged=0, forfeited=0)


def body(client: Client, status: int) -> dict[str, Any]:
    response = client.get("/healthz")
    data: dict[str, Any] = response.json()
    assert response.status_code == status, data
    return data


def test_all_fresh_is_200_and_reports_the_clock(client: Client, fresh: None) -> None:
    data = body(client, 200)
    assert data["status"] == "ok" and data["problems"] == []
    clock = data["clock"]
    assert clock["sweep_age"] < 5 and clock["oldest_overdue"] is None
    assert isinstance(clock["queue_depth"], int)


def test_a_stale_beat_heartbeat_is_503(client: Client, fresh: None) -> None:
    stale = timezone.now() - timedelta(seconds=3 * 5 + 1)
    cache.set(BEAT_LAST_KEY, stale.isoformat(), timeout=600)
    data = body(client, 503)
    assert data["problems"] == ["beat: last heartbeat 16 s ago"]
    cache.delete(BEAT_LAST_KEY)
    assert body(client, 503)["problems"] == ["beat: no heartbeat yet"]
    heartbeat()
    body(client, 200)


def test_no_recent_sweep_is_503(client: Client, fresh: None) -> None:
    finished = time.time() - 30
    redis_client().set(clocks.LAST_SWEEP_KEY, json.dumps(
        {"started": finished - 0.01, "finished": finished, "flagged": 0, "forfeited": 0}))
    data = body(client, 503)
    assert data["problems"] == ["clock: last sweep 30 s ago"]
    redis_client().delete(clocks.LAST_SWEEP_KEY)
    assert body(client, 503)["problems"] == ["clock: no sweep has run"]


def test_an_overdue_deadline_is_503_with_its_time(client: Client, fresh: None,
                                                 settings: Any) -> None:
    first, second = (services.player_for_user(User.objects.create_user(f"health-{n}"))
                     for n in "ab")
    table = services.table_create(name="health", match_length=1, is_rated=False,
                                  clock_enabled=True, clock_delay=0, clock_reserve_seconds=60,
                                  clock_reserve_per_point=0)
    services.table_sit(table_id=table.pk, player=first)
    services.table_sit(table_id=table.pk, player=second)
    match = Match.objects.get(table=table)
    overdue = timezone.now() - timedelta(seconds=20)
    Match.objects.filter(pk=match.pk).update(deadline=overdue)  # as if no sweep ran
    try:
        data = body(client, 503)
        assert data["clock"]["oldest_overdue"] == overdue.isoformat()
        assert data["clock"]["overdue_seconds"] >= 20
        assert data["problems"] == ["clock: a deadline is 20 s overdue"]
    finally:
        services.match_void(match_id=match.pk, referee=None, reason="test over")


def test_a_deep_clock_queue_is_a_problem() -> None:
    clock = {"sweep_age": 0.2, "queue_depth": health.MAX_CLOCK_QUEUE + 1,
             "overdue_seconds": None}
    assert health.clock_problems(clock, beat_seconds=1.0) == [
        f"clock: {health.MAX_CLOCK_QUEUE + 1} sweeps waiting"]
    clock["queue_depth"] = 2
    assert health.clock_problems(clock, beat_seconds=1.0) == []
