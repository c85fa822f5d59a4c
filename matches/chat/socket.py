"""The chat half of a table's board socket (mixed into ``matches.live.consumers.TableConsumer``).

Client → server: ``chat`` (``text``, or a quick ``phrase``'s code), ``chat_block`` /
``chat_unblock`` (``player_id``), ``chat_report`` (``message_id``, optional ``reason``).
Server → client: ``chat_history`` when the board opens (and after a block, and when the
seats change: :meth:`ChatSocketMixin.chat_follow_seats`), ``chat`` for each new message this
viewer may read, ``chat_removed`` when a referee removes one, ``chat_reported`` to
acknowledge a report. The rules of who reads what are in :mod:`matches.chat.rooms`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from matches.chat import rooms as chat
from matches.live.socket_db import db
from matches.models import Player

COMMANDS = ("chat", "chat_block", "chat_unblock", "chat_report")


class ChatSocketMixin:
    table_id: int
    player: Player | None
    invite: str | None  # the private table's invitation this board came with
    chat_reader: chat.Reader | None = None

    if TYPE_CHECKING:  # provided by the consumer this is mixed into
        async def send_json(self, content: Any, close: bool = False) -> None: ...

    async def chat_open(self) -> None:
        """Learn what this viewer may read and send them the room(s) so far."""
        self.chat_reader, messages = await db(chat.chat_open)(table_id=self.table_id,
                                                              player=self.player)
        await self.send_json({"type": "chat_history", "messages": messages})

    async def chat_refresh(self) -> None:
        """After this viewer sat down or stood up: their rooms changed."""
        if self.chat_reader is not None:
            await self.chat_open()

    async def chat_follow_seats(self, seats: tuple[Any, ...]) -> None:
        """A state of the table arrived with ``seats`` (who sits, which match): when they
        changed since this board last looked, who reads the players' room may have changed
        (new players, a rematch), so this viewer's rooms are read again."""
        known = getattr(self, "_chat_seats", None)
        self._chat_seats = seats
        if known is not None and known != seats:
            await self.chat_refresh()

    async def chat_command(self, kind: str, content: dict[str, Any]) -> None:
        if kind == "chat":
            await db(chat.chat_post)(
                table_id=self.table_id, player=self.player, text=content.get("text"),
                phrase=content.get("phrase"), invite=self.invite)
        elif kind in ("chat_block", "chat_unblock"):
            await db(chat.chat_block)(
                player=self.player, blocked_id=content.get("player_id"),
                block=kind == "chat_block")
            await self.chat_open()
        elif kind == "chat_report":
            report = await db(chat.chat_report)(
                player=self.player, message_id=content.get("message_id"),
                reason=content.get("reason", ""), invite=self.invite)
            await self.send_json({"type": "chat_reported", "message_id": report.message_id})

    # -- group messages ---------------------------------------------------------------------

    async def chat_message(self, event: dict[str, Any]) -> None:
        reader = self.chat_reader
        if reader is not None and chat.visible(
                reader, event["message"], match_in_progress=bool(event.get("match_in_progress"))):
            await self.send_json({"type": "chat", "message": event["message"]})

    async def chat_removed(self, event: dict[str, Any]) -> None:
        await self.send_json({"type": "chat_removed", "message_id": event["message_id"]})
