"""Each kind of Celery work has its own queue and workers (``tavla.queues``): every queue has
a Procfile line and a runall worker, every routed task exists, and beat's clock sweep goes to
the clock queue."""

from __future__ import annotations

import shlex

from django.conf import settings

from tavla.celery import app
from tavla.queues import CLOCK_QUEUE, DEFAULT_QUEUE, QUEUES, task_routes, worker_argv
from tests.conftest import BASE_DIR


def procfile() -> dict[str, list[str]]:
    lines = (BASE_DIR / "Procfile").read_text().splitlines()
    return {name: shlex.split(command) for name, _sep, command in
            (line.partition(":") for line in lines if line.strip())}


def test_every_queue_has_a_procfile_worker_reading_it() -> None:
    read = {argv[argv.index("-Q") + 1] for argv in procfile().values()
            if "worker" in argv and "-Q" in argv}
    assert read == {queue.name for queue in QUEUES}


def test_every_routed_task_exists_and_the_sweep_goes_to_the_clock_queue() -> None:
    app.loader.import_default_modules()
    routes = task_routes()
    assert routes["matches.sweep_expired_clocks"] == {"queue": CLOCK_QUEUE}
    assert set(routes) <= set(app.tasks)
    assert settings.CELERY_TASK_DEFAULT_QUEUE == DEFAULT_QUEUE
    sweep = settings.CELERY_BEAT_SCHEDULE["sweep-expired-clocks"]
    assert "expires" not in sweep.get("options", {}), "a queued sweep must never be dropped"


def test_a_queue_worker_reads_only_its_queue() -> None:
    clocks = next(queue for queue in QUEUES if queue.name == CLOCK_QUEUE)
    argv = worker_argv(clocks, hostname="c@h")
    assert argv[argv.index("-Q") + 1] == CLOCK_QUEUE and "c@h" in argv
