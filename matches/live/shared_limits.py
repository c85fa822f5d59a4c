"""The sockets' limits that must hold across web processes, kept in Redis.

Every web process admits sockets against the same counts, so a limit means the same with one
daphne or twenty behind a proxy:

* **Open sockets** of a client (its account, or its address when it has none) are a sorted
  set ``tavla:limits:sockets:<client>`` whose members are the open sockets and whose scores
  are their leases' ends (Redis time, milliseconds). A web process renews the leases of its
  open sockets every presence heartbeat (``TAVLA_PRESENCE_HEARTBEAT``, 10 s) in one round trip;
  a lease runs three heartbeats. A process that dies leaks nothing: its sockets' leases end
  and the next admission drops them (and the key itself expires with its last lease).
* **Opening rate**: a token bucket per client, ``tavla:limits:connect:<client>`` (a hash of
  tokens and the time they were counted), expiring once it would be full again.
* **Penalties**: ``tavla:limits:penalty:<client>``, a key that expires when the penalty ends.

Admission is one Lua script (penalty, counts, bucket, then the socket's place), so two
processes admitting at once never both take the last place. Redis being unreachable never
keeps a board out: the socket is admitted (and the error logged and counted in the metrics).
"""

from __future__ import annotations

import logging
import uuid
from dataclasses import dataclass
from enum import IntEnum
from typing import Final

import redis
from django.conf import settings

from tavla.metrics import record_error
from tavla.redis_client import redis_client

logger = logging.getLogger(__name__)

PREFIX: Final = "tavla:limits:"

# Redis time in milliseconds: every web process agrees on "now" whatever its host's clock.
_NOW = """
local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
"""

# KEYS: penalty, bucket, then the socket sets. ARGV: member, lease ms, bucket capacity,
# bucket rate a second, then each set's limit (0: none).
_ADMIT = _NOW + """
if redis.call('EXISTS', KEYS[1]) == 1 then return 1 end
local lease = tonumber(ARGV[2])
for i = 3, #KEYS do
  redis.call('ZREMRANGEBYSCORE', KEYS[i], '-inf', now)
  local limit = tonumber(ARGV[i + 2])
  if limit > 0 and redis.call('ZCARD', KEYS[i]) >= limit then return 3 end
end
local capacity, rate = tonumber(ARGV[3]), tonumber(ARGV[4])
local bucket = redis.call('HMGET', KEYS[2], 'tokens', 'stamp')
local tokens = tonumber(bucket[1]) or capacity
local stamp = tonumber(bucket[2]) or now
tokens = math.min(capacity, tokens + math.max(0, now - stamp) * rate / 1000)
if tokens < 1 then return 2 end
tokens = tokens - 1
redis.call('HSET', KEYS[2], 'tokens', tostring(tokens), 'stamp', now)
local refill = 3600000
if rate > 0 then refill = math.ceil((capacity - tokens) / rate * 1000) + 1000 end
redis.call('PEXPIRE', KEYS[2], refill)
for i = 3, #KEYS do
  redis.call('ZADD', KEYS[i], now + lease, ARGV[1])
  redis.call('PEXPIRE', KEYS[i], lease)
end
return 0
"""

# KEYS: socket sets; ARGV: lease ms, then the member for each key.
_RENEW = _NOW + """
local lease = tonumber(ARGV[1])
for i = 1, #KEYS do
  redis.call('ZADD', KEYS[i], now + lease, ARGV[i + 1])
  redis.call('PEXPIRE', KEYS[i], lease)
end
return #KEYS
"""


class Admission(IntEnum):
    """What :func:`admit` decided, as the script returns it."""

    ADMITTED = 0
    PENALISED = 1
    TOO_FAST = 2
    TOO_MANY = 3


@dataclass(frozen=True)
class Lease:
    """One admitted socket: its member name and the sets it is counted in."""

    member: str
    keys: tuple[str, ...]


def _setting(name: str, default: float) -> float:
    return float(getattr(settings, name, default))


def lease_ms() -> int:
    """How long a socket stays counted without a renewal: three presence heartbeats."""
    return int(3 * _setting("TAVLA_PRESENCE_HEARTBEAT", 10.0) * 1000)


def penalty_key(client: str) -> str:
    return f"{PREFIX}penalty:{client}"


def admit(client: str, limits: list[tuple[str, int]]) -> tuple[Admission, Lease | None]:
    """Admit one socket of ``client`` (``user:7``, ``token:…`` or ``address:…``), counted under
    each ``(key, limit)`` of ``limits``. Returns the decision and, when admitted, the lease to
    renew and release. Fails open (admitted, no lease) when Redis cannot be reached."""
    member = uuid.uuid4().hex
    keys = [penalty_key(client), f"{PREFIX}connect:{client}",
            *(f"{PREFIX}sockets:{key}" for key, _limit in limits)]
    argv: list[str | float] = [member, lease_ms(), _setting("TAVLA_SOCKET_CONNECT_BURST", 60),
            _setting("TAVLA_SOCKET_CONNECT_RATE", 2), *(limit for _key, limit in limits)]
    try:
        decision = Admission(int(redis_client().eval(_ADMIT, len(keys), *keys, *argv)))
    except redis.RedisError:
        logger.exception("socket limits: Redis unreachable, socket of %s admitted", client)
        record_error("limits")
        return Admission.ADMITTED, None
    if decision is not Admission.ADMITTED:
        return decision, None
    return decision, Lease(member=member, keys=tuple(keys[2:]))


def release(lease: Lease) -> None:
    """The socket closed: it is no longer counted."""
    try:
        with redis_client().pipeline(transaction=False) as pipe:
            for key in lease.keys:
                pipe.zrem(key, lease.member)
            pipe.execute()
    except redis.RedisError:
        logger.exception("socket limits: could not release a socket (its lease will end)")
        record_error("limits")


def renew(leases: list[Lease]) -> None:
    """Renew the leases of every open socket of this process, in one round trip."""
    keys = [key for lease in leases for key in lease.keys]
    if not keys:
        return
    members = [lease.member for lease in leases for _key in lease.keys]
    redis_client().eval(_RENEW, len(keys), *keys, lease_ms(), *members)


def penalise(client: str) -> None:
    """Refuse new sockets of ``client`` for ``TAVLA_SOCKET_PENALTY_SECONDS``."""
    milliseconds = int(_setting("TAVLA_SOCKET_PENALTY_SECONDS", 60) * 1000)
    if milliseconds <= 0:
        return
    try:
        redis_client().set(penalty_key(client), "1", px=milliseconds)
    except redis.RedisError:
        logger.exception("socket limits: could not record the penalty of %s", client)
        record_error("limits")


def penalised(client: str) -> bool:
    """Whether ``client`` is under a penalty now (False when Redis cannot be reached)."""
    try:
        return bool(redis_client().exists(penalty_key(client)))
    except redis.RedisError:
        record_error("limits")
        return False


def reset() -> None:
    """Forget every shared count, bucket and penalty (tests)."""
    client = redis_client()
    keys = list(client.scan_iter(match=f"{PREFIX}*", count=1000))
    if keys:
        client.delete(*keys)
