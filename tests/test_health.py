"""``/healthz`` tells the truth about the clocks, beat and the workers: 503 when beat's
heartbeat is older than three intervals, when no clock sweep ran recently, when a deadline is
overdue or the clock queue is deep, when a queue has no live worker; 200 with all of them
fresh. A worker is live by its own heartbeat or, failing that, by answering. ``/livez`` asks
only about its own process. (Database and Redis: tests/test_foundation.py; a real outage of
the clock workers: tests/matches/test_clock_celery.py.)
"""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.core.cache import cache
from django.db import connection
from django.test import Client
from django.utils import timezone

from matches import services
from matches.models import Match
from matches.services import clocks
from tavla import worker_heartbeats
from tavla.queues import CLOCK_QUEUE, queue_names
from tavla.redis_client import redis_client
from tavla.site import health
from tavla.tasks import BEAT_LAST_KEY, heartbeat
from tests.conftest import ARTIFACTS_DIR, BASE_DIR, CeleryWorkerProcess, start_celery_worker
from tests.processes import stop_process
from tests.test_foundation import free_port

pytestmark = [pytest.mark.celery, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def fresh(celery_worker_process: CeleryWorkerProcess,
          celery_clock_worker: CeleryWorkerProcess) -> None:
    """Beat and the sweep have just run; every queue has a worker."""
    heartbeat()
    clocks.record_sweep(started=time.time(), flagged=0, forfeited=0)


def wait_until(condition: Any, what: str, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"no {what} in {timeout} s"
        time.sleep(0.1)


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


# --- Workers: live by heartbeat, or by answering -------------------------------------------


def test_every_queue_has_its_workers_by_name(client: Client, fresh: None,
                                             celery_worker_process: CeleryWorkerProcess,
                                             celery_clock_worker: CeleryWorkerProcess) -> None:
    wait_until(lambda: celery_clock_worker.hostname in health.fresh_workers(
        health.WORKER_FRESH_SECONDS), "heartbeat of the clock worker")
    data = body(client, 200)
    assert data["celery"] == "ok"
    assert set(data["workers"]) == set(queue_names())
    assert celery_clock_worker.hostname in data["workers"][CLOCK_QUEUE]
    for name in queue_names():
        if name != CLOCK_QUEUE:
            assert celery_worker_process.hostname in data["workers"][name], data["workers"]


def test_a_queue_without_a_live_worker_is_503(client: Client, fresh: None,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    # As if every worker of one queue were gone: a queue no worker reads.
    monkeypatch.setattr(health, "queue_names", lambda: [*queue_names(), "health-orphan"])
    data = body(client, 503)
    assert data["problems"] == ["celery: no live worker reads queue health-orphan"]
    assert data["workers"]["health-orphan"] == []


def test_a_fresh_heartbeat_counts_without_an_answer_and_a_stale_one_does_not() -> None:
    # No worker reads these queues, so none can answer for them: only the heartbeats count.
    stale = time.time() - health.WORKER_FRESH_SECONDS - 1
    worker_heartbeats.record("busy@health", ["health-busy"])
    worker_heartbeats.record("gone@health", ["health-gone"], now=stale)
    try:
        assert health.workers_by_queue(["health-busy", "health-gone"]) == {
            "health-busy": ["busy@health"], "health-gone": []}
        assert health.check_celery({"health-busy": ["busy@health"], "health-gone": []}) == (
            "no live worker reads queue health-gone")
    finally:
        worker_heartbeats.forget("busy@health")
        worker_heartbeats.forget("gone@health")


def test_a_heartbeat_older_than_an_hour_is_forgotten() -> None:
    worker_heartbeats.record("ancient@health", ["health-old"],
                             now=time.time() - worker_heartbeats.FORGET_SECONDS - 1)
    assert "ancient@health" not in worker_heartbeats.fresh_workers(max_age=1e9)
    assert not redis_client().hexists(worker_heartbeats.WORKERS_KEY, "ancient@health")


@pytest.fixture
def quiet_worker(celery_worker_process: CeleryWorkerProcess) -> Iterator[CeleryWorkerProcess]:
    """A real worker of the queue ``health-quiet`` started without heartbeats."""
    hostname = f"quiet-{time.monotonic_ns()}@{socket.gethostname()}"
    ARTIFACTS_DIR.mkdir(exist_ok=True)
    log_path = ARTIFACTS_DIR / f"celery-{hostname.split('@')[0]}.log"
    with log_path.open("wb") as log:
        process = subprocess.Popen(
            [sys.executable, "-m", "celery", "-A", "tavla", "worker", "--pool=solo",
             "--without-heartbeat", "--without-mingle", "--without-gossip", "-n", hostname,
             "-Q", "health-quiet"],
            cwd=BASE_DIR, env=celery_worker_process.env, stdin=subprocess.DEVNULL,
            stdout=log, stderr=subprocess.STDOUT)
    worker = CeleryWorkerProcess(process=process, hostname=hostname,
                                 env=celery_worker_process.env, log_path=log_path)
    try:
        wait_until(lambda: process.poll() is None and worker.ping(timeout=0.5),
                   "answer from the quiet worker", timeout=60)
        yield worker
    finally:
        stop_process(process)


def test_a_worker_without_heartbeats_counts_when_it_answers(
        quiet_worker: CeleryWorkerProcess) -> None:
    assert quiet_worker.hostname not in health.fresh_workers(health.WORKER_FRESH_SECONDS)
    assert health.workers_by_queue(["health-quiet"]) == {"health-quiet": [quiet_worker.hostname]}


def test_a_worker_leaves_heartbeats_while_it_runs_and_takes_them_away_when_it_stops(
        celery_worker_process: CeleryWorkerProcess) -> None:
    worker = start_celery_worker(celery_worker_process.env, name="health-beating",
                                 queues="health-beating")
    try:
        wait_until(lambda: health.fresh_workers(health.WORKER_FRESH_SECONDS).get(
            worker.hostname) == ["health-beating"], "heartbeat of the worker")
    finally:
        worker.stop()
    assert worker.process.returncode == 0, worker.log()
    assert not redis_client().hexists(worker_heartbeats.WORKERS_KEY, worker.hostname)


# --- /livez: this process only -------------------------------------------------------------


def test_livez_is_200_while_the_cluster_is_not(client: Client) -> None:
    cache.delete(BEAT_LAST_KEY)  # beat is "down": the cluster is unhealthy
    assert client.get("/healthz").status_code == 503
    response = client.get("/livez")
    assert response.status_code == 200
    assert response.json() == {"status": "ok", "database": "ok"}
    assert response["Cache-Control"].startswith("max-age=0")


def test_livez_is_503_when_its_database_does_not_answer(client: Client, tmp_path: Any) -> None:
    saved = dict(connection.settings_dict)
    connection.close()
    if connection.vendor == "sqlite":
        connection.settings_dict["NAME"] = str(tmp_path / "no-such-dir" / "db.sqlite3")
    else:
        connection.settings_dict["PORT"] = str(free_port())
    try:
        response = client.get("/livez")
    finally:
        connection.close()
        connection.settings_dict.update(saved)
    assert response.status_code == 503
    data = response.json()
    assert data["status"] == "error" and data["database"] != "ok"
    assert client.get("/livez").status_code == 200
