"""Fixtures shared by the whole suite.

Services: with ``REDIS_URL`` / ``DATABASE_URL`` set, tests run against those. Without them,
each test session starts its own in-memory embedded Redis on a free port (see
``tavla.embedded_redis``) and stops it at the end, and the SQLite test database is a file
named after this process, so a ``make run`` or another test session in the same tree is
never disturbed.

``celery_worker_process`` starts a real ``celery -A tavla worker`` against the test Redis and
the test database, for tests that need tasks to run the way production runs them.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

import pytest

from tavla.analysis import gnubg_guard
from tavla.queues import CLOCK_QUEUE, queue_names
from tests.processes import stop_process

# Tests import tavla.site.asgi to drive the consumers in this process, and evaluate with gnubg on
# its main thread: that import must not turn the test runner into a web process. The
# servers the tests start are real web processes, guarded (tests/matches/test_gnubg_guard.py).
gnubg_guard.allow_in_this_process("the test runner evaluates on its own main thread")

if TYPE_CHECKING:
    from matches.models import Player

BASE_DIR = Path(__file__).resolve().parent.parent
ARTIFACTS_DIR = BASE_DIR / "test-artifacts"

_started_embedded_redis_port: int | None = None


def pytest_configure(config: pytest.Config) -> None:
    global _started_embedded_redis_port
    from django.conf import settings

    from tavla.embedded_redis import embedded_redis_port, ensure_embedded_redis, ping

    # The cache (throttles, rate limits) may live in a Redis that earlier runs used: this
    # session's keys are its own, so a count an earlier run left within the hour cannot
    # refuse this run's requests (the second `make test` in a row against one Redis).
    # The servers and workers it starts (subprocess_env copies the environment) share them.
    os.environ["TAVLA_CACHE_PREFIX"] = f"tavla-test-{uuid.uuid4().hex[:12]}"
    settings.CACHES["default"]["KEY_PREFIX"] = os.environ["TAVLA_CACHE_PREFIX"]
    if settings.REDIS_IS_EMBEDDED:
        port = embedded_redis_port()
        if not ping(port):
            ensure_embedded_redis(port, persist=False)
            _started_embedded_redis_port = port


# Session fixtures that start a process or a browser once for every test that asks.
_SHARED_PROCESS_GROUPS = {"live_server_process": "e2e", "browser": "e2e",
                          "celery_worker_process": "celery", "celery_clock_worker": "celery",
                          "celery_beat_process": "celery"}


# -- stores_independent: what CI's second pass leaves out --------------------------------
#
# `.ci/run` runs the suite twice: against PostgreSQL + Redis, then on the embedded defaults
# (SQLite + the embedded Redis). The second pass exists to prove the product on the other
# stores, so a test that touches neither store proves nothing new there; it is marked
# ``stores_independent`` and the second pass deselects it (``-m "not stores_independent"``).
# `make test` alone still runs every test.
#
# The mark is checked, not trusted. A test of the modules listed below is marked only if it
# uses no test database (no ``django_db`` mark, no fixture built on ``django_db_setup``;
# pytest-django refuses any other query), and a test marked by hand that uses one is an
# error. A marked test runs with Redis (Tavla's client, the cache, the channel layer) at a
# closed port, so one that reaches Redis fails in the first pass. A process such a test
# starts must not connect to the environment's stores (the first-run and multihost tests
# build their own).

#: Directories and modules that use neither store (node ids start with these).
STORES_INDEPENDENT = (
    "tests/engine/",                        # the pure engine (tests/engine/test_purity.py)
    # gnubg's nets and the analysis as pure functions (test_table_rules.py plays on a table)
    "tests/analysis/test_analyse.py", "tests/analysis/test_bot_levels_benchmark.py",
    "tests/analysis/test_bots.py", "tests/analysis/test_differential.py",
    "tests/analysis/test_janowski.py", "tests/analysis/test_luck_is_gnubgs.py",
    "tests/analysis/test_matread.py", "tests/analysis/test_purity.py",
    "tests/analysis/test_rules_and_bad_files.py",
    "tests/tournaments/test_formats_",      # the pure pairing formats
    "tests/seasons/test_formats_",          # the pure rules of arenas, ladders, leagues
    "tests/tournaments/test_money.py", "tests/tournaments/test_late_penalty.py",
    "tests/tournaments/test_models_tournament.py", "tests/tournaments/test_projector_contrast.py",
    "tests/matches/test_board_palette.py", "tests/matches/test_jsontext.py",
    "tests/matches/test_ratings.py",
    "tests/test_multihost.py",              # builds its own PostgreSQL, Redis and hosts
    "tests/test_first_run.py",              # `make run` on the embedded defaults, by definition
    "tests/test_translations.py",
    "tests/test_import_graph.py",
    "tests/test_no_private_interfaces.py",
    "tests/test_gnubg_guard.py",            # fresh interpreters that import, never connect
    "tests/matches/test_protocol_doc.py",   # the docs against the source's syntax trees
    "tests/matches/test_rules.py",
)

#: Where nothing listens: a stores-independent test's Redis (connections are refused at once).
_NO_REDIS_URL = "redis://127.0.0.1:1/0"


def _uses_database(item: pytest.Item) -> bool:
    return bool(item.get_closest_marker("django_db")
                or "django_db_setup" in getattr(item, "fixturenames", ()))


def _mark_stores_independent(items: list[pytest.Item]) -> None:
    """Mark the tests of :data:`STORES_INDEPENDENT` that use no database; refuse a test
    marked by hand that does."""
    for item in items:
        if item.nodeid.startswith(STORES_INDEPENDENT) and not _uses_database(item):
            item.add_marker(pytest.mark.stores_independent)
        elif item.get_closest_marker("stores_independent") and _uses_database(item):
            raise pytest.UsageError(
                f"{item.nodeid} is marked stores_independent but uses the test database "
                "(CI's second pass would skip it)")


def stores_independent(request: pytest.FixtureRequest) -> bool:
    return request.node.get_closest_marker("stores_independent") is not None


@pytest.fixture(autouse=True)
def _no_stores_for_stores_independent(request: pytest.FixtureRequest, settings: Any) -> None:
    """A ``stores_independent`` test sees no Redis: Tavla's own client, the cache and the
    channel layer point at a port where nothing listens, so a use of Redis is an error, not a
    silent dependence. (Celery's settings are left alone: its app reads them once per
    process, and the later tests of this process need the real broker.)"""
    if stores_independent(request):
        settings.REDIS_URL = _NO_REDIS_URL
        settings.CACHES = {name: {**cache, "LOCATION": _NO_REDIS_URL}
                           for name, cache in settings.CACHES.items()}
        settings.CHANNEL_LAYERS = {
            name: {**layer, "CONFIG": {**layer["CONFIG"], "hosts": [_NO_REDIS_URL]}}
            for name, layer in settings.CHANNEL_LAYERS.items()}


@pytest.hookimpl(tryfirst=True)  # before ``-m`` deselects by the marks added here
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    _mark_stores_independent(items)
    _group_shared_processes(config, items)


def _group_shared_processes(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Under pytest-xdist (``make test`` runs ``--dist loadgroup``), the tests that share a
    session's server and browser, or its Celery worker, go to one xdist worker, which starts
    them once instead of once per worker. Everything else is spread over the workers: each
    has its own test database (pytest-django's suffix) and its own embedded Redis."""
    if not config.pluginmanager.hasplugin("xdist"):
        return
    for item in items:
        fixtures = set(getattr(item, "fixturenames", ()))
        groups = {group for name, group in _SHARED_PROCESS_GROUPS.items() if name in fixtures}
        if item.get_closest_marker("e2e"):
            groups.add("e2e")
        elif item.get_closest_marker("celery"):
            groups.add("celery")
        if groups:
            # A test needing both (none today) goes with the browser.
            item.add_marker(pytest.mark.xdist_group("e2e" if "e2e" in groups else "celery"))


