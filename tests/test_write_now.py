"""Frames go to the kernel at once when nothing waits in Twisted's buffer, and never overtake
what waits there (``tavla.site.daphne_protocol.write_now``)."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from types import SimpleNamespace
from typing import Any

import pytest

from tavla.site.daphne_protocol import write_now


@pytest.fixture
def pair() -> Iterator[tuple[socket.socket, socket.socket]]:
    sender, receiver = socket.socketpair()
    sender.setblocking(False)
    sender.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4096)
    try:
        yield sender, receiver
    finally:
        sender.close()
        receiver.close()


def transport(sock: socket.socket, **state: Any) -> Any:
    """The attributes of a Twisted TCP transport that ``write_now`` reads."""
    fields = {"connected": True, "disconnecting": False, "_writeDisconnected": False,
              "_tempDataBuffer": [], "dataBuffer": b"", "offset": 0, "socket": sock}
    return SimpleNamespace(**(fields | state))


def test_an_idle_socket_gets_the_frame_now(pair: tuple[socket.socket, socket.socket]) -> None:
    sender, receiver = pair
    assert write_now(transport(sender), b"frame") == b""
    assert receiver.recv(100) == b"frame"


def test_what_the_kernel_does_not_take_is_left_for_twisted(
        pair: tuple[socket.socket, socket.socket]) -> None:
    sender, receiver = pair
    data = bytes(range(256)) * 4096  # 1 MiB, far over the socket's buffer
    left = write_now(transport(sender), data)
    assert 0 < len(left) < len(data) and data.endswith(left)
    # The socket is full now: the next frame is not tried, it all goes to Twisted.
    assert write_now(transport(sender), b"next") == b"next"


@pytest.mark.parametrize("state", [
    {"_tempDataBuffer": [b"waiting"]},
    {"dataBuffer": b"waiting", "offset": 3},
    {"disconnecting": True},
    {"_writeDisconnected": True},
    {"connected": False},
    {"TLS": True},
])
def test_nothing_overtakes_a_waiting_write_or_goes_on_a_closing_or_tls_socket(
        pair: tuple[socket.socket, socket.socket], state: dict[str, Any]) -> None:
    sender, receiver = pair
    assert write_now(transport(sender, **state), b"frame") == b"frame"
    receiver.setblocking(False)
    with pytest.raises(BlockingIOError):
        receiver.recv(100)


def test_a_transport_without_a_socket_is_left_to_twisted() -> None:
    assert write_now(SimpleNamespace(connected=True), b"frame") == b"frame"


def test_a_closed_peer_is_left_to_twisted(pair: tuple[socket.socket, socket.socket]) -> None:
    sender, receiver = pair
    receiver.close()
    assert write_now(transport(sender), b"frame") == b"frame"
