"""The project's foundation: settings, health, heartbeat, the SQLite default, the launcher."""

from __future__ import annotations

import io
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from django.contrib.auth.models import Group
from django.core.cache import cache
from django.core.management import CommandError
from django.db import close_old_connections, connection, transaction
from django.test import Client

from tavla.queues import CLOCK_QUEUE, QUEUES
from tavla.tasks import BEAT_COUNT_KEY, BEAT_LAST_KEY, heartbeat

from .conftest import BASE_DIR, CeleryWorkerProcess, subprocess_env
from .processes import wait_until_healthy

ON_SQLITE = settings.DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def run_python(code: str, **env_changes: str | None) -> subprocess.CompletedProcess[str]:
    env = os.environ.copy()
    env["DJANGO_SETTINGS_MODULE"] = "tavla.settings"
    for key, value in env_changes.items():
        if value is None:
            env.pop(key, None)
        else:
            env[key] = value
    return subprocess.run([sys.executable, "-c", code], cwd=BASE_DIR, env=env,
                          capture_output=True, text=True, timeout=60)


# --- Settings -------------------------------------------------------------------------


def test_refuses_the_dev_secret_key_when_debug_is_off() -> None:
    result = run_python("import django; django.setup()", DEBUG="0", SECRET_KEY=None)
    assert result.returncode != 0
    assert "ImproperlyConfigured" in result.stderr
    assert "SECRET_KEY is not set" in result.stderr


def test_starts_with_debug_off_when_a_secret_key_is_given() -> None:
    result = run_python("import django; django.setup(); print('up')",
                        DEBUG="0", SECRET_KEY="a-real-production-secret-" + "x" * 40)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "up"


def test_sqlite_default_queues_writers_with_immediate_transactions() -> None:
    code = ("import json; from django.conf import settings; "
            "print(json.dumps(settings.DATABASES['default'], default=str))")
    result = run_python(code, DATABASE_URL=None)
    assert result.returncode == 0, result.stderr
    default = json.loads(result.stdout)
    assert default["ENGINE"] == "django.db.backends.sqlite3"
    assert Path(default["NAME"]) == BASE_DIR / "var" / "tavla.sqlite3"
    assert default["OPTIONS"]["transaction_mode"] == "IMMEDIATE"
    assert default["OPTIONS"]["timeout"] == 20
    assert "journal_mode=WAL" in default["OPTIONS"]["init_command"]


def test_redis_url_feeds_channels_celery_and_cache() -> None:
    url = "redis://127.0.0.1:6999/3"
    code = ("import json; from django.conf import settings as s; print(json.dumps(["
            "s.CHANNEL_LAYERS['default']['CONFIG']['hosts'][0], s.CELERY_BROKER_URL, "
            "s.CELERY_RESULT_BACKEND, s.CACHES['default']['LOCATION']]))")
    result = run_python(code, REDIS_URL=url)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == [url] * 4