def pytest_unconfigure(config: pytest.Config) -> None:
    from django.conf import settings

    from tavla.embedded_redis import VAR_DIR, stop_embedded_redis

    port = _started_embedded_redis_port
    if port is not None:
        stop_embedded_redis(port)
        shutil.rmtree(VAR_DIR / f"redis-{port}", ignore_errors=True)
    # Django removes the SQLite test database file but not its WAL companions.
    db = settings.DATABASES["default"]
    if db["ENGINE"] == "django.db.backends.sqlite3":
        test_db = Path(db["TEST"]["NAME"])
        if not test_db.exists():
            for suffix in ("-wal", "-shm"):
                test_db.with_name(test_db.name + suffix).unlink(missing_ok=True)


FAST_HASHER = "tests.hashers.FastPBKDF2PasswordHasher"


@pytest.fixture(autouse=True)
def _fast_password_hashing(request: pytest.FixtureRequest, settings: Any) -> None:
    """Every test hashes passwords with one PBKDF2 iteration, not a million: the same
    algorithm, so the servers the tests start verify the hashes too. A test marked
    ``real_password_hashing`` (the demo logins) keeps the production hashers."""
    if request.node.get_closest_marker("real_password_hashing") is None:
        settings.PASSWORD_HASHERS = [FAST_HASHER]


