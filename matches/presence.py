"""Who has a board open: the clock's grace period needs to know who is disconnected.

Consumers call :func:`connected` and :func:`disconnected` (synchronous; wrap them with
``database_sync_to_async``). The state lives in Redis as one set of channel names per
(table, player), changed with SADD/SREM, so every web process sees the same answer and two
boards opening or closing at once cannot lose each other's update. When a player's last
board closes, ``…:since`` records the time (epoch seconds); opening a board clears it.

Functions raise ``redis.RedisError`` when Redis cannot be reached; callers that must not
fail on that (the flag) catch it.
"""

from __future__ import annotations

import threading
import time
from typing import Any

import redis
from django.conf import settings

# Long enough for any match; a board left "open" by a crashed web process expires with it.
_TTL = 24 * 3600
_PREFIX = "tavla:presence"

# KEYS: channels set, since key. ARGV: channel, now, ttl. The last board out stamps "since".
_DISCONNECT = """
redis.call('SREM', KEYS[1], ARGV[1])
if redis.call('SCARD', KEYS[1]) == 0 then
  redis.call('SET', KEYS[2], ARGV[2], 'EX', tonumber(ARGV[3]))
end
return redis.call('SCARD', KEYS[1])
"""

_clients: dict[str, redis.Redis] = {}
_clients_lock = threading.Lock()


def _client() -> redis.Redis:
    """One client (and connection pool) per Redis URL and process."""
    url = settings.REDIS_URL
    with _clients_lock:
        client = _clients.get(url)
        if client is None:
            client = redis.Redis.from_url(url, socket_timeout=2, socket_connect_timeout=2)
            _clients[url] = client
        return client


def _keys(table_id: int, player_id: int) -> tuple[str, str]:
    base = f"{_PREFIX}:{table_id}:{player_id}"
    return base, base + ":since"


def connected(*, table_id: int, player_id: int, channel_name: str) -> None:
    """Record one open board of ``player_id`` at ``table_id``."""
    channels, since = _keys(table_id, player_id)
    pipe = _client().pipeline(transaction=True)
    pipe.sadd(channels, channel_name)
    pipe.expire(channels, _TTL)
    pipe.delete(since)
    pipe.execute()


def disconnected(*, table_id: int, player_id: int, channel_name: str,
                 now: float | None = None) -> None:
    """Forget one board; when it was the last, remember since when the player is away
    (``now``, epoch seconds, is for tests)."""
    channels, since = _keys(table_id, player_id)
    stamp = time.time() if now is None else now
    _client().eval(_DISCONNECT, 2, channels, since, channel_name, repr(stamp), _TTL)


def is_connected(*, table_id: int, player_id: int) -> bool:
    """True while the player has at least one board of this table open."""
    channels, _since = _keys(table_id, player_id)
    return bool(_client().scard(channels))


def disconnected_since(*, table_id: int, player_id: int) -> float | None:
    """Epoch seconds since the player's last board closed, or None if never seen leaving
    (or a board is open now)."""
    _channels, since = _keys(table_id, player_id)
    value: Any = _client().get(since)
    return float(value) if value is not None else None


def forget(*, table_id: int, player_id: int) -> None:
    """Drop everything known about the player at the table (tests, a table's end)."""
    _client().delete(*_keys(table_id, player_id))
