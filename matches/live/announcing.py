"""Sockets that only announce that something changed: a tournament's, an arena's or a
ladder's page keeps one open and, told of a change, fetches what it shows itself.

Anyone may watch, so a connection needs no login. The socket sends one kind of message,
``{"type": "<kind>.changed", "<kind>_id": id}``; a client may send ``{"type": "ping"}``
and gets ``{"type": "pong"}`` (docs/protocol.md). An id of nothing is closed with 4404,
after the handshake: a close before it ends is an HTTP 403 to the client, which never
sees the code.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncJsonWebsocketConsumer
from django.db.models import Model
from django.utils.translation import gettext as _

from matches.live.socket_limits import GuardedSocket

CLOSE_NOT_FOUND = 4404


async def answer_ping(socket: AsyncJsonWebsocketConsumer, content: Any, refusal: str) -> None:
    """What these sockets answer a client: ``pong`` to a ping (with its ``ref``), as every
    socket of the protocol does; ``bad_request`` to a message that is not an object;
    ``unknown_type`` to anything else."""
    ref = content.get("ref") if isinstance(content, dict) else None
    if not isinstance(content, dict):
        reply = {"type": "error", "error": "bad_request",
                 "detail": _("Send one JSON object per message.")}
    elif content.get("type") == "ping":
        reply = {"type": "pong"}
    else:
        reply = {"type": "error", "error": "unknown_type", "detail": refusal}
    await socket.send_json(reply if ref is None else {**reply, "ref": ref})


class AnnouncingSocket(GuardedSocket, AsyncJsonWebsocketConsumer):  # type: ignore[misc]
    """The socket of one ``model`` row, named ``kind`` in the URL (``<kind>_id``) and in
    the message. A subclass names the kind, the model and the row's channel group, and
    routes the group's event (``<kind>.changed``, Channels calls ``<kind>_changed``) to
    :meth:`announce`."""

    kind: ClassVar[str]
    model: ClassVar[type[Model]]
    #: The channel group of a row (read through the class: a function, not a method).
    group_of: ClassVar[Callable[[int], str]]
    group: str | None = None

    async def connect(self) -> None:
        pk = int(self.scope["url_route"]["kwargs"][f"{self.kind}_id"])
        exists = await database_sync_to_async(self.model._default_manager.filter(pk=pk).exists)()
        if not exists:
            await self.accept()
            await self.close(code=CLOSE_NOT_FOUND)
            return
        self.group = type(self).group_of(pk)
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.accept()

    async def disconnect(self, code: int) -> None:
        if self.group is not None:
            await self.channel_layer.group_discard(self.group, self.channel_name)

    async def receive_json(self, content: Any, **kwargs: Any) -> None:
        await answer_ping(self, content, _("This socket only announces changes."))

    async def announce(self, event: dict[str, Any]) -> None:
        key = f"{self.kind}_id"
        await self.send_json({"type": f"{self.kind}.changed", key: event.get(key)})
