"""Who is online now: a logged-in player with a page open that keeps the player's notice
socket (``/ws/notices/``: the lobby, the home page).

As board presence (:mod:`matches.services.presence`) does for a table, each open socket is
a member of a Redis sorted set per player, scored by when it expires, and every player with
one is in ``tavla:online``, scored the same way. The socket announces itself on opening
(:class:`OnlineHeartbeat`), refreshes every ``TAVLA_PRESENCE_HEARTBEAT`` seconds (one round
trip per process for all its sockets) and leaves on closing; a socket whose process died
stops refreshing and drops out three heartbeats later. When a player's last socket closes,
:func:`went_offline` answers True, and the consumer withdraws the player's seeks
(:func:`matches.services.seeks.seeks_withdraw`).

Redis losing the sets only hides players for one heartbeat: nothing is decided on this but
the list and the withdrawal of seeks, which expire by themselves anyway.
"""

from __future__ import annotations

import logging
import time
from typing import Any, Final

from asgiref.sync import sync_to_async

from matches.services.presence import ttl
from tavla.heartbeats import Heartbeats
from tavla.redis_client import redis_client

logger = logging.getLogger(__name__)

_PREFIX: Final = "tavla:online"
ONLINE_KEY: Final = _PREFIX

# KEYS: the player's sockets, the online set. ARGV: channel, expires_at, key ttl, player.
_OPEN = """
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1])
redis.call('EXPIRE', KEYS[1], tonumber(ARGV[3]))
redis.call('ZADD', KEYS[2], ARGV[2], ARGV[4])
return 1
"""

# KEYS: the player's sockets, the online set. ARGV: channel, now, player. The last one out
# takes the player off the list.
_CLOSE = """
redis.call('ZREM', KEYS[1], ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[2])
local left = redis.call('ZCARD', KEYS[1])
if left == 0 then
  redis.call('ZREM', KEYS[2], ARGV[3])
end
return left
"""


def _sockets_key(player_id: int) -> str:
    return f"{_PREFIX}:{player_id}"


def refresh_all(sockets: list[tuple[int, str]], *, now: float | None = None) -> None:
    """Record (or refresh) each open socket ``(player_id, channel_name)``, in one round trip."""
    if not sockets:
        return
    stamp = time.time() if now is None else now
    life = ttl()
    pipe = redis_client().pipeline(transaction=False)
    for player_id, channel in sockets:
        pipe.eval(_OPEN, 2, _sockets_key(player_id), ONLINE_KEY, channel, repr(stamp + life),
                  int(life) + 1, str(player_id))
    pipe.execute()


def went_offline(player_id: int, channel_name: str, *, now: float | None = None) -> bool:
    """Forget one socket; True when it was the player's last."""
    stamp = time.time() if now is None else now
    left = redis_client().eval(_CLOSE, 2, _sockets_key(player_id), ONLINE_KEY, channel_name,
                               repr(stamp), str(player_id))
    return int(left) == 0


def online_ids(*, now: float | None = None) -> list[int]:
    """The ids of the players online now (whose socket has not expired)."""
    stamp = time.time() if now is None else now
    client = redis_client()
    client.zremrangebyscore(ONLINE_KEY, "-inf", repr(stamp))  # the dead processes' sockets
    members: Any = client.zrangebyscore(ONLINE_KEY, f"({stamp!r}", "+inf")
    return [int(member) for member in members]


def is_online(player_id: int, *, now: float | None = None) -> bool:
    stamp = time.time() if now is None else now
    score = redis_client().zscore(ONLINE_KEY, str(player_id))
    return score is not None and float(score) > stamp


class OnlineHeartbeat:
    """The presence of one open notice socket, kept alive while it is open. Redis being
    unreachable never fails the socket: the error is logged and the next beat tries again."""

    def __init__(self, *, player_id: int, channel_name: str) -> None:
        self.player_id = player_id
        self.channel_name = channel_name
        self._beats: Heartbeats | None = None

    async def open(self) -> None:
        try:
            await sync_to_async(refresh_all, thread_sensitive=False)(
                [(self.player_id, self.channel_name)])
        except Exception:  # noqa: BLE001 - logged; the next heartbeat tries again
            logger.exception("online: could not record an open socket")
        self._beats = Heartbeats.of_running_loop("online", refresh_all)
        self._beats.add(id(self), (self.player_id, self.channel_name))

    async def close(self) -> bool:
        """Forget the socket; True when it was the player's last (False if Redis failed)."""
        if self._beats is not None:
            self._beats.remove(id(self))
            self._beats = None
        try:
            return await sync_to_async(went_offline, thread_sensitive=False)(
                self.player_id, self.channel_name)
        except Exception:  # noqa: BLE001 - the socket is closing anyway; its entry expires
            logger.exception("online: could not record a closed socket")
            return False
