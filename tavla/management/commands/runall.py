"""``manage.py runall``: the whole of Tavla in the foreground, for ``make run``.

Starts the embedded Redis when ``REDIS_URL`` is unset (reusing one that already answers),
then its children: the daphne web server, one Celery worker per queue of ``tavla.queues``
(``worker`` for the default queue, ``clocks`` for the clock sweep, ...) and Celery beat,
their output prefixed by name. Ctrl-C or SIGTERM stops them all.

A child that dies is started again, alone: the others keep running, so a crashed web process
costs its boards a reconnect and a crashed worker a few seconds of its queue, never the whole
club. Each death is logged loudly (which child, its exit code or signal, when the next try
comes); the wait before a restart starts at :data:`RESTART_FIRST_DELAY` and doubles with each
death in a row up to :data:`RESTART_MAX_DELAY`, so a child that cannot start does not spin;
a child that stays up :data:`STABLE_SECONDS` is well again and its next death waits the first
delay. Production runs the same from the Procfile instead, under its own supervisor.
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
RESTART_FIRST_DELAY = 1.0
RESTART_MAX_DELAY = 30.0
STABLE_SECONDS = 60.0


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
    started_at: float = 0.0  # time.monotonic() of the last start
    deaths_in_a_row: int = 0  # deaths since it last stayed up STABLE_SECONDS
    restart_at: float | None = None  # set while a dead child waits for its restart

    def start(self, env: dict[str, str]) -> None:
        # Own session: a terminal's Ctrl-C reaches runall only, which then stops the
        # children in order instead of all of them racing each other.
        self.process = subprocess.Popen(
            self.argv, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT, start_new_session=True,
            preexec_fn=_die_with_parent if sys.platform.startswith("linux") else None,
        )
        self.started_at = time.monotonic()
        self.restart_at = None

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

    def how_it_ended(self) -> str:
        """``"exited with code 1"`` or ``"was killed by SIGKILL"``, for a child that ended."""
        assert self.process is not None and self.process.returncode is not None
        code = self.process.returncode
        if code >= 0:
            return f"exited with code {code}"
        try:
            return f"was killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"was killed by signal {-code}"

    def next_restart_delay(self) -> float:
        """Count one more death in a row and say how long to wait before the restart."""
        delay = min(RESTART_MAX_DELAY, RESTART_FIRST_DELAY * 2 ** self.deaths_in_a_row)
        self.deaths_in_a_row += 1
        return delay

    def kill_leftovers(self) -> None:
        """SIGKILL what is left of a dead child's process group: a Celery worker killed
        outright leaves its pool processes behind, still holding its output pipe and
        prefetched tasks. Called at once when the death is seen: while any member lives,
        the kernel gives the group's id to no other process."""
        if self.process is None:
            return
        try:
            os.killpg(self.process.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass

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
        try:
            for child in children:
                self._start(child, env, lock)
            announced = False
            while not stopping.is_set():
                for child in children:
                    self._supervise(child, env, lock, stopping)
                if not announced and _port_open(host, port):
                    announced = True
                    with lock:
                        self._announce(host, port)
                stopping.wait(0.2)
        finally:
            self._stop(children, lock)
            for sig, handler in previous.items():
                signal.signal(sig, handler)

    def _start(self, child: Child, env: dict[str, str], lock: threading.Lock) -> None:
        child.start(env)
        assert child.process is not None
        with lock:
            self.stdout.write(f"runall: {child.name} started (pid {child.process.pid})")
        child.start_pump(sys.stdout, lock)

    def _supervise(self, child: Child, env: dict[str, str], lock: threading.Lock,
                   stopping: threading.Event) -> None:
        """Restart ``child`` if it died and its wait is over; note that it is well again
        once it has stayed up :data:`STABLE_SECONDS`."""
        now = time.monotonic()
        if child.running():
            if child.deaths_in_a_row and now - child.started_at >= STABLE_SECONDS:
                child.deaths_in_a_row = 0
            return
        assert child.process is not None
        if child.restart_at is None:
            child.kill_leftovers()
            if child.pump is not None:  # its last lines first, then the news of its end
                child.pump.join(timeout=2)
            delay = child.next_restart_delay()
            child.restart_at = now + delay
            with lock:
                self.stderr.write(
                    f"runall: *** {child.name} (pid {child.process.pid}) "
                    f"{child.how_it_ended()} after {now - child.started_at:.0f} s up; "
                    f"restarting it in {delay:.0f} s (death {child.deaths_in_a_row} in a row). "
                    "The others keep running. ***")
        elif now >= child.restart_at and not stopping.is_set():
            self._start(child, env, lock)

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