@pytest.mark.skipif(not ON_SQLITE, reason="SQLite locking behaviour")
@pytest.mark.django_db(transaction=True)
def test_concurrent_read_then_write_transactions_queue_instead_of_failing() -> None:
    """With DEFERRED transactions the second writer would fail at once ('database is
    locked'): its read snapshot is stale. BEGIN IMMEDIATE makes it wait its turn."""
    assert connection.vendor == "sqlite"
    with connection.cursor() as cursor:
        cursor.execute("PRAGMA journal_mode")
        assert cursor.fetchone()[0] == "wal"
    errors: list[BaseException] = []
    start = threading.Barrier(4)
    groups_before = Group.objects.count()  # migrations create some (the Referees group)

    def writer(index: int) -> None:
        try:
            start.wait()
            for round_ in range(5):
                with transaction.atomic():
                    count = Group.objects.count()
                    time.sleep(0.01)
                    Group.objects.create(name=f"w{index}-{round_}-{count}")
        except BaseException as exc:  # collected and asserted below
            errors.append(exc)
        finally:
            close_old_connections()
            connection.close()

    threads = [threading.Thread(target=writer, args=(i,)) for i in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert errors == []
    assert Group.objects.count() == groups_before + 20


# --- Heartbeat and /healthz (a queue without workers, /livez: tests/test_health.py) -------


def test_heartbeat_leaves_a_trace_in_the_cache() -> None:
    cache.delete_many([BEAT_LAST_KEY, BEAT_COUNT_KEY])
    first = heartbeat()
    assert cache.get(BEAT_LAST_KEY) == first
    assert cache.get(BEAT_COUNT_KEY) == 1
    second = heartbeat()
    assert cache.get(BEAT_LAST_KEY) == second >= first
    assert cache.get(BEAT_COUNT_KEY) == 2


@pytest.mark.celery
@pytest.mark.django_db(transaction=True)
def test_heartbeat_runs_on_a_real_worker(celery_worker_process: CeleryWorkerProcess) -> None:
    cache.delete(BEAT_LAST_KEY)
    heartbeat.delay()
    deadline = time.monotonic() + 20
    while cache.get(BEAT_LAST_KEY) is None:
        assert time.monotonic() < deadline, celery_worker_process.log()
        time.sleep(0.1)


@pytest.mark.celery
@pytest.mark.django_db(transaction=True)
def test_healthz_is_ok_when_database_redis_and_a_worker_are_up(
    client: Client, celery_worker_process: CeleryWorkerProcess,
    celery_clock_worker: CeleryWorkerProcess,
) -> None:
    from matches.services import clocks

    heartbeat()
    clocks.sweep_unless_newer_queued()  # as beat's sweep does: it leaves a trace for /healthz
    response = client.get("/healthz")
    body = response.json()
    assert response.status_code == 200, body
    assert body["status"] == "ok"
    assert body["database"] == body["redis"] == body["celery"] == "ok"
    assert body["beat"] == cache.get(BEAT_LAST_KEY)
    assert response["Cache-Control"].startswith("max-age=0")


@pytest.mark.django_db
def test_healthz_is_503_when_redis_is_unreachable(client: Client, settings: Any) -> None:
    settings.REDIS_URL = f"redis://127.0.0.1:{free_port()}/0"
    response = client.get("/healthz")
    body = response.json()
    assert response.status_code == 503
    assert body["status"] == "error"
    assert body["database"] == "ok"
    assert body["redis"] != "ok"
    assert body["celery"] != "ok"


# --- Pages ------------------------------------------------------------------------------


@pytest.mark.real_password_hashing  # the demo logins with the hashers production uses
@pytest.mark.django_db
def test_demo_players_can_log_in(client: Client) -> None:
    from django.core.management import call_command

    # Tests run with DEBUG off, where seed_demo refuses unless forced.
    with pytest.raises(CommandError, match="published passwords"):
        call_command("seed_demo", stdout=io.StringIO())
    call_command("seed_demo", force=True, stdout=io.StringIO())
    call_command("seed_demo", force=True, stdout=io.StringIO())  # idempotent
    response = client.post("/accounts/login/", {"username": "alice",
                                                "password": "tavla-demo"})
    assert response.status_code == 302
    assert "alice" in client.get("/").content.decode()
    admin = Client()
    assert admin.login(username="admin", password="tavla-admin")
    assert admin.get("/admin/").status_code == 200


@pytest.mark.django_db  # the home page shows the club's season (seasons.standings)
def test_home_page_is_served_in_persian_too(client: Client) -> None:
    response = client.get("/", HTTP_ACCEPT_LANGUAGE="fa")
    html = response.content.decode()
    assert response.status_code == 200
    assert 'lang="fa"' in html and 'dir="rtl"' in html


# --- The launcher -----------------------------------------------------------------------


def _children_of(pid: int) -> list[int]:
    children = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            children.append(int(stat.parent.name))
    return children


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


@pytest.mark.slow
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
@pytest.mark.django_db(transaction=True)
def test_runall_brings_up_web_worker_and_beat_and_stops_them_on_ctrl_c(
    tmp_path: Path,
) -> None:
    from tavla.celery import app

    port = free_port()
    env = subprocess_env()
    cache.delete_many([BEAT_LAST_KEY, BEAT_COUNT_KEY])
    log_path = tmp_path / "runall.log"
    with log_path.open("wb") as log:
        process = subprocess.Popen(
            [sys.executable, "manage.py", "runall", "--port", str(port), "--concurrency", "1"],
            cwd=BASE_DIR, env=env, stdout=log, stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        try:
            wait_until_healthy(process, port, log_path)
            children = _children_of(process.pid)
            assert len(children) == 2 + len(QUEUES), children  # web, beat, a worker per queue
            for name in (f"tavla-{port}", f"tavla-{port}-{CLOCK_QUEUE}"):
                assert app.control.ping(destination=[f"{name}@{socket.gethostname()}"],
                                        timeout=2), name
            process.send_signal(signal.SIGINT)
            assert process.wait(timeout=45) == 0, log_path.read_text()
        finally:
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()
    deadline = time.monotonic() + 10
    while any(_alive(pid) for pid in children) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not [pid for pid in children if _alive(pid)], log_path.read_text()
    output = log_path.read_text()
    assert f"http://127.0.0.1:{port}/" in output
    assert "alice" in output and "all stopped" in output
