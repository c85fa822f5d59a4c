"""Telling open boards about changes, only after the change is committed.

Every group name comes from one helper so consumers and services cannot drift apart.
"""

from __future__ import annotations

import asyncio
import logging
from contextvars import ContextVar
from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.db import transaction

logger = logging.getLogger(__name__)

# The event loop of the socket whose command is running in this (database) thread, set by
# the consumers around each database call (:func:`pushing_from`).
_socket_loop: ContextVar[asyncio.AbstractEventLoop | None] = ContextVar(
    "tavla_socket_loop", default=None)
_sending: set[asyncio.Task[None]] = set()  # pushes in flight (a task nobody holds may vanish)


def table_group(table_id: int) -> str:
    """The channel-layer group of every board open on one table."""
    return f"table.{table_id}"


def states_group(table_id: int) -> str:
    """The channel-layer group that carries one table's pushed states: each web process
    joins it once and hands the states to its boards (:mod:`matches.live.fanout`)."""
    return f"table.{table_id}.states"


LOBBY_GROUP = "lobby"


def player_group(player_id: int) -> str:
    """The channel-layer group of one player's open pages (home, lobby: ``/ws/notices/``)."""
    return f"player.{player_id}"


def tell_player_on_commit(player_id: int, message: dict[str, Any]) -> None:
    """Send ``message`` (a message of docs/protocol.md, as the client gets it) to the
    player's open pages once the current transaction commits."""
    broadcast_on_commit(player_group(player_id), {"type": "player.message", "message": message})


def pushing_from(loop: asyncio.AbstractEventLoop) -> None:
    """Say that the database work now starting serves a socket on ``loop``: its pushes are
    handed to that loop and not waited for. Call it on the loop, before the database call
    (the context travels with ``sync_to_async`` into the thread)."""
    _socket_loop.set(loop)


def broadcast_now(group: str, event: dict[str, Any]) -> None:
    """Send ``event`` to ``group`` at once (callers are already after the commit).

    From a socket's command the send is handed to the socket's event loop, and the database
    thread goes on at once: it used to wait for Redis through ``async_to_sync`` and the loop,
    two thread hops per change (and a hang at shutdown when the loop had stopped). Elsewhere
    (REST, Celery, the shell) the send is made before returning."""
    layer = get_channel_layer()
    if layer is None:
        return
    loop = _socket_loop.get()
    if loop is not None and loop.is_running():
        loop.call_soon_threadsafe(_start_send, layer, group, event)
        return
    async_to_sync(layer.group_send)(group, event)


def _start_send(layer: Any, group: str, event: dict[str, Any]) -> None:
    task = asyncio.get_running_loop().create_task(layer.group_send(group, event))
    _sending.add(task)
    task.add_done_callback(_sent)


def _sent(task: asyncio.Task[None]) -> None:
    _sending.discard(task)
    if not task.cancelled() and task.exception() is not None:
        # As on_commit(robust=True) does: a Redis hiccup is logged, the move stays made.
        logger.error("A push to the boards failed", exc_info=task.exception())


def push_state_on_commit(table_id: int, event: dict[str, Any]) -> None:
    """Push a table's new state (:func:`matches.selectors.pushed_state`) to its boards once
    the current transaction commits."""
    broadcast_on_commit(states_group(table_id), event)


def broadcast_on_commit(group: str, event: dict[str, Any]) -> None:
    """Send ``event`` to ``group`` once the current transaction commits; never before."""
    # robust: a Redis hiccup must not turn a committed move into an error for the player.
    transaction.on_commit(lambda: broadcast_now(group, event), robust=True)
