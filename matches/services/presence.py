"""Who has a board open: the clock's grace period needs to know who is disconnected.

Each open board of a seated player is a member of a Redis sorted set per (table, player),
scored by when it expires. The board's consumer announces it on opening
(:class:`BoardHeartbeat`), refreshes it every ``TAVLA_PRESENCE_HEARTBEAT`` seconds and
removes it on closing; a board whose web process died stops refreshing and counts as closed
``TTL`` (three heartbeats) later. When a player's last board closes, ``…:since`` records the
time (epoch seconds); opening a board clears it.

Redis may lose all of this (a flush, a restart without persistence): the heartbeats put
every open board back within one interval. Until they have had the time to, presence is
*unknown*, never "absent": :func:`absent_at_flag` answers ``None`` (no grace period runs for
that flag) and :func:`came_back` answers ``None`` (the sweep asks again later). The store
knows it is complete once ``tavla:presence:epoch`` (set, if missing, by every board and
every clock sweep, and started again by a sweep when the Redis server restarted) is older
than :func:`warm_up`.

Synchronous functions raise ``redis.RedisError`` when Redis cannot be reached, except the
two answers for the clock, which log it and say "unknown".
"""

from __future__ import annotations

import logging
import time
from typing import Any, Final

from asgiref.sync import sync_to_async

from tavla.heartbeats import Heartbeats, heartbeat_interval
from tavla.redis_client import redis_client

logger = logging.getLogger(__name__)

_PREFIX: Final = "tavla:presence"
EPOCH_KEY: Final = f"{_PREFIX}:epoch"
# How long "last board closed at" is remembered: beyond any table's grace period.
SINCE_TTL: Final = 24 * 3600

# KEYS: boards, since, epoch. ARGV: channel, expires_at, key ttl, now.
_OPEN = """
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1])
redis.call('EXPIRE', KEYS[1], tonumber(ARGV[3]))
redis.call('DEL', KEYS[2])
redis.call('SET', KEYS[3], ARGV[4], 'NX')
return 1
"""

# KEYS: boards, since. ARGV: channel, now, since ttl. The last live board out stamps "since".
_CLOSE = """
redis.call('ZREM', KEYS[1], ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[2])
local left = redis.call('ZCARD', KEYS[1])
if left == 0 then
  redis.call('SET', KEYS[2], ARGV[2], 'EX', tonumber(ARGV[3]))
end
return left
"""


def ttl() -> float:
    """A board not refreshed for this long counts as closed (its web process died)."""
    return 3 * heartbeat_interval()


def warm_up() -> float:
    """After Redis lost presence, how long until every open board has announced itself."""
    return 1.5 * heartbeat_interval()


def _keys(table_id: int, player_id: int) -> tuple[str, str]:
    base = f"{_PREFIX}:{table_id}:{player_id}"
    return base, base + ":since"


def connected(*, table_id: int, player_id: int, channel_name: str,
              now: float | None = None) -> None:
    """Record (or refresh) one open board of ``player_id`` at ``table_id``."""
    refresh_all([{"table_id": table_id, "player_id": player_id,
                  "channel_name": channel_name}], now=now)


refresh = connected  # a heartbeat announces the board again: it may have been flushed


def refresh_all(boards: list[dict[str, Any]], *, now: float | None = None) -> None:
    """:func:`refresh` every board of ``boards`` (each its ``table_id``, ``player_id`` and
    ``channel_name``) in one round trip: a web process's heartbeat."""
    if not boards:
        return
    stamp = time.time() if now is None else now
    life = ttl()
    pipe = redis_client().pipeline(transaction=False)
    for board in boards:
        keys = _keys(board["table_id"], board["player_id"])
        pipe.eval(_OPEN, 3, *keys, EPOCH_KEY, board["channel_name"], repr(stamp + life),
                  int(life) + 1, repr(stamp))
    pipe.execute()


def disconnected(*, table_id: int, player_id: int, channel_name: str,
                 now: float | None = None) -> None:
    """Forget one board; when it was the last, remember since when the player is away
    (``now``, epoch seconds, is for tests)."""
    boards, since = _keys(table_id, player_id)
    stamp = time.time() if now is None else now
    redis_client().eval(_CLOSE, 2, boards, since, channel_name, repr(stamp), SINCE_TTL)


def is_connected(*, table_id: int, player_id: int, now: float | None = None) -> bool:
    """True while the player has at least one board of this table open (and alive)."""
    boards, _since = _keys(table_id, player_id)
    stamp = time.time() if now is None else now
    return bool(redis_client().zcount(boards, f"({stamp!r}", "+inf"))


