"""Daphne's WebSocket protocol as Tavla installs it (tavla.site.daphne_protocol), against a real
daphne process: the limits' close codes reach the client as documented (1008, 1009, not
1011), and a socket writing frames as fast as it can is cut off where its frames are read,
its address refused new sockets for a while, while a board from another address is served
as usual."""

from __future__ import annotations

import json
import socket as sockets
import time
from collections.abc import Iterator
from typing import Any

import pytest
from websockets.exceptions import ConnectionClosed, InvalidStatus
from websockets.sync.client import ClientConnection, connect
from websockets.typing import Origin

from matches import services
from tests.conftest import subprocess_env
from tests.e2e.servers import WebServer, start_web_server

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def server(transactional_db: None) -> Iterator[WebServer]:
    web = start_web_server(subprocess_env(TAVLA_SOCKET_FUSE="50", TAVLA_SOCKET_PENALTY_SECONDS="30",
                                          TAVLA_SOCKETS_PER_ADDRESS="2"), name="fuse")
    try:
        yield web
    finally:
        web.stop()


def _open(server: WebServer, table_id: int, address: str) -> ClientConnection:
    """A socket from ``address`` (any 127.0.0.N is this machine): the fuse's penalty is per
    address, so each test's client has its own."""
    sock = sockets.create_connection(("127.0.0.1", server.port), source_address=(address, 0))
    return connect(f"{server.ws_url}/ws/tables/{table_id}/", origin=Origin(server.url),
                   open_timeout=10, sock=sock)


def _first_message(socket: ClientConnection) -> dict[str, Any]:
    message: dict[str, Any] = json.loads(socket.recv(timeout=10))
    return message


def _answers(socket: ClientConnection, kind: str, count: int) -> list[dict[str, Any]]:
    """The next ``count`` messages of type ``kind`` (the board also gets its chat)."""
    found = []
    while len(found) < count:
        message = json.loads(socket.recv(timeout=10))
        if message["type"] == kind:
            found.append(message)
    return found


def test_a_socket_writing_frames_too_fast_is_cut_off_and_its_address_waits(server):
    table = services.table_create(name="Fuse table")
    with _open(server, table.pk, "127.0.0.21") as flooder:
        assert _first_message(flooder)["type"] == "table"
        started = time.monotonic()
        closed: ConnectionClosed | None = None
        frame = json.dumps({"type": "ping"})
        try:
            for _ in range(20_000):
                flooder.send(frame)
        except ConnectionClosed as error:
            closed = error
        if closed is None:  # every frame went out before the server's close came back
            try:
                while True:
                    flooder.recv(timeout=10)
            except ConnectionClosed as error:
                closed = error
    assert closed is not None and time.monotonic() - started < 10
    # The close frame is sent, though a client still writing may only see the drop.
    assert closed.rcvd is None or closed.rcvd.code == 1008

    # Its address is refused at the handshake for a while, before any consumer exists.
    with pytest.raises(InvalidStatus) as refused:
        _open(server, table.pk, "127.0.0.21")
    assert refused.value.response.status_code == 403

    # Another address is served as if nothing had happened.
    with _open(server, table.pk, "127.0.0.22") as other:
        assert _first_message(other)["type"] == "table"
        other.send(json.dumps({"type": "ping", "ref": 1}))
        assert _answers(other, "pong", 1) == [{"type": "pong", "ref": 1}]


def test_a_board_within_the_limits_never_blows_the_fuse(server):
    table = services.table_create(name="Calm table")
    with _open(server, table.pk, "127.0.0.23") as board:
        assert _first_message(board)["type"] == "table"
        for number in range(40):  # under the fuse (50 a second here) and the message bucket
            board.send(json.dumps({"type": "ping", "ref": number}))
        answers = _answers(board, "pong", 30)
    assert [answer.get("ref") for answer in answers] == list(range(30))


def _close_code(socket: ClientConnection) -> int | None:
    try:
        while True:
            socket.recv(timeout=10)
    except ConnectionClosed as closed:
        return None if closed.rcvd is None else closed.rcvd.code


def test_a_frame_over_the_maximum_is_closed_with_1009(server):
    table = services.table_create(name="Big frames")
    with _open(server, table.pk, "127.0.0.24") as board:
        assert _first_message(board)["type"] == "table"
        board.send(json.dumps({"type": "sync", "pad": "x" * 20_000}))
        assert _close_code(board) == 1009


def test_one_socket_too_many_from_an_address_is_closed_with_1008(server):
    table = services.table_create(name="Crowded address")
    with _open(server, table.pk, "127.0.0.25"), _open(server, table.pk, "127.0.0.25"), \
            _open(server, table.pk, "127.0.0.25") as third:
        assert _answers(third, "error", 1)[0]["error"] == "too_many_sockets"
        assert _close_code(third) == 1008
