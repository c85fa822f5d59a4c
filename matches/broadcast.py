"""Telling open boards about changes, only after the change is committed.

Every group name comes from one helper so consumers and services cannot drift apart.
"""

from __future__ import annotations

from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.db import transaction


def table_group(table_id: int) -> str:
    """The channel-layer group of every board open on one table."""
    return f"table.{table_id}"


LOBBY_GROUP = "lobby"


def broadcast_now(group: str, event: dict[str, Any]) -> None:
    """Send ``event`` to ``group`` at once (callers are already after the commit)."""
    layer = get_channel_layer()
    if layer is not None:
        async_to_sync(layer.group_send)(group, event)


def broadcast_on_commit(group: str, event: dict[str, Any]) -> None:
    """Send ``event`` to ``group`` once the current transaction commits; never before."""
    # robust: a Redis hiccup must not turn a committed move into an error for the player.
    transaction.on_commit(lambda: broadcast_now(group, event), robust=True)