@pytest.fixture
def make_player(db: None) -> Callable[..., Player]:
    """Make a player (and their user, password ``"pass-" + username``)."""
    from django.contrib.auth.models import User

    from matches import services

    counter = iter(range(1, 100_000))

    def make(name: str | None = None, *, rating: float = 1500.0,
             experience: int = 0) -> Player:
        username = name or f"player{next(counter)}"
        user = User.objects.create_user(username=username, password="pass-" + username)
        player = services.player_for_user(user)
        if (rating, experience) != (player.rating, player.experience):
            player.rating, player.experience = rating, experience
            player.save(update_fields=["rating", "experience"])
        return player

    return make


@pytest.fixture(autouse=True)
def _default_language() -> Iterator[None]:
    """Each test starts in the default language and leaves it so. Django's
    ``LocaleMiddleware`` activates a request's language in the thread and leaves it there,
    so a test run after one that sent a Persian request in the same process would read the
    services' messages in Persian (which test comes after which depends on how pytest-xdist
    shares them out)."""
    from django.utils import translation

    translation.deactivate()
    yield
    translation.deactivate()


@pytest.fixture(autouse=True)
def _first_roll_at_once(settings: Any) -> None:
    """Matches started by tests roll at once (both client seeds empty); the tests of client
    seeds (tests/matches/test_client_seeds.py) open the window themselves."""
    settings.TAVLA_CLIENT_SEED_SECONDS = 0


@pytest.fixture(autouse=True)
def _fresh_socket_limits(request: pytest.FixtureRequest) -> None:
    """Each test's sockets start with fresh buckets, counts and penalties (in this process and
    in the test worker's Redis; a ``stores_independent`` test has no Redis and no sockets)."""
    from matches.live.socket_limits import reset_limits

    if not stores_independent(request):
        reset_limits()


@pytest.fixture(autouse=True)
def _own_rate_limit_counters(settings: Any) -> None:
    """Each test counts its REST requests afresh: the throttles' counters live in the shared
    Redis, and ids (users, addresses) repeat from one test to the next."""
    import uuid

    settings.TAVLA_RATE_LIMIT_PREFIX = f"rate-test-{uuid.uuid4().hex}"


@pytest.fixture(scope="session")
def django_db_modify_db_settings(django_db_modify_db_settings_parallel_suffix: None) -> None:
    """Give this session's SQLite test database a name of its own (a file under var/)."""
    from django.conf import settings

    db = settings.DATABASES["default"]
    if db["ENGINE"] == "django.db.backends.sqlite3":
        name = Path(db["TEST"]["NAME"])
        db["TEST"]["NAME"] = str(name.with_name(f"{name.stem}_{os.getpid()}{name.suffix}"))


