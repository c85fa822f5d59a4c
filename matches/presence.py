"""Who has a board open: the clock's grace period needs to know who is disconnected.

Consumers call :func:`connected` and :func:`disconnected` (synchronous; wrap them with
``database_sync_to_async``). State lives in Redis through Django's cache so every web
process sees the same answer.
"""

from __future__ import annotations

import time

from django.core.cache import cache

_TTL = 24 * 3600


def _key(table_id: int, player_id: int) -> str:
    return f"presence:{table_id}:{player_id}"


def connected(*, table_id: int, player_id: int, channel_name: str) -> None:
    """Record one open board of ``player_id`` at ``table_id``."""
    channels: set[str] = cache.get(_key(table_id, player_id)) or set()
    channels.add(channel_name)
    cache.set(_key(table_id, player_id), channels, _TTL)
    cache.delete(_key(table_id, player_id) + ":since")


def disconnected(*, table_id: int, player_id: int, channel_name: str) -> None:
    """Forget one board; when it was the last, remember since when the player is away."""
    channels: set[str] = cache.get(_key(table_id, player_id)) or set()
    channels.discard(channel_name)
    cache.set(_key(table_id, player_id), channels, _TTL)
    if not channels:
        cache.set(_key(table_id, player_id) + ":since", time.time(), _TTL)


def is_connected(*, table_id: int, player_id: int) -> bool:
    return bool(cache.get(_key(table_id, player_id)))


def disconnected_since(*, table_id: int, player_id: int) -> float | None:
    """Epoch seconds since the player's last board closed, or None if never seen leaving."""
    value = cache.get(_key(table_id, player_id) + ":since")
    return float(value) if value is not None else None
