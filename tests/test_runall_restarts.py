"""``runall`` survives its children: one that dies is started again, alone, and said so.

Real processes, as ``make run`` starts them: daphne, a Celery worker per queue and beat, on a
fresh SQLite file and an embedded Redis of their own. The test kills the web process and the
clock worker outright (SIGKILL), waits until each is back — the web process answers
``/livez``, the worker answers a ping by its name — and checks that nobody else was restarted
and that the dead worker's pool processes went with it. A fast test checks the wait before a
restart: doubling to its cap, back to the first once a child has stayed up.
"""

from __future__ import annotations

import io
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path

import pytest
from celery import Celery

from tavla.embedded_redis import VAR_DIR
from tavla.management.commands.runall import (
    RESTART_MAX_DELAY,
    STABLE_SECONDS,
    Child,
    Command,
)
from tests.conftest import BASE_DIR
from tests.test_first_run import first_run_env, manage
from tests.test_foundation import free_port

STARTED = re.compile(r"^runall: (\w+) started \(pid (\d+)\)$", re.MULTILINE)


def started(log: str) -> dict[str, list[int]]:
    """Every pid each child was started with, in order."""
    pids: dict[str, list[int]] = {}
    for name, pid in STARTED.findall(log):
        pids.setdefault(name, []).append(int(pid))
    return pids


def wait_for(condition: Callable[[], bool], what: str, log_path: Path,
             process: subprocess.Popen[bytes], timeout: float = 90) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert process.poll() is None, f"runall ended while waiting for {what}:\n" + \
            log_path.read_text()
        assert time.monotonic() < deadline, f"no {what} in {timeout} s:\n" + log_path.read_text()
        time.sleep(0.2)


def live(port: int) -> bool:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/livez", timeout=5) as response:
            return response.status == 200
    except (urllib.error.URLError, ConnectionError, TimeoutError):
        return False


def group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    return True


def test_the_wait_before_a_restart_doubles_to_its_cap_and_resets_once_well() -> None:
    child = Child("flaky", [sys.executable, "-c", "import sys; sys.exit(3)"])
    assert [child.next_restart_delay() for _ in range(7)] == [1, 2, 4, 8, 16, 30, 30]
    assert RESTART_MAX_DELAY == 30
    command = Command(stdout=io.StringIO(), stderr=io.StringIO())
    lock, stopping = threading.Lock(), threading.Event()
    child.deaths_in_a_row = 0
    child.start({**os.environ})
    assert child.process is not None
    child.process.wait(timeout=30)
    command._supervise(child, {}, lock, stopping)
    assert child.restart_at is not None and child.deaths_in_a_row == 1
    said = command.stderr.getvalue()
    assert f"runall: *** flaky (pid {child.process.pid}) exited with code 3" in said, said
    assert "restarting it in 1 s (death 1 in a row)" in said, said
    # Up long enough: the next death waits the first delay again.
    child.argv = [sys.executable, "-c", "import time; time.sleep(30)"]
    child.start({**os.environ})
    child.started_at -= STABLE_SECONDS
    command._supervise(child, {}, lock, stopping)
    assert child.deaths_in_a_row == 0
    child.signal(signal.SIGKILL)
    child.process.wait(timeout=30)
    command._supervise(child, {}, lock, stopping)
    assert "was killed by SIGKILL" in command.stderr.getvalue()
    assert child.deaths_in_a_row == 1


@pytest.mark.slow
def test_runall_restarts_a_killed_child_and_leaves_the_others(tmp_path: Path) -> None:
    redis_port, web_port = free_port(), free_port()
    env = first_run_env(tmp_path, redis_port)
    log_path = tmp_path / "runall.log"
    broker = Celery(broker=f"redis://127.0.0.1:{redis_port}/0")
    clock_worker = f"tavla-{web_port}-clocks@{socket.gethostname()}"

    def clock_worker_answers() -> bool:
        return bool(broker.control.ping(destination=[clock_worker], timeout=1))

    def log() -> str:
        return log_path.read_text(errors="replace")

    try:
        manage(env, "migrate", "--noinput")
        with log_path.open("wb") as out:
            process = subprocess.Popen(
                [sys.executable, "manage.py", "runall", "--port", str(web_port),
                 "--concurrency", "1"],
                cwd=BASE_DIR, env=env, stdout=out, stderr=subprocess.STDOUT,
                start_new_session=True)
            try:
                wait_for(lambda: live(web_port), "/livez", log_path, process)
                wait_for(clock_worker_answers, "ping from the clock worker", log_path, process)
                first = started(log())
                assert set(first) == {"web", "worker", "clocks", "analysis", "bots", "beat"}
                assert all(len(pids) == 1 for pids in first.values()), first

                os.kill(first["web"][0], signal.SIGKILL)
                wait_for(lambda: len(started(log()).get("web", [])) == 2, "web restart",
                         log_path, process)
                wait_for(lambda: live(web_port), "/livez after the restart", log_path, process)
                assert (f"runall: *** web (pid {first['web'][0]}) was killed by SIGKILL"
                        in log()), log()

                old_clocks = first["clocks"][0]
                os.kill(old_clocks, signal.SIGKILL)
                wait_for(lambda: len(started(log()).get("clocks", [])) == 2, "clocks restart",
                         log_path, process)
                wait_for(clock_worker_answers, "ping from the restarted clock worker",
                         log_path, process)
                assert f"runall: *** clocks (pid {old_clocks}) was killed by SIGKILL" in log()
                # Its pool process went with it: nothing of the dead worker reads the queue.
                assert not group_alive(old_clocks)

                after = started(log())
                assert after["web"][0] == first["web"][0] and len(after["web"]) == 2
                for name in ("worker", "analysis", "bots", "beat"):
                    assert after[name] == first[name], (name, log())
                    os.kill(after[name][0], 0)  # still the same process, still alive

                process.send_signal(signal.SIGINT)
                assert process.wait(timeout=45) == 0, log()
                for pids in after.values():
                    assert not group_alive(pids[-1]), log()
            finally:
                if process.poll() is None:
                    os.killpg(process.pid, signal.SIGKILL)
                    process.wait()
    finally:
        manage(env, "embedded_redis", "stop")
        shutil.rmtree(VAR_DIR / f"redis-{redis_port}", ignore_errors=True)
