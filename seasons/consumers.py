"""``/ws/arenas/<id>/``: tells an open arena page that its leaderboard changed (a pairing, a
result, a player joining or pausing, the end); the page then fetches the board itself.

Anyone may watch an arena: no login needed. The only message sent is
``{"type": "arena.changed", "arena_id": id}``; a client may send ``{"type": "ping"}``.
"""

from __future__ import annotations

from typing import Any

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncJsonWebsocketConsumer
from django.utils.translation import gettext as _

from matches.live.socket_limits import GuardedSocket
from seasons.models import Arena, Ladder
from seasons.services import arena_group, ladder_group
from tournaments.consumers import answer_ping

CLOSE_NO_ARENA = 4404


class ArenaConsumer(GuardedSocket, AsyncJsonWebsocketConsumer):  # type: ignore[misc]
    group: str | None = None

    async def connect(self) -> None:
        arena_id = int(self.scope["url_route"]["kwargs"]["arena_id"])
        exists = await database_sync_to_async(Arena.objects.filter(pk=arena_id).exists)()
        if not exists:
            await self.accept()  # a close before the handshake is an HTTP 403 to the client
            await self.close(code=CLOSE_NO_ARENA)
            return
        self.group = arena_group(arena_id)
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.accept()

    async def disconnect(self, code: int) -> None:
        if self.group is not None:
            await self.channel_layer.group_discard(self.group, self.channel_name)

    async def receive_json(self, content: Any, **kwargs: Any) -> None:
        await answer_ping(self, content, _("This socket only announces changes."))

    async def arena_changed(self, event: dict[str, Any]) -> None:
        await self.send_json({"type": "arena.changed", "arena_id": event.get("arena_id")})


class LadderConsumer(GuardedSocket, AsyncJsonWebsocketConsumer):  # type: ignore[misc]
    """``/ws/ladders/<id>/``: tells an open ladder page that the ladder changed (a player
    joined, left or dropped, a challenge was made, answered or decided); the page then
    fetches it itself. Anyone may watch; the only message sent is
    ``{"type": "ladder.changed", "ladder_id": id}``; a client may send ``{"type": "ping"}``."""

    group: str | None = None

    async def connect(self) -> None:
        ladder_id = int(self.scope["url_route"]["kwargs"]["ladder_id"])
        exists = await database_sync_to_async(Ladder.objects.filter(pk=ladder_id).exists)()
        if not exists:
            await self.accept()
            await self.close(code=CLOSE_NO_ARENA)
            return
        self.group = ladder_group(ladder_id)
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.accept()

    async def disconnect(self, code: int) -> None:
        if self.group is not None:
            await self.channel_layer.group_discard(self.group, self.channel_name)

    async def receive_json(self, content: Any, **kwargs: Any) -> None:
        await answer_ping(self, content, _("This socket only announces changes."))

    async def ladder_changed(self, event: dict[str, Any]) -> None:
        await self.send_json({"type": "ladder.changed", "ladder_id": event.get("ladder_id")})