def database_url_for(settings_dict: dict[str, Any]) -> str:
    """A ``DATABASE_URL`` naming the database that ``settings_dict`` is connected to.

    Called after the test database exists, ``connection.settings_dict`` names it, so a
    subprocess given this URL shares the test database.
    """
    engine = settings_dict["ENGINE"]
    if engine == "django.db.backends.sqlite3":
        return f"sqlite:///{Path(str(settings_dict['NAME'])).resolve()}"
    if engine == "django.db.backends.postgresql":
        user = quote(settings_dict.get("USER") or "", safe="")
        password = quote(settings_dict.get("PASSWORD") or "", safe="")
        auth = f"{user}:{password}@" if password else (f"{user}@" if user else "")
        host = settings_dict.get("HOST") or "localhost"
        port = f":{settings_dict['PORT']}" if settings_dict.get("PORT") else ""
        return f"postgres://{auth}{host}{port}/{quote(settings_dict['NAME'], safe='')}"
    raise NotImplementedError(f"no DATABASE_URL for engine {engine}")


def subprocess_env(**extra: str) -> dict[str, str]:
    """The environment for a child process that shares this session's Redis and test DB.

    Needs the test database to exist (request ``django_db_setup`` or a db fixture first).
    """
    from django.conf import settings
    from django.db import connection

    env = os.environ.copy()
    env.update(
        DJANGO_SETTINGS_MODULE="tavla.settings",
        DATABASE_URL=database_url_for(connection.settings_dict),
        REDIS_URL=settings.REDIS_URL,
        PYTHONUNBUFFERED="1",
    )
    # Servers and workers of the tests roll a match's first dice at once, as the tests'
    # own process does (see _first_roll_at_once); a test may ask for the window.
    env.setdefault("TAVLA_CLIENT_SEED_SECONDS", "0")
    env.update(extra)
    return env


@dataclass
class CeleryWorkerProcess:
    """A running ``celery -A tavla worker`` subprocess (solo pool, one task at a time)."""

    process: subprocess.Popen[bytes]
    hostname: str
    env: dict[str, str]
    log_path: Path

    @property
    def database_url(self) -> str:
        return self.env["DATABASE_URL"]

    @property
    def redis_url(self) -> str:
        return self.env["REDIS_URL"]

    def ping(self, timeout: float = 1.0) -> bool:
        """True when this worker answers a control ping."""
        from tavla.celery import app

        return bool(app.control.ping(destination=[self.hostname], timeout=timeout))

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    def stop(self) -> None:
        stop_process(self.process, timeout=15)


@pytest.fixture(scope="session")
def celery_worker_process(
    django_db_setup: None, django_db_blocker: Any
) -> Iterator[CeleryWorkerProcess]:
    """A real Celery worker sharing this session's Redis and test database.

    Started once per session, stopped before the test database is destroyed. Tests that
    need the worker to see their rows must commit them: use ``transactional_db`` (or
    ``@pytest.mark.django_db(transaction=True)``), never the default rolled-back ``db``.

    Example::

        @pytest.mark.celery
        @pytest.mark.django_db(transaction=True)
        def test_runs_on_worker(celery_worker_process):
            result = some_task.delay(arg)       # or wait for the row the task writes
            assert result.get(timeout=10) == ...

    The worker's output is in ``celery_worker_process.log()`` (also under test-artifacts/).
    """
    with django_db_blocker.unblock():
        # It reads the bot queue too (a bot test's own worker shares this session's broker):
        # a bot's turn it takes must not wait a human pause either, or a test of bots waits
        # one on every other move (the arena and ladder runs took 7 and 10 minutes so).
        env = subprocess_env(TAVLA_BOT_PAUSE="0,0")
    worker = start_celery_worker(
        env, name="worker", queues=",".join(name for name in queue_names() if name != CLOCK_QUEUE))
    try:
        yield worker
    finally:
        worker.stop()


# -- more workers, and beat ---------------------------------------------------------------


