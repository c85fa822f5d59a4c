"""Live tournament pages: ``/ws/tournaments/<id>/`` tells an open page that the bracket or
the standings changed; the page then fetches the new fragment (or the JSON) itself.

``/ws/notices/`` (logged in) tells a player of their own pairings: on connect and whenever
one is made or decided, ``{"type": "notices", "notices": [...]}`` with every pairing they
have to play (see :func:`tournaments.notices.notices_for`). It carries the player's other
messages too (a paired seek, a challenge and its answer: what the services send with
:func:`matches.services.broadcast.tell_player_on_commit`), and while it is open the player
is online (:mod:`matches.services.online`); when their last one closes, their seeks go.

Anyone may watch a tournament, so a connection needs no login. The only message sent is
``{"type": "tournament.changed", "tournament_id": id}``; a client may send
``{"type": "ping"}`` and gets ``{"type": "pong"}``.
"""

from __future__ import annotations

from typing import Any

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncJsonWebsocketConsumer
from django.utils.translation import gettext as _

from matches.live.announcing import AnnouncingSocket, answer_ping
from matches.live.socket_limits import GuardedSocket
from matches.models import Player
from matches.services.broadcast import player_group
from matches.services.online import OnlineHeartbeat
from matches.services.seeks import seeks_withdraw
from tournaments.models import Tournament
from tournaments.notices import notices_for
from tournaments.selectors import tournament_group


class TournamentConsumer(AnnouncingSocket):
    kind = "tournament"
    model = Tournament
    group_of = tournament_group
    tournament_changed = AnnouncingSocket.announce


CLOSE_NOT_LOGGED_IN = 4401


def _player_of(scope: dict[str, Any]) -> Player | None:
    user = scope.get("user")  # a session's, or an API token's (matches.live.auth)
    if user is None or not getattr(user, "is_authenticated", False):
        return None
    return Player.objects.filter(user=user).first()


class NoticeConsumer(GuardedSocket, AsyncJsonWebsocketConsumer):  # type: ignore[misc]
    """One player's pairing notices, live."""

    group: str | None = None
    online: OnlineHeartbeat | None = None

    async def connect(self) -> None:
        player = await database_sync_to_async(_player_of)(self.scope)
        if player is None:
            await self.accept()  # as above: the client sees 4401, not a refused handshake
            await self.close(code=CLOSE_NOT_LOGGED_IN)
            return
        self.player = player
        self.group = player_group(player.pk)
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.accept()
        self.online = OnlineHeartbeat(player_id=player.pk, channel_name=self.channel_name)
        await self.online.open()
        notices = await database_sync_to_async(notices_for)(player)
        await self.send_json({"type": "notices", "notices": notices})

    async def disconnect(self, code: int) -> None:
        if self.group is not None:
            await self.channel_layer.group_discard(self.group, self.channel_name)
        if self.online is not None:
            last = await self.online.close()
            self.online = None
            if last:  # the player left: no one is there to play their seeks
                await database_sync_to_async(seeks_withdraw)(self.player.pk)

    async def receive_json(self, content: Any, **kwargs: Any) -> None:
        await answer_ping(self, content, _("This socket only announces pairings."))

    async def notices_changed(self, event: dict[str, Any]) -> None:
        await self.send_json({"type": "notices", "notices": event.get("notices", [])})

    async def player_message(self, event: dict[str, Any]) -> None:
        """A message for this player (``seek.paired``, ``challenge.*``), sent as it is."""
        await self.send_json(event["message"])
