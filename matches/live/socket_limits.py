"""Limits on abuse over WebSockets, kept out of the consumers: :class:`GuardedSocket` is mixed
into every consumer and sees each socket's raw ASGI events before the consumer does.

* **Frame size.** A frame longer than ``TAVLA_SOCKET_MAX_FRAME_BYTES`` (16 KiB; the largest
  legal message is a few hundred bytes) closes the socket with 1009 ("message too big").
* **Message rate.** Each client (below) has a token bucket in each web process, shared by
  all its sockets (``TAVLA_SOCKET_BURST`` messages at once, refilled at ``TAVLA_SOCKET_RATE``
  a second), so closing and reopening a socket gives no fresh allowance. A message over it is
  dropped and answered ``{"type": "error", "error": "rate_limited"}``; a client that keeps
  sending anyway (its dropped messages outrun the refill by ``TAVLA_SOCKET_ABUSE`` messages)
  is closed with 1008 ("policy violation"). A dropped message is never parsed, so a flood
  costs little.

**The client** of a socket is its account (a logged-in user, or an API token) when it has
one, else its address (behind a proxy of ``TAVLA_TRUSTED_PROXIES``, the client's,
:mod:`tavla.site.proxies`). The limits below count per client, so a hall of players behind
one address are as many clients as players, and an abuser is cut off alone. The counts of
open sockets, the opening rate and the penalties are kept in Redis
(:mod:`matches.live.shared_limits`) and hold across every web process; the message and read
buckets are per process (a check per message would cost a Redis round trip each).

* **Opening sockets.** ``TAVLA_SOCKET_CONNECT_BURST`` at once per client, refilled at
  ``TAVLA_SOCKET_CONNECT_RATE`` a second; one more is closed with 1008 before any work is
  done for it (a flooder that reconnects at once after each 1008 costs next to nothing).
* **Penalty.** A client one of whose sockets was closed for flooding (here, or by the fuse in
  daphne's frame reader, ``tavla.site.daphne_protocol``) opens no new socket for
  ``TAVLA_SOCKET_PENALTY_SECONDS`` (60): each is closed with 1008 before any work is done for
  it. A logged-in flooder's account waits, never its address; an anonymous flooder's address
  waits (and daphne refuses that address's anonymous handshakes at the door already, 403).
  Sockets already open are not touched.
* **State reads.** ``sync`` and ``history`` read the database, so they have a bucket of
  their own per client: ``TAVLA_SOCKET_READ_BURST`` (5) at once, refilled at
  ``TAVLA_SOCKET_READ_RATE`` (1) a second; one more is answered ``rate_limited``.
* **Sockets per client.** At most ``TAVLA_SOCKETS_PER_USER`` open sockets per account, and
  ``TAVLA_SOCKETS_PER_ADDRESS`` anonymous sockets per address, across all web processes; one
  more is answered ``{"type": "error", "error": "too_many_sockets"}`` and closed with 1008.
* **Malformed frames.** Text that is not JSON (or nests too deeply to parse) and binary
  frames get ``{"type": "error", "error": "bad_request"}``; the socket stays open.

Every limit and close code is listed in ``docs/protocol.md``.
"""

from __future__ import annotations

import hashlib
import json
import time
from dataclasses import dataclass, field
from typing import Any, Final

from asgiref.sync import sync_to_async
from channels.exceptions import StopConsumer
from django.conf import settings
from django.utils.translation import gettext as _

from matches.live import shared_limits
from matches.live.language import ReaderLanguage
from matches.live.leases import lease_heartbeats
from tavla import metrics

CLOSE_POLICY_VIOLATION: Final = 1008
CLOSE_MESSAGE_TOO_BIG: Final = 1009


def _limit(name: str, default: float) -> float:
    return float(getattr(settings, name, default))


@dataclass
class TokenBucket:
    """``capacity`` tokens, refilled at ``rate`` a second; each message takes one.

    ``overflow`` counts messages refused beyond the bucket and drains at the same rate: a
    client whose overflow passes the abuse threshold is not slowing down.
    """

    capacity: float
    rate: float
    tokens: float = field(default=-1.0)
    overflow: float = 0.0
    stamp: float = field(default_factory=time.monotonic)

    def __post_init__(self) -> None:
        if self.tokens < 0:
            self.tokens = self.capacity

    def take(self, now: float | None = None) -> bool:
        """Take a token for one message; False (and one more overflow) when there is none."""
        now = time.monotonic() if now is None else now
        elapsed = max(0.0, now - self.stamp)
        self.stamp = now
        self.tokens = min(self.capacity, self.tokens + elapsed * self.rate)
        self.overflow = max(0.0, self.overflow - elapsed * self.rate)
        if self.tokens >= 1:
            self.tokens -= 1
            return True
        self.overflow += 1
        return False


