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