def start_celery_worker(env: dict[str, str], *, name: str, queues: str | None = None,
                        timeout: float = 60.0) -> CeleryWorkerProcess:
    """Start one more real worker (solo pool) with ``env`` and wait until it answers a ping.

    For tests that kill or restart workers; the caller stops it (``worker.stop()``) or kills
    it (``worker.process.kill()``). ``queues`` is Celery's ``-Q`` (comma-separated; by
    default every queue of ``tavla.queues``).
    Its output is in ``worker.log()`` (under test-artifacts/).
    """
    import socket

    hostname = f"{name}-{os.getpid()}@{socket.gethostname()}"
    ARTIFACTS_DIR.mkdir(exist_ok=True)
    log_path = ARTIFACTS_DIR / f"celery-{name}-{os.getpid()}.log"
    argv = [sys.executable, "-m", "celery", "-A", "tavla", "worker", "--pool=solo",
            "--loglevel=INFO", "--without-mingle", "--without-gossip", "-n", hostname]
    argv += ["-Q", queues or ",".join(queue_names())]
    with log_path.open("wb") as log_file:
        process = subprocess.Popen(argv, cwd=BASE_DIR, env=env, stdin=subprocess.DEVNULL,
                                   stdout=log_file, stderr=subprocess.STDOUT)
    worker = CeleryWorkerProcess(process=process, hostname=hostname, env=env, log_path=log_path)
    deadline = time.monotonic() + timeout
    while not worker.ping(timeout=0.5):
        if process.poll() is not None:
            pytest.fail(f"Celery worker {name} exited with {process.returncode}:\n{worker.log()}")
        if time.monotonic() > deadline:
            worker.stop()
            pytest.fail(f"Celery worker {name} did not answer ping in {timeout} s:\n"
                        f"{worker.log()}")
        time.sleep(0.1)
    return worker


@dataclass
class CeleryBeatProcess:
    """A running ``celery -A tavla beat`` subprocess with its own schedule file."""

    process: subprocess.Popen[bytes]
    log_path: Path

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    def stop(self) -> None:
        stop_process(self.process, timeout=15)


def start_celery_beat(env: dict[str, str], *, timeout: float = 60.0) -> CeleryBeatProcess:
    """Start ``celery -A tavla beat`` (the schedule of ``CELERY_BEAT_SCHEDULE``, kept in
    memory: no schedule file) and wait until it has started."""
    ARTIFACTS_DIR.mkdir(exist_ok=True)
    log_path = ARTIFACTS_DIR / f"celery-beat-{os.getpid()}.log"
    with log_path.open("wb") as log_file:
        process = subprocess.Popen(
            [sys.executable, "-m", "celery", "-A", "tavla", "beat", "--loglevel=INFO",
             "--max-interval=1"],
            cwd=BASE_DIR, env=env, stdin=subprocess.DEVNULL, stdout=log_file,
            stderr=subprocess.STDOUT,
        )
    beat = CeleryBeatProcess(process=process, log_path=log_path)
    deadline = time.monotonic() + timeout
    while "beat: Starting" not in beat.log():
        if process.poll() is not None:
            pytest.fail(f"Celery beat exited with {process.returncode}:\n{beat.log()}")
        if time.monotonic() > deadline:
            beat.stop()
            pytest.fail(f"Celery beat did not start in {timeout} s:\n{beat.log()}")
        time.sleep(0.1)
    return beat


@pytest.fixture(scope="session")
def celery_clock_worker(celery_worker_process: CeleryWorkerProcess,
                        ) -> Iterator[CeleryWorkerProcess]:
    """The session's clock worker: a worker of its own reading only the clock queue, as in
    production (``celery_worker_process`` reads every other queue), so a sweep never waits
    behind an analysis or a bot's move."""
    worker = start_celery_worker(celery_worker_process.env, name="clocks", queues=CLOCK_QUEUE)
    try:
        yield worker
    finally:
        worker.stop()


@pytest.fixture(scope="module")
def celery_beat_process(
    celery_worker_process: CeleryWorkerProcess, celery_clock_worker: CeleryWorkerProcess,
) -> Iterator[CeleryBeatProcess]:
    """Celery beat sending the project's periodic tasks (the clock sweep every 0.5 s, the
    heartbeat) to this session's workers, for one test module. Like the workers, it only
    sees committed rows: use ``@pytest.mark.django_db(transaction=True)``."""
    beat = start_celery_beat(celery_worker_process.env)
    try:
        yield beat
    finally:
        beat.stop()
