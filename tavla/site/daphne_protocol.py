"""Daphne's WebSocket protocol as Tavla needs it: RFC 6455's close codes, and a fuse where
frames are read.

**Close codes.** autobahn (under daphne) refuses to start a close with any code but 1000 and
3000-4999, so a consumer's ``close(code=1008)`` or ``1009`` raised inside daphne and the
client saw ``1011``. RFC 6455 (7.4.1) gives a server 1008 (policy violation) and 1009 (message
too big) for exactly the limits of ``matches.live.socket_limits``: the frame is sent as asked.

**The fuse.** Daphne reads every frame a client sends and queues it for the application, with
no back-pressure. The per-client token bucket of ``matches.live.socket_limits`` refuses each
message cheaply, but only once the consumer gets to it; ten sockets writing as fast as TCP
allows (100,000 frames a second, measured) kept daphne's event loop busy reading and queueing,
so the consumer's close never went out and every other table on the process waited. The fuse
counts frames per socket in one-second windows; over ``TAVLA_SOCKET_FUSE`` in a window it
stops reading, sends the close frame (1008), drops the connection and puts the address under
the penalty of ``matches.live.socket_limits`` (no new socket for a while). Frames already queued
still pass through the bucket, and the consumer is told of the disconnect as usual (its
sockets counted down, its groups left).

**The penalty at the door.** While an address is under that penalty, daphne closes each new
TCP connection from it as soon as it is accepted, before reading a byte (pages and the API
included: the address was flooding). A flooder that reconnects at once after each refusal
costs an accept, not an HTTP parse, a handshake and an application instance. Behind a
reverse proxy every connection comes from the proxy, so this never applies there; the
consumers' own check (``matches.live.socket_limits``) refuses the address's sockets instead.

**Writing at once.** Twisted buffers every write and sends it on the event loop's next turn:
two changes of the socket's epoll registration and a callback per frame. That was a quarter
of the cost of pushing a state to a board (33 -> 24 µs of CPU per board on a table with 400
spectators, ``benchmarks/live_load.py``). A frame
written while nothing is waiting in the socket's buffer goes to the kernel at once; what the
kernel does not take, and every frame while something waits, goes through Twisted as before,
so the order of the bytes never changes.

Installed by ``tavla.site.asgi`` when daphne serves the application (every way Tavla starts it:
the Procfile, ``runall``, the tests and the benchmarks).
"""

from __future__ import annotations

import time
from typing import Any

import daphne.server
from daphne.http_protocol import HTTPFactory
from daphne.ws_protocol import WebSocketFactory, WebSocketProtocol
from django.conf import settings

from matches.live import socket_limits


class TavlaWebSocketProtocol(WebSocketProtocol):  # type: ignore[misc]  # untyped base
    _window_start = 0.0
    _window_frames = 0
    _blown = False

    def serverClose(self, code: int | None = None) -> None:  # noqa: N802 - daphne's name
        # sendClose() would refuse 1008 and 1009; sendCloseFrame is what it calls after
        # its check, and ignores a close while one is already under way.
        self.sendCloseFrame(code=1000 if code is None else code, isReply=False)

    def onMessage(self, payload: bytes, isBinary: bool) -> None:  # noqa: N802, N803 - autobahn's names
        if self._blown:
            return  # frames the same read delivered after the fuse blew
        now = time.monotonic()
        if now - self._window_start >= 1.0:
            self._window_start, self._window_frames = now, 0
        self._window_frames += 1
        if self._window_frames > int(getattr(settings, "TAVLA_SOCKET_FUSE", 120)):
            self._blow()
            return
        super().onMessage(payload, isBinary)

    def sendData(self, data: bytes, sync: bool = False,  # noqa: N802 - autobahn's name
                 chopsize: int | None = None) -> None:
        if not sync and not chopsize and not self.send_queue:
            left = write_now(self.transport, data)
            if self.state == self.STATE_OPEN:
                self.trafficStats.outgoingOctetsWireLevel += len(data) - len(left)
            if not left:
                return
            data = left
        super().sendData(data, sync, chopsize)

    def dataReceived(self, data: bytes) -> None:  # noqa: N802 - Twisted's name
        if not self._blown:
            super().dataReceived(data)

    def _blow(self) -> None:
        self._blown = True
        if self.client_addr:
            socket_limits.penalties.add(self.client_addr[0])
        if self.state == self.STATE_OPEN:
            self.sendCloseFrame(code=socket_limits.CLOSE_POLICY_VIOLATION,
                                reasonUtf8=b"too many messages", isReply=False)
        # Write what is pending (the close frame) and stop reading; onClose follows. What is
        # left of the last read is thrown away unparsed (autobahn's buffer is ``data``).
        transport: Any = self.transport
        transport.loseConnection()
        self.data = b""


def write_now(transport: Any, data: bytes) -> bytes:
    """Send ``data`` on ``transport``'s socket now if nothing of its own waits to be sent;
    return what is left for Twisted to write (all of it when it could not be tried)."""
    try:
        idle = (transport.connected and not transport.disconnecting
                and not transport._writeDisconnected and not getattr(transport, "TLS", False)
                and not transport._tempDataBuffer
                and len(transport.dataBuffer) <= transport.offset)
        sock = transport.socket if idle else None
    except AttributeError:  # not a plain TCP or UNIX socket transport
        return data
    if sock is None:
        return data
    try:
        sent = sock.send(data)
    except OSError:  # would block, or the peer is gone: Twisted's own write handles both
        return data
    return data[sent:]


class TavlaHTTPFactory(HTTPFactory):  # type: ignore[misc]  # untyped base
    """Daphne's connection factory, closing connections from a penalised address unread."""

    def buildProtocol(self, addr: Any) -> Any:  # noqa: N802 - Twisted's name
        host = getattr(addr, "host", None)
        if host is not None and socket_limits.penalties.holds(f"address:{host}"):
            return None  # Twisted closes the connection at once
        return super().buildProtocol(addr)


def install() -> None:
    """Make daphne accept connections and build WebSocket protocols as above."""
    WebSocketFactory.protocol = TavlaWebSocketProtocol
    daphne.server.HTTPFactory = TavlaHTTPFactory  # Server.run() builds its factory by this name
