"""The first ``make run`` on a fresh machine prints no traceback.

It runs what ``make run`` runs — ``migrate``, ``seed_demo``, ``runall`` — on a new SQLite file
and an embedded Redis on a port nothing listens on yet, exactly as a first run finds them, and
reads everything the three commands print.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from tavla.embedded_redis import VAR_DIR, ping
from tests.conftest import BASE_DIR
from tests.processes import wait_until_healthy
from tests.test_foundation import free_port

pytestmark = pytest.mark.slow


def first_run_env(tmp_path: Path, redis_port: int) -> dict[str, str]:
    env = {key: value for key, value in os.environ.items()
           if key not in ("REDIS_URL", "DATABASE_URL")}
    env.update(DATABASE_URL=f"sqlite:///{tmp_path / 'tavla.sqlite3'}", DEBUG="1",
               TAVLA_EMBEDDED_REDIS_PORT=str(redis_port), DJANGO_SETTINGS_MODULE="tavla.settings")
    return env


def manage(env: dict[str, str], *args: str) -> str:
    done = subprocess.run([sys.executable, "manage.py", *args], cwd=BASE_DIR, env=env,
                          capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout + done.stderr


def test_first_make_run_prints_no_traceback(tmp_path: Path) -> None:
    redis_port, web_port = free_port(), free_port()
    assert not ping(redis_port)
    env = first_run_env(tmp_path, redis_port)
    log_path = tmp_path / "runall.log"
    try:
        output = manage(env, "migrate", "--noinput") + manage(env, "seed_demo")
        with log_path.open("wb") as log:
            process = subprocess.Popen(
                [sys.executable, "manage.py", "runall", "--port", str(web_port),
                 "--concurrency", "1"],
                cwd=BASE_DIR, env=env, stdout=log, stderr=subprocess.STDOUT,
                start_new_session=True)
            try:
                wait_until_healthy(process, web_port, log_path)
                # A page and a board, so the web process has served something.
                for path in ("/", "/lobby/"):
                    with urllib.request.urlopen(f"http://127.0.0.1:{web_port}{path}",
                                                timeout=10) as response:
                        assert response.status == 200
                process.send_signal(signal.SIGINT)
                assert process.wait(timeout=45) == 0, log_path.read_text()
            finally:
                if process.poll() is None:
                    os.killpg(process.pid, signal.SIGKILL)
                    process.wait()
        output += log_path.read_text()
        assert "alice" in output
        assert "Traceback" not in output, output
        assert "Error calling" not in output, output
    finally:
        manage(env, "embedded_redis", "stop")
        shutil.rmtree(VAR_DIR / f"redis-{redis_port}", ignore_errors=True)
