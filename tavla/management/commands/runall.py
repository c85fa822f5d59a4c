"""``manage.py runall``: the whole of Tavla in the foreground, for ``make run``.

Starts the embedded Redis when ``REDIS_URL`` is unset (reusing one that already answers),
then its children: the daphne web server, one Celery worker per queue of ``tavla.queues``
(``worker`` for the default queue, ``clocks`` for the clock sweep, ...) and Celery beat,
their output prefixed by name. Ctrl-C or SIGTERM stops them all; if one dies, the others
are stopped and runall exits non-zero. Production runs the same from the Procfile instead.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from typing import IO, Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from tavla.embedded_redis import ensure_embedded_redis
from tavla.management.commands.seed_demo import DEMO_LOGINS
from tavla.queues import DEFAULT_QUEUE, QUEUES, worker_argv

STOP_GRACE_SECONDS = 15.0


def _die_with_parent() -> None:
    """In the child: get SIGTERM if runall itself is killed outright (Linux only)."""
    try:
        import ctypes

        pr_set_pdeathsig = 1
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(pr_set_pdeathsig, signal.SIGTERM)
    except (OSError, AttributeError):
        pass


@dataclass
class Child:
    name: str
    argv: list[str]
    process: subprocess.Popen[bytes] | None = None
    pump: threading.Thread | None = field(default=None, repr=False)

    def start(self, env: dict[str, str]) -> None:
        # Own session: a terminal's Ctrl-C reaches runall only, which then stops the
        # children in order instead of all of them racing each other.
        self.process = subprocess.Popen(
            self.argv, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT, start_new_session=True,
            preexec_fn=_die_with_parent if sys.platform.startswith("linux") else None,
        )

    def start_pump(self, out: IO[str], lock: threading.Lock) -> None:
        assert self.process is not None and self.process.stdout is not None
        stream = self.process.stdout

        def pump() -> None:
            for raw in iter(stream.readline, b""):
                line = raw.decode(errors="replace").rstrip("\n")
                with lock:
                    out.write(f"{self.name:>6} | {line}\n")
                    out.flush()

        self.pump = threading.Thread(target=pump, name=f"pump-{self.name}", daemon=True)
        self.pump.start()

    def running(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def signal(self, signum: int) -> None:
        """SIGTERM to the child itself: a Celery worker then stops its pool warmly, letting a
        running task finish (sent to the whole group, its pool processes died mid-task with a
        WorkerLostError traceback). SIGKILL, the last resort, goes to the whole group."""
        if self.running():
            assert self.process is not None
            try:
                if signum == signal.SIGKILL:
                    os.killpg(self.process.pid, signum)
                else:
                    self.process.send_signal(signum)
            except ProcessLookupError:
                pass


def _port_open(host: str, port: int) -> bool:
    try:
        with socket.create_connection((host, port), timeout=0.5):
            return True
    except OSError:
        return False


class Command(BaseCommand):
    help = "Run web (daphne), a Celery worker per queue and Celery beat in the foreground."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--host", default=os.environ.get("HOST", "127.0.0.1"))
        parser.add_argument("--port", type=int, default=int(os.environ.get("PORT", "8000")))
        parser.add_argument("--concurrency", type=int, default=None,
                            help="processes of each Celery worker (default: per queue, "
                                 "see tavla/queues.py)")

    def handle(self, *args: Any, **options: Any) -> None:
        host: str = options["host"]
        port: int = options["port"]
        if _port_open(host, port):
            raise CommandError(f"{host}:{port} is already in use; is Tavla already running? "
                               "Stop it, or pick another port with PORT=...")
        if settings.REDIS_IS_EMBEDDED:
            url = ensure_embedded_redis()
            self.stdout.write(f"Embedded Redis at {url} (stays up between runs; "
                              "`make stop` ends it)")
        env = os.environ.copy()
        env.setdefault("DJANGO_SETTINGS_MODULE", "tavla.settings")
        env["PYTHONUNBUFFERED"] = "1"
        python = sys.executable
        # The clock sweep runs every 2 s: at INFO its lines would drown everything else.
        # TAVLA_TASK_LOG_LEVEL=INFO shows every task again; /healthz shows beat's heartbeat.
        task_level = os.environ.get("TAVLA_TASK_LOG_LEVEL", "WARNING")
        workers = [
            Child("worker" if queue.name == DEFAULT_QUEUE else queue.name,
                  [python, "-m", "celery", *worker_argv(
                      queue, loglevel=task_level, concurrency=options["concurrency"],
                      hostname=f"tavla-{port}@%h" if queue.name == DEFAULT_QUEUE
                      else f"tavla-{port}-{queue.name}@%h")])
            for queue in QUEUES
        ]
        children = [
            # A restart sends every board back at once: a connect that waits its turn beats
            # a refusal at daphne's default 5 s that the board must retry (and pay again).
            Child("web", [python, "-m", "daphne", "-b", host, "-p", str(port),
                          "--websocket_connect_timeout", "30", "tavla.site.asgi:application"]),
            *workers,
            Child("beat", [python, "-m", "celery", "-A", "tavla", "beat", "-l", task_level]),
        ]
        stopping = threading.Event()

        def request_stop(signum: int, frame: object) -> None:
            stopping.set()

        previous = {sig: signal.signal(sig, request_stop)
                    for sig in (signal.SIGINT, signal.SIGTERM)}
        lock = threading.Lock()
        exit_code = 0
        try:
            for child in children:
                child.start(env)
            for child in children:
                child.start_pump(sys.stdout, lock)
            announced = False
            while not stopping.is_set():
                dead = [child for child in children if not child.running()]
                if dead:
                    names = ", ".join(f"{c.name} (exit {c.process and c.process.returncode})"
                                      for c in dead)
                    with lock:
                        self.stderr.write(f"runall: {names} stopped; stopping the rest")
                    exit_code = 1
                    break
                if not announced and _port_open(host, port):
                    announced = True
                    with lock:
                        self._announce(host, port)
                stopping.wait(0.2)
        finally:
            self._stop(children, lock)
            for sig, handler in previous.items():
                signal.signal(sig, handler)
        if exit_code:
            raise SystemExit(exit_code)

    def _announce(self, host: str, port: int) -> None:
        shown = "127.0.0.1" if host in {"0.0.0.0", "::"} else host
        lines = [
            "",
            f"Tavla is up: http://{shown}:{port}/   (health: http://{shown}:{port}/healthz)",
        ]
        if settings.DEBUG:
            lines.append(f"Log in at http://{shown}:{port}/accounts/login/ "
                         "or /admin/login/ as (username / password):")
            lines += [f"  {user:<8} / {password:<14} {role}"
                      for user, password, role in DEMO_LOGINS]
        lines += ["Press Ctrl-C to stop.", ""]
        self.stdout.write("\n".join(lines))

    def _stop(self, children: list[Child], lock: threading.Lock) -> None:
        with lock:
            self.stdout.write("runall: stopping web, workers and beat ...")
        for child in children:
            child.signal(signal.SIGTERM)
        deadline = time.monotonic() + STOP_GRACE_SECONDS
        for child in children:
            if child.process is None:
                continue
            try:
                child.process.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                child.signal(signal.SIGKILL)
                child.process.wait()
            if child.pump is not None:
                child.pump.join(timeout=2)
        with lock:
            self.stdout.write("runall: all stopped.")
