"""A web process's PostgreSQL connections stay within its pool's bound under load.

A real daphne serves many sockets and REST requests at once, and the test counts that
process's connections in ``pg_stat_activity`` (by the ``application_name`` the settings give
every web process) the whole time: never more than ``TAVLA_DB_POOL_SIZE``, and every request
and socket answered. Before the pool, each request's thread kept a connection of its own
(``CONN_MAX_AGE`` under ASGI), and one process held 91."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import urllib.request
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from django.conf import settings
from django.db import connection
from websockets.sync.client import connect
from websockets.typing import Origin

from matches import services
from matches.live import socket_db
from tavla.settings import process_kind
from tests.conftest import subprocess_env
from tests.e2e.servers import WebServer, start_web_server

pytestmark = [pytest.mark.slow, pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

SOCKETS = 60
REQUESTS = 300


@pytest.fixture
def server(transactional_db: None) -> Iterator[WebServer]:
    if connection.vendor != "postgresql":
        pytest.skip("counts PostgreSQL's connections")
    web = start_web_server(subprocess_env(
        TAVLA_API_ANON_RATE="100000/min", TAVLA_SOCKET_CONNECT_BURST="100000",
        TAVLA_SOCKETS_PER_ADDRESS="100000", TAVLA_SOCKET_READ_BURST="100000",
        TAVLA_SOCKET_READ_RATE="100000", TAVLA_SOCKET_RATE="100000",
        TAVLA_SOCKET_BURST="100000"), name="pool")
    try:
        yield web
    finally:
        web.stop()


def _web_connections() -> int:
    """The web processes' connections to this test database, open or idle."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM pg_stat_activity "
                       "WHERE datname = current_database() AND application_name = 'tavla-web'")
        row = cursor.fetchone()
    assert row is not None
    return int(row[0])


def test_the_pool_is_at_least_the_sockets_threads_and_at_most_a_few_more() -> None:
    """The sockets' threads never wait for each other's connections, and the bound stays
    small: the documented one (README, Deploying)."""
    assert socket_db.DB_THREADS + 1 <= settings.TAVLA_DB_POOL_SIZE <= socket_db.DB_THREADS + 4


@pytest.mark.parametrize(("argv", "kind"), [
    (["/venv/lib/python3.11/site-packages/daphne/__main__.py", "-p", "8000", "x:app"], "web"),
    (["/venv/bin/daphne", "tavla.site.asgi:application"], "web"),
    (["manage.py", "runserver"], "web"),
    (["/venv/bin/celery", "-A", "tavla", "worker", "-Q", "clocks"], "worker"),
    (["/venv/lib/python3.11/site-packages/celery/__main__.py", "-A", "tavla", "beat"], "beat"),
    (["manage.py", "migrate"], "command"),
    (["/venv/bin/pytest"], "command"),
])
def test_each_process_kind_is_told_apart(argv: list[str], kind: str,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TAVLA_PROCESS_KIND", raising=False)
    assert process_kind(argv) == kind


def _database_settings(kind: str, **env: str) -> dict[str, Any]:
    """``DATABASES["default"]`` as a process of ``kind`` on PostgreSQL sees it."""
    code = ("import json; from django.conf import settings; "
            "print(json.dumps(settings.DATABASES['default'], default=str))")
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60,
        env=dict(os.environ, DJANGO_SETTINGS_MODULE="tavla.settings", TAVLA_PROCESS_KIND=kind,
                 DATABASE_URL="postgres://tavla@db.invalid:5432/tavla", **env))
    assert result.returncode == 0, result.stderr
    found: dict[str, Any] = json.loads(result.stdout)
    return found


def test_a_web_process_pools_and_a_worker_keeps_one_connection() -> None:
    web = _database_settings("web")
    assert web["CONN_MAX_AGE"] == 0
    assert web["OPTIONS"]["pool"]["max_size"] == 8
    assert web["OPTIONS"]["application_name"] == "tavla-web"
    unpooled = _database_settings("web", TAVLA_DB_POOL_SIZE="0")
    assert unpooled["CONN_MAX_AGE"] == 0 and "pool" not in unpooled["OPTIONS"]
    worker = _database_settings("worker")
    assert worker["CONN_MAX_AGE"] == 60 and "pool" not in worker["OPTIONS"]
    assert worker["OPTIONS"]["application_name"] == "tavla-worker"


def test_many_sockets_and_requests_stay_within_the_pool(server: WebServer) -> None:
    bound = settings.TAVLA_DB_POOL_SIZE
    tables = [services.table_create(name=f"Pool table {number}") for number in range(6)]
    highest = 0
    stop = threading.Event()

    def watch() -> None:
        nonlocal highest
        try:
            while not stop.is_set():
                highest = max(highest, _web_connections())
                stop.wait(0.02)
        finally:
            connection.close()  # this thread's own

    def request(number: int) -> int:
        table = tables[number % len(tables)]
        path = ("/api/tables/" if number % 3 == 0 else f"/api/tables/{table.pk}/"
                if number % 3 == 1 else "/")
        with urllib.request.urlopen(server.url + path, timeout=60) as response:
            response.read()
            return int(response.status)

    def board(number: int) -> list[str]:
        """A board that opens, asks for the state again three times (each a database read
        in the sockets' threads) and gets every answer."""
        table = tables[number % len(tables)]
        with connect(f"{server.ws_url}/ws/tables/{table.pk}/", origin=Origin(server.url),
                     open_timeout=60) as socket:
            kinds = [json.loads(socket.recv(timeout=60))["type"]]
            for ref in range(3):
                socket.send(json.dumps({"type": "sync", "ref": ref}))
            while kinds.count("table") < 4:
                kinds.append(json.loads(socket.recv(timeout=60))["type"])
            return kinds

    watcher = threading.Thread(target=watch)
    watcher.start()
    try:
        with ThreadPoolExecutor(max_workers=48) as pool:
            boards = [pool.submit(board, number) for number in range(SOCKETS)]
            answers = list(pool.map(request, range(REQUESTS)))
            opened = [future.result(timeout=120) for future in boards]
    finally:
        stop.set()
        watcher.join()
    assert answers == [200] * REQUESTS
    assert len(opened) == SOCKETS and all(kinds[0] == "table" for kinds in opened)
    assert 0 < highest <= bound, (highest, bound)
    assert _web_connections() <= bound
