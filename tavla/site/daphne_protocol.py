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

**The penalty at the door.** While an address is under that penalty, each new socket from it
is refused at its handshake (HTTP 403, autobahn's ``ConnectionDeny``), before an application
instance exists: a flooder that reconnects at once after each refusal costs a handshake, not
a consumer. (It was refused at accept, unread, by a replaced daphne HTTP factory: about a
quarter of the server's CPU under ten reconnecting flooders, ``benchmarks/socket_flood.py``.)
Behind a reverse proxy every connection comes from the proxy, so this never
applies there; the consumers' own check (``matches.live.socket_limits``) refuses the address's
sockets instead.

Only public interfaces: the protocol is a subclass of daphne's, built by daphne's WebSocket
factory through Twisted's ``Factory.protocol`` (the class a factory builds); it overrides
autobahn's documented hooks (``onConnect``, ``onMessage``, ``onClose``) and Twisted's
``dataReceived``, and writes through autobahn and Twisted's ``ITransport``. (Frames used to
go to the kernel at once, past Twisted's buffer: 33 -> 24 µs of CPU per board pushed to on a
table with 400 spectators. That needed Twisted's private transport state, so every frame now
goes through ``ITransport.write``.)

Installed by ``tavla.site.asgi`` when daphne serves the application (every way Tavla starts it:
the Procfile, ``runall``, the tests and the benchmarks).
"""

from __future__ import annotations

import time
from typing import Any

from autobahn.websocket.types import ConnectionDeny
from daphne.ws_protocol import WebSocketFactory, WebSocketProtocol
from django.conf import settings

from matches.live import socket_limits


class TavlaWebSocketProtocol(WebSocketProtocol):  # type: ignore[misc]  # untyped base
    _window_start = 0.0
    _window_frames = 0
    _blown = False
    _refused = False

    def onConnect(self, request: Any) -> Any:  # noqa: N802 - autobahn's name
        peer = self.transport.getPeer()
        host = getattr(peer, "host", None)
        if host is not None and socket_limits.penalties.holds(f"address:{host}"):
            self._refused = True
            raise ConnectionDeny(ConnectionDeny.FORBIDDEN, "This address is waiting.")
        return super().onConnect(request)

    def onClose(self, wasClean: bool, code: int | None, reason: str | None) -> None:  # noqa: N802, N803 - autobahn's names
        if not self._refused:  # a refused socket never reached daphne's bookkeeping
            super().onClose(wasClean, code, reason)

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
        # left of the last read is parsed and dropped by onMessage.
        transport: Any = self.transport
        transport.loseConnection()


def install() -> None:
    """Make daphne's WebSocket factory build the protocol above (``Factory.protocol`` is
    Twisted's public name for the class a factory builds)."""
    WebSocketFactory.protocol = TavlaWebSocketProtocol