def disconnected_since(*, table_id: int, player_id: int) -> float | None:
    """Epoch seconds since the player's last board closed, or None if never seen leaving
    (or a board is open now)."""
    _boards, since = _keys(table_id, player_id)
    value: Any = redis_client().get(since)
    return float(value) if value is not None else None


def _epoch(client: Any) -> tuple[float, str | None] | None:
    """The stored epoch: (since, Redis run id or None), or None when there is none."""
    raw: Any = client.get(EPOCH_KEY)
    if raw is None:
        return None
    since, _sep, run_id = raw.decode().partition(" ")
    return float(since), run_id or None


def keep_epoch(*, now: float | None = None) -> None:
    """Mark that the presence store exists from ``now`` on, unless it is marked already by
    this Redis server's run (a restart that kept its data still lost the boards opened
    since its last save, so a new run id starts a new epoch). Every clock sweep calls it;
    boards mark it too (without the run id, which this adds)."""
    client = redis_client()
    run_id = str(client.info("server")["run_id"])
    stamp = time.time() if now is None else now
    stored = _epoch(client)
    if stored is not None and stored[1] == run_id:
        return
    since = stored[0] if stored is not None and stored[1] is None else stamp
    client.set(EPOCH_KEY, f"{since!r} {run_id}")


def is_complete(*, now: float | None = None) -> bool:
    """Whether every open board is in the store: it has existed, on this run of the Redis
    server, for at least :func:`warm_up` seconds."""
    client = redis_client()
    stored = _epoch(client)
    if stored is None:
        return False
    since, run_id = stored
    if run_id is not None and run_id != str(client.info("server")["run_id"]):
        return False
    return (time.time() if now is None else now) - since >= warm_up()


def absent_at_flag(*, table_id: int, player_id: int) -> bool | None:
    """For a flag falling now: True when the player has no board of the table open, False
    when they have one, None when presence cannot tell (Redis unreachable, or it lost its
    data so recently that open boards may not have announced themselves again)."""
    try:
        if not is_complete():
            return None
        return not is_connected(table_id=table_id, player_id=player_id)
    except Exception:  # noqa: BLE001 - a Redis hiccup must not undo a flag; no grace then
        logger.exception("presence unavailable at a flag")
        return None


def came_back(*, table_id: int, player_id: int, flagged_at: float) -> bool | None:
    """Whether a player who flagged while away has had a board open since: one open now,
    or one closed after the flag. None when presence cannot tell yet."""
    if not is_complete():
        return None
    if is_connected(table_id=table_id, player_id=player_id):
        return True
    since = disconnected_since(table_id=table_id, player_id=player_id)
    return since is not None and since > flagged_at


class BoardHeartbeat:
    """The presence of one open board, kept alive while the board is open.

    A consumer calls :meth:`open` once the player's board is open and :meth:`close` when
    it closes. Redis being unreachable never fails the board: the error is logged and the
    next heartbeat tries again. Every open board of a process is refreshed by one task, in
    one Redis round trip an interval (:mod:`tavla.heartbeats`): a call for each board was 3% of
    a web process with a thousand boards open (``benchmarks/live_load.py``).
    """

    def __init__(self, *, table_id: int, player_id: int, channel_name: str) -> None:
        self.table_id = table_id
        self.player_id = player_id
        self.channel_name = channel_name
        self._beats: Heartbeats | None = None

    def _ids(self) -> dict[str, Any]:
        return {"table_id": self.table_id, "player_id": self.player_id,
                "channel_name": self.channel_name}

    async def open(self) -> None:
        await self._announce()
        self._beats = board_heartbeats()
        self._beats.add(id(self), self._ids())

    async def close(self) -> None:
        if self._beats is not None:
            self._beats.remove(id(self))
            self._beats = None
        try:
            await sync_to_async(disconnected, thread_sensitive=False)(**self._ids())
        except Exception:  # noqa: BLE001 - the board is closing anyway; its entry expires
            logger.exception("presence: could not record a closed board")

    async def _announce(self) -> None:
        try:
            await sync_to_async(connected, thread_sensitive=False)(**self._ids())
        except Exception:  # noqa: BLE001 - logged; the next heartbeat tries again
            logger.exception("presence: could not record an open board")


def board_heartbeats() -> Heartbeats:
    """The running loop's open boards, renewed together (:mod:`tavla.heartbeats`)."""
    return Heartbeats.of_running_loop("presence", refresh_all)
