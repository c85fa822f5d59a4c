"""Helpers for the real processes tests start (Celery workers, beat, web servers)."""

from __future__ import annotations

import subprocess
from typing import Any


def stop_process(process: subprocess.Popen[Any], timeout: float = 15) -> None:
    """Ask ``process`` to stop (SIGTERM), and kill it if it has not within ``timeout`` s."""
    if process.poll() is not None:
        return
    process.terminate()
    try:
        process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def wait_until_healthy(process: subprocess.Popen[Any], port: int, log_path: Any,
                       timeout: float = 90) -> dict[str, Any]:
    """Poll ``/healthz`` of the server ``process`` started on ``port`` until it is "ok" with a
    beat heartbeat; fail with the process's log if it exits or ``timeout`` passes."""
    import json
    import time
    import urllib.error
    import urllib.request

    body: dict[str, Any] = {}
    deadline = time.monotonic() + timeout
    while not (body.get("status") == "ok" and body.get("beat")):
        assert process.poll() is None, log_path.read_text()
        assert time.monotonic() < deadline, (body, log_path.read_text())
        time.sleep(0.5)
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz",
                                        timeout=5) as response:
                body = json.load(response)
        except urllib.error.HTTPError as error:
            body = json.load(error)
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            continue
    return body
