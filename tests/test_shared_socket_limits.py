"""The sockets' limits hold across web processes (matches/live/shared_limits.py), against two
real daphne processes sharing one real Redis and the test database.

A club hall puts everyone behind one address: 150 logged-in players opening their boards at
once through a trusted proxy are all admitted, and one of them flooding is cut off alone (its
account waits; the hall's address does not). A process that dies leaks no count.
"""

from __future__ import annotations

import json
import socket as sockets
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection, connect
from websockets.typing import Origin

from matches import services
from matches.models import Player
from tests.conftest import subprocess_env
from tests.e2e.servers import WebServer, web_servers
from tests.matches.test_consumer import session_cookie

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

HALL = "203.0.113.50"  # the club's one public address, as the proxy names it


def _servers(**extra: str) -> Iterator[tuple[WebServer, WebServer]]:
    env = subprocess_env(TAVLA_TRUSTED_PROXIES="127.0.0.1", TAVLA_PRESENCE_HEARTBEAT="1",
                         **extra)
    # The servers take handshakes for up to 30 s, as the Procfile's do (web_servers' default):
    # 150 boards opening at once on a busy machine take longer than daphne's default 5 s.
    with web_servers(env, "limits-a", "limits-b") as (first, second):
        yield first, second


@pytest.fixture
def servers(transactional_db: None) -> Iterator[tuple[WebServer, WebServer]]:
    yield from _servers(TAVLA_SOCKETS_PER_USER="3", TAVLA_SOCKETS_PER_ADDRESS="2")


@pytest.fixture
def hall_servers(transactional_db: None) -> Iterator[tuple[WebServer, WebServer]]:
    # The defaults, but for a fuse low enough that a flood from Python trips it at once.
    yield from _servers(TAVLA_SOCKET_FUSE="50")


def _cookie(player: Player | None) -> str | None:
    headers = session_cookie(player)
    return headers[0][1].decode() if headers else None


def _open(server: WebServer, table_id: int, *, cookie: str | None = None,
          forwarded: str | None = None, source: str = "127.0.0.1") -> ClientConnection:
    headers = {}
    if cookie:
        headers["Cookie"] = cookie
    if forwarded:
        headers["X-Forwarded-For"] = forwarded
    sock = sockets.create_connection(("127.0.0.1", server.port), source_address=(source, 0))
    return connect(f"{server.ws_url}/ws/tables/{table_id}/", origin=Origin(server.url),
                   open_timeout=60, sock=sock, additional_headers=headers)


def _admitted(socket: ClientConnection) -> bool:
    """True when the board's first message is its table; False when the server refused it
    (``too_many_sockets`` and 1008, or 1008 alone)."""
    try:
        first: dict[str, Any] = json.loads(socket.recv(timeout=30))
    except ConnectionClosed as closed:
        assert closed.rcvd is not None and closed.rcvd.code == 1008
        return False
    if first["type"] == "table":
        return True
    assert first == {"type": "error", "error": "too_many_sockets", "detail": first["detail"]}
    with pytest.raises(ConnectionClosed) as closed:
        socket.recv(timeout=10)
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 1008
    return False


def _eventually(check: Callable[[], bool], timeout: float = 90) -> None:
    """Until ``check`` holds; generous: each check opens a socket on a server that may be
    serving 150 more on a busy machine."""
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, "the condition never held"
        time.sleep(0.2)


def _answers_ping(socket: ClientConnection, ref: int) -> bool:
    socket.send(json.dumps({"type": "ping", "ref": ref}))
    while True:
        message = json.loads(socket.recv(timeout=30))
        if message["type"] == "pong":
            return bool(message.get("ref") == ref)


def test_an_accounts_sockets_are_counted_across_processes(servers, make_player):
    first, second = servers
    table = services.table_create(name="Shared counts")
    cookie = _cookie(make_player())
    opened = [_open(first, table.pk, cookie=cookie), _open(first, table.pk, cookie=cookie),
              _open(second, table.pk, cookie=cookie)]
    assert all(_admitted(socket) for socket in opened)
    # A fourth anywhere is one too many: each process alone holds fewer than the limit.
    for server in (first, second):
        with _open(server, table.pk, cookie=cookie) as extra:
            assert not _admitted(extra)
    # Closing one on the first process frees a place on the second.
    opened.pop(0).close()

    def a_place_is_free() -> bool:
        socket = _open(second, table.pk, cookie=cookie)
        if _admitted(socket):
            opened.append(socket)
            return True
        socket.close()
        return False

    _eventually(a_place_is_free)
    for socket in opened:
        socket.close()


def test_anonymous_sockets_of_an_address_are_counted_across_processes(servers):
    first, second = servers
    table = services.table_create(name="Shared address")
    with _open(first, table.pk, source="127.0.0.41") as one, \
            _open(second, table.pk, source="127.0.0.41") as two:
        assert _admitted(one) and _admitted(two)
        with _open(first, table.pk, source="127.0.0.41") as third:
            assert not _admitted(third)
        with _open(second, table.pk, source="127.0.0.42") as elsewhere:
            assert _admitted(elsewhere)


def test_a_dead_process_leaks_no_count(servers, make_player):
    first, second = servers
    table = services.table_create(name="Dead process")
    cookie = _cookie(make_player())
    held = [_open(second, table.pk, cookie=cookie) for _ in range(3)]
    assert all(_admitted(socket) for socket in held)
    with _open(first, table.pk, cookie=cookie) as extra:
        assert not _admitted(extra)
    second.process.kill()  # no disconnect runs: only the leases' end frees the places
    second.process.wait(timeout=10)

    def admitted_again() -> bool:
        with _open(first, table.pk, cookie=cookie) as socket:
            return _admitted(socket)

    _eventually(admitted_again, timeout=30)  # three heartbeats of 1 s, and some slack


def test_a_hall_behind_one_address_is_admitted_and_a_flooder_is_cut_off_alone(
        hall_servers, make_player):
    first, second = hall_servers
    tables = [services.table_create(name=f"Hall table {number}") for number in range(10)]
    cookies = [_cookie(make_player()) for _ in range(150)]

    def open_board(index: int) -> tuple[ClientConnection, bool]:
        server = (first, second)[index % 2]
        socket = _open(server, tables[index % 10].pk, cookie=cookies[index], forwarded=HALL)
        return socket, _admitted(socket)

    with ThreadPoolExecutor(max_workers=150) as pool:
        boards = list(pool.map(open_board, range(150)))
    assert [admitted for _socket, admitted in boards].count(True) == 150
    sockets_open = [socket for socket, _admitted_ in boards]

    # One player floods; the fuse cuts that socket off.
    flooder = sockets_open.pop(0)
    frame = json.dumps({"type": "ping"})
    with pytest.raises(ConnectionClosed):
        for _ in range(20_000):
            flooder.send(frame)
        while True:
            flooder.recv(timeout=10)

    # Its account waits (on either process) ...
    def flooder_refused() -> bool:
        with _open(second, tables[0].pk, cookie=cookies[0], forwarded=HALL) as again:
            return not _admitted(again)

    _eventually(flooder_refused)
    # ... while every other board of the hall plays on, and the hall opens new ones:
    # another player's, and an anonymous spectator's from the same address.
    assert all(_answers_ping(socket, number) for number, socket in enumerate(sockets_open))
    with _open(first, tables[1].pk, cookie=cookies[1], forwarded=HALL) as more:
        assert _admitted(more)
    with _open(second, tables[2].pk, forwarded=HALL) as spectator:
        assert _admitted(spectator)
    for socket in sockets_open:
        socket.close()
