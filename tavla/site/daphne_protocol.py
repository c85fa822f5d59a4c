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
stops reading, sends the close frame (1008), drops the connection and puts the socket's
client under the penalty of ``matches.live.socket_limits`` (no new socket for a while): an
anonymous socket's address at once; a logged-in socket's account through its consumer, told
by the disconnect's code (:data:`matches.live.socket_limits.FUSE_BLOWN`), since only the
application knows the account. Frames already queued still pass through the bucket, and the
consumer is told of the disconnect as usual (its sockets counted down, its groups left).

**The penalty at the door.** While an address is under that penalty (kept in Redis, shared by
every web process: ``matches.live.shared_limits``), each new socket from it that carries no
session cookie and no API token is refused at its handshake (HTTP 403, autobahn's
``ConnectionDeny``), before an application instance exists: a flooder that reconnects at
once after each refusal costs a handshake, not a consumer. (It was refused at accept, unread,
by a replaced daphne HTTP factory: about a quarter of the server's CPU under ten reconnecting
flooders, ``benchmarks/socket_flood.py``.)
Behind a proxy of ``TAVLA_TRUSTED_PROXIES`` the address is the client the proxy names. A
handshake with credentials goes on to the consumer, which refuses it if its account is
penalised and admits it otherwise, whatever its address.

**The client's address.** :class:`TavlaServer` gives daphne the client a trusted proxy names
(``X-Forwarded-For``) instead of the proxy's own address, so daphne's access log, like the
application, shows the client.

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
from daphne.cli import CommandLineInterface
from daphne.server import Server
from daphne.ws_protocol import WebSocketFactory, WebSocketProtocol
from django.conf import settings

from matches.live import shared_limits, socket_limits
from tavla.site.proxies import client_address, configured_networks


def _credentials(headers: dict[str, str]) -> bool:
    """Whether a handshake may belong to an account: a session cookie or an API token. Only
    a socket with neither is refused at the door for its address's penalty; the others are
    judged by the consumer, which knows the account (a hall behind one address must not pay
    for one anonymous flooder)."""
    cookie = headers.get("cookie", "")
    return (settings.SESSION_COOKIE_NAME + "=" in cookie
            or headers.get("authorization", "").lower().startswith("token "))


class TavlaServer(Server):  # type: ignore[misc]  # untyped base
    """Daphne's server, naming each connection's client as ``TAVLA_TRUSTED_PROXIES`` says.

    Daphne fills a connection's ``client_addr`` (its access log's first column, and the
    scope's ``client``) from the TCP peer, or from ``X-Forwarded-For`` from anyone with
    ``--proxy-headers``. Here it is the client a trusted proxy names, and the peer otherwise
    (:func:`tavla.site.proxies.client_address`), for HTTP and WebSockets alike, before the
    access log sees it."""

    def create_application(self, protocol: Any, scope: dict[str, Any]) -> Any:
        trusted = configured_networks()
        peer = scope.get("client")
        if trusted and peer:
            forwarded = [value.decode("latin-1") for name, value in scope.get("headers", ())
                         if name.lower() == b"x-forwarded-for"]
            client = client_address(peer[0], forwarded, trusted)
            if client != peer[0]:
                # The scope keeps the peer: the application's own middleware sets the client
                # (tavla.site.proxies) and must see the peer to trust the proxy's other
                # headers (X-Request-ID, tavla.site.request_ids).
                protocol.client_addr = [client, peer[1]]
        return super().create_application(protocol, scope)


class TavlaWebSocketProtocol(WebSocketProtocol):  # type: ignore[misc]  # untyped base
    _window_start = 0.0
    _window_frames = 0
    _blown = False
    _refused = False
    _anonymous = False

    def onConnect(self, request: Any) -> Any:  # noqa: N802 - autobahn's name
        peer = self.transport.getPeer()
        host = getattr(peer, "host", None)
        self._anonymous = not _credentials(request.headers)
        if host is not None and self._anonymous:
            forwarded = [request.headers.get("x-forwarded-for", "")]
            address = client_address(host, forwarded, configured_networks())
            if shared_limits.penalised(f"address:{address}"):
                self._refused = True
                raise ConnectionDeny(ConnectionDeny.FORBIDDEN, "This address is waiting.")
        return super().onConnect(request)

    def onClose(self, wasClean: bool, code: int | None, reason: str | None) -> None:  # noqa: N802, N803 - autobahn's names
        if self._refused:
            return  # a refused socket never reached daphne's bookkeeping
        # The application learns that the fuse cut this socket off (and puts its client,
        # which only the application knows, under the penalty).
        super().onClose(wasClean, socket_limits.FUSE_BLOWN if self._blown else code, reason)

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
        if self._anonymous and self.client_addr:
            # At once, so the flooder's next handshake is refused here; an account's
            # penalty is the consumer's to give (onClose).
            shared_limits.penalise(f"address:{self.client_addr[0]}")
        if self.state == self.STATE_OPEN:
            self.sendCloseFrame(code=socket_limits.CLOSE_POLICY_VIOLATION,
                                reasonUtf8=b"too many messages", isReply=False)
        # Write what is pending (the close frame) and stop reading; onClose follows. What is
        # left of the last read is parsed and dropped by onMessage.
        transport: Any = self.transport
        transport.loseConnection()


def install() -> None:
    """Make daphne's WebSocket factory build the protocol above (``Factory.protocol`` is
    Twisted's public name for the class a factory builds), and daphne's command line build
    the server above (``server_class``, the attribute daphne's ``CommandLineInterface`` builds
    its server from; the application is loaded before the server is built)."""
    WebSocketFactory.protocol = TavlaWebSocketProtocol
    CommandLineInterface.server_class = TavlaServer