class Buckets:
    """One :class:`TokenBucket` per key (a client, an address) in this process, kept while it
    is not full again: a full bucket is the same as a new one, so forgetting it loses
    nothing, and reconnecting never refills one early."""

    def __init__(self, capacity_setting: str, capacity: float, rate_setting: str,
                 rate: float) -> None:
        self.settings = (capacity_setting, capacity, rate_setting, rate)
        self.buckets: dict[str, TokenBucket] = {}

    def get(self, key: str) -> TokenBucket:
        bucket = self.buckets.get(key)
        if bucket is None:
            capacity_setting, capacity, rate_setting, rate = self.settings
            bucket = TokenBucket(capacity=_limit(capacity_setting, capacity),
                                 rate=_limit(rate_setting, rate))
            if len(self.buckets) >= 10_000:
                self.prune()
            self.buckets[key] = bucket
        return bucket

    def prune(self) -> None:
        now = time.monotonic()
        for key, bucket in list(self.buckets.items()):
            if bucket.tokens + (now - bucket.stamp) * bucket.rate >= bucket.capacity:
                del self.buckets[key]


def reset_limits() -> None:
    """Forget every bucket of this process and every shared count and penalty (tests)."""
    message_buckets.buckets.clear()
    read_buckets.buckets.clear()
    shared_limits.reset()


message_buckets = Buckets("TAVLA_SOCKET_BURST", 30, "TAVLA_SOCKET_RATE", 15)
read_buckets = Buckets("TAVLA_SOCKET_READ_BURST", 5, "TAVLA_SOCKET_READ_RATE", 1)

# The code daphne's frame reader (tavla.site.daphne_protocol) gives the application in the
# disconnect of a socket its fuse cut off: never sent on the wire, it tells the consumer to
# put the socket's client under the penalty.
FUSE_BLOWN: Final = 4999


def client_of(scope: dict[str, Any]) -> tuple[str, list[tuple[str, int]]]:
    """The client a socket belongs to, and the open-socket counts it is admitted against.

    The account comes first: a logged-in user (or an API token) is the client, limited to
    ``TAVLA_SOCKETS_PER_USER`` open sockets, whatever address it comes from, so a hall of
    players behind one address is a hall of clients. A socket with no account is its address's,
    limited to ``TAVLA_SOCKETS_PER_ADDRESS`` anonymous sockets.
    """
    user = scope.get("user")
    per_user = int(_limit("TAVLA_SOCKETS_PER_USER", 30))
    if user is not None and getattr(user, "is_authenticated", False):
        return f"user:{user.pk}", [(f"user:{user.pk}", per_user)]
    for name, value in scope.get("headers", []):
        if name.lower() == b"authorization" and value.lower().startswith(b"token "):
            client = f"token:{hashlib.sha256(value[6:].strip()).hexdigest()[:32]}"
            return client, [(client, per_user)]
    address = scope.get("client")
    client = f"address:{address[0] if address else 'unknown'}"
    return client, [(client, int(_limit("TAVLA_SOCKETS_PER_ADDRESS", 200)))]


def frame_size(text: str | None, data: bytes | None) -> int:
    """The frame's size in bytes (UTF-8 for text), counted only as far as the limit needs."""
    if data is not None:
        return len(data)
    if text is None:
        return 0
    limit = int(_limit("TAVLA_SOCKET_MAX_FRAME_BYTES", 16 * 1024))
    if len(text) > limit:
        return len(text)  # at least that many bytes
    return len(text) if text.isascii() else len(text.encode("utf-8"))


class BadMessage(ValueError):
    """A frame that is not one JSON value this server reads."""


