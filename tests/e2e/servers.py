"""Real web processes for tests: ``daphne tavla.site.asgi:application`` on a free loopback port.

Given :func:`tests.conftest.subprocess_env`, a server shares the test session's database and
Redis (so also its channel layer): what the test writes, the server reads, and what one
server broadcasts, every other server's sockets hear.
"""

from __future__ import annotations

import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path

from tests.processes import stop_process

BASE_DIR = Path(__file__).resolve().parent.parent.parent
ARTIFACTS_DIR = BASE_DIR / "test-artifacts"


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class WebServer:
    """One running daphne process."""

    process: subprocess.Popen[bytes]
    port: int
    log_path: Path

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}"

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    def stop(self) -> None:
        stop_process(self.process, timeout=10)


#: The Procfile's daphne options: a test's server takes handshakes as production does (daphne's
#: own 5 s default drops them when a loaded test machine admits a burst of sockets).
PROCFILE_DAPHNE_ARGS = ("--websocket_connect_timeout", "30")


def start_web_server(env: dict[str, str], *, name: str = "web", timeout: float = 30.0,
                     daphne_args: tuple[str, ...] = PROCFILE_DAPHNE_ARGS) -> WebServer:
    """Start daphne with ``env`` on a free port; return once it answers HTTP. ``daphne_args``
    go to daphne's command line (by default the Procfile's)."""
    port = free_port()
    ARTIFACTS_DIR.mkdir(exist_ok=True)
    log_path = ARTIFACTS_DIR / f"daphne-{name}-{port}.log"
    with log_path.open("wb") as log_file:
        process = subprocess.Popen(
            [sys.executable, "-m", "daphne", "-b", "127.0.0.1", "-p", str(port), *daphne_args,
             "tavla.site.asgi:application"],
            cwd=BASE_DIR, env=env, stdin=subprocess.DEVNULL, stdout=log_file,
            stderr=subprocess.STDOUT,
        )
    server = WebServer(process=process, port=port, log_path=log_path)
    deadline = time.monotonic() + timeout
    while True:
        if process.poll() is not None:
            raise RuntimeError(f"daphne {name} exited with {process.returncode}:\n{server.log()}")
        try:
            with urllib.request.urlopen(f"{server.url}/accounts/login/", timeout=2) as response:
                if response.status == 200:
                    return server
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            pass
        if time.monotonic() > deadline:
            server.stop()
            raise RuntimeError(f"daphne {name} did not answer in {timeout} s:\n{server.log()}")
        time.sleep(0.1)


@contextmanager
def web_servers(env: dict[str, str], *names: str,
                daphne_args: tuple[str, ...] = PROCFILE_DAPHNE_ARGS) -> Iterator[list[WebServer]]:
    """Start one daphne per name with ``env`` (sharing its database and Redis); stop them
    all on the way out, whatever happened."""
    with ExitStack() as stack:
        servers = []
        for name in names:
            server = start_web_server(env, name=name, daphne_args=daphne_args)
            stack.callback(server.stop)
            servers.append(server)
        yield servers