def parse_message(text: str | None, data: bytes | None) -> Any:
    """The JSON value of a text frame. Raises :class:`BadMessage` for a binary frame, text
    that is not JSON, or JSON nested too deeply for the parser."""
    if text is None:
        raise BadMessage(_("Send text frames: one JSON object per message."))
    try:
        return json.loads(text)
    except RecursionError:
        raise BadMessage(_("The message nests too deeply: send one flat JSON object.")) from None
    except ValueError:
        raise BadMessage(_("Send one JSON object per message.")) from None


class GuardedSocket(ReaderLanguage):
    """A mixin for a Channels ``AsyncJsonWebsocketConsumer``, listed before it: applies the
    limits above, parses each frame once and hands the consumer's ``receive_json`` only
    well-formed messages within the limits. The consumer's own ``connect`` and
    ``disconnect`` run only for a socket that was let in. Through :class:`ReaderLanguage`
    the whole socket runs in its reader's language."""

    _bucket: TokenBucket | None = None
    _read_bucket: TokenBucket | None = None
    _client: str | None = None  # set while the socket is admitted
    _lease: shared_limits.Lease | None = None

    async def websocket_connect(self, message: dict[str, Any]) -> None:
        client, limits = client_of(self.scope)  # type: ignore[attr-defined]
        decision, lease = await sync_to_async(shared_limits.admit, thread_sensitive=False)(
            client, limits)
        if decision is not shared_limits.Admission.ADMITTED:
            metrics.SOCKETS_REFUSED.labels(reason=decision.name.lower()).inc()
            await self.accept()  # type: ignore[attr-defined]
            if decision is shared_limits.Admission.TOO_MANY:
                await self._error("too_many_sockets", _("Too many open sockets from this "
                                  "client: close some boards and try again."))
            # Penalised or opening too fast: closed before any work is done for it.
            await self.close(code=CLOSE_POLICY_VIOLATION)  # type: ignore[attr-defined]
            return
        self._client, self._lease = client, lease
        if lease is not None:
            lease_heartbeats().add(lease.member, lease)
        metrics.OPEN_SOCKETS.inc()
        self._bucket = message_buckets.get(client)
        self._read_bucket = read_buckets.get(client)
        await super().websocket_connect(message)  # type: ignore[misc]

    def may_read(self) -> bool:
        """Whether this client may have one more state read (``sync``, ``history``) now."""
        return self._read_bucket is None or self._read_bucket.take()

    async def websocket_disconnect(self, message: dict[str, Any]) -> None:
        if self._client is None:
            raise StopConsumer()  # refused at connect: the consumer never opened
        client, lease = self._client, self._lease
        self._client = self._lease = None
        metrics.OPEN_SOCKETS.dec()
        if message.get("code") == FUSE_BLOWN:
            await self._penalise(client)
        if lease is not None:
            lease_heartbeats().remove(lease.member)
            await sync_to_async(shared_limits.release, thread_sensitive=False)(lease)
        await super().websocket_disconnect(message)  # type: ignore[misc]

    async def websocket_receive(self, message: dict[str, Any]) -> None:
        if self._bucket is None:
            return
        text, data = message.get("text"), message.get("bytes")
        if frame_size(text, data) > _limit("TAVLA_SOCKET_MAX_FRAME_BYTES", 16 * 1024):
            await self.close(code=CLOSE_MESSAGE_TOO_BIG)  # type: ignore[attr-defined]
            return
        if not self._bucket.take():
            if self._bucket.overflow > _limit("TAVLA_SOCKET_ABUSE", 60):
                self._bucket.overflow = 0  # the close is the penalty; the next socket starts
                                           # with the bucket as this one left it
                self._bucket = None  # read nothing more from this socket
                if self._client is not None:
                    await self._penalise(self._client)
                await self.close(code=CLOSE_POLICY_VIOLATION)  # type: ignore[attr-defined]
            else:
                await self._error("rate_limited", _("Too many messages: slow down."))
            return
        try:
            content = parse_message(text, data)
        except BadMessage as error:
            await self._error("bad_request", str(error))
            return
        await self.receive_json(content)  # type: ignore[attr-defined]

    async def _penalise(self, client: str) -> None:
        """Put the flooder under the penalty: its account, or its address if it has none
        (never the address of a logged-in flooder: others share it)."""
        metrics.SOCKETS_CUT.inc()
        await sync_to_async(shared_limits.penalise, thread_sensitive=False)(client)

    async def _error(self, code: str, detail: str) -> None:
        await self.send_json({"type": "error", "error": code, "detail": detail})  # type: ignore[attr-defined]
