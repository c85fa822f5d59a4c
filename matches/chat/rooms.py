"""Table chat: two rooms per table, blocks, reports and referees' removals.

Rooms (lichess's habit): the **players' room** is read by the two players of the table alone;
the **spectators' room** by everybody else at the board — and by the players too once no match
is being played there, never during play, so nobody at the board can coach a player. The
players of the table's last match keep their room once it is over and into a rematch, until
somebody else takes a seat there (:func:`in_players_room`). Whoever may watch the table writes
(a private table's invited spectators too, by the invitation their board came with).

Every message is plain text (the boards render it with ``textContent``; the server never
parses or trusts markup), at most ``MAX_LENGTH`` characters, and a member may send at most
``RATE_MESSAGES`` in any ``RATE_SECONDS``. Anonymous spectators read but cannot write.
A block hides the blocked member's messages from the blocker everywhere; a mute is the board's
own (it hides a member for this browser only). Reports go to the referees, who may remove a
message with a reason; removals are logged (``ChatModeration``) and leave the boards at once.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from matches import access
from matches.chat.phrases import english, phrase_code
from matches.errors import ServiceError
from matches.models import (
    ChatBlock,
    ChatMessage,
    ChatModeration,
    ChatReport,
    ChatRoom,
    Match,
    MatchStatus,
    Player,
    Table,
)
from matches.services import broadcast

MAX_LENGTH = 300
RATE_MESSAGES = 5
RATE_SECONDS = 10
HISTORY = 50  # messages a board gets when it opens


@dataclass(frozen=True, slots=True)
class Reader:
    """Who reads a board's chat: enough to decide which messages they see."""

    player_id: int | None
    plays_here: bool
    blocked: frozenset[int]


def playing_match(table: Table) -> Match | None:
    return table.matches.filter(status=MatchStatus.PLAYING).order_by("-pk").first()


def in_players_room(table: Table, player: Player) -> bool:
    """Whether ``player`` reads and writes the table's players' room: they sit or play
    there, or they played its last match and nobody else has sat down since (so the two
    keep their room after the match, and into the rematch)."""
    if access.plays_at(table, player):
        return True
    last = table.matches.order_by("-pk").values_list("player0_id", "player1_id").first()
    return (last is not None and player.pk in last
            and all(seat is None or seat in last for seat in (table.seat0_id, table.seat1_id)))


def reader_for(table: Table, player: Player | None) -> Reader:
    if player is None:
        return Reader(None, False, frozenset())
    blocked = frozenset(ChatBlock.objects.filter(blocker=player)
                        .values_list("blocked_id", flat=True))
    return Reader(player.pk, in_players_room(table, player), blocked)


def may_read(reader: Reader, room: str, *, match_in_progress: bool) -> bool:
    if room == ChatRoom.PLAYERS:
        return reader.plays_here
    return not (reader.plays_here and match_in_progress)


def message_data(message: ChatMessage) -> dict[str, Any]:
    return {"id": message.pk, "room": message.room, "text": message.text,
            "phrase": message.phrase,
            "author": {"id": message.author_id, "name": message.author.display_name},
            "at": message.created_at.timestamp()}


def visible(reader: Reader, message: dict[str, Any], *, match_in_progress: bool) -> bool:
    """Whether a broadcast ``message`` (``message_data``) is shown to ``reader``."""
    return (message["author"]["id"] not in reader.blocked
            and may_read(reader, message["room"], match_in_progress=match_in_progress))


def chat_history(*, table_id: int, player: Player | None) -> list[dict[str, Any]]:
    """The last messages the viewer may read, oldest first."""
    return chat_open(table_id=table_id, player=player)[1]


def chat_open(*, table_id: int, player: Player | None) -> tuple[Reader, list[dict[str, Any]]]:
    """What a board opening the chat needs: who reads it, and :func:`chat_history`."""
    table = Table.objects.get(pk=table_id)
    reader = reader_for(table, player)
    return reader, _history(table, reader)


def _history(table: Table, reader: Reader) -> list[dict[str, Any]]:
    in_progress = playing_match(table) is not None
    rooms = [room for room in ChatRoom.values
             if may_read(reader, room, match_in_progress=in_progress)]
    rows = (ChatMessage.objects.filter(table=table, room__in=rooms, deleted_at__isnull=True)
            .exclude(author_id__in=reader.blocked).select_related("author")[:HISTORY])
    return [message_data(message) for message in reversed(rows)]


@transaction.atomic
def chat_post(*, table_id: int, player: Player | None, text: Any = None,
              invite: str | None = None, phrase: Any = None) -> ChatMessage:
    """Post ``text`` to the room the author belongs in; every board that may read it gets it.
    ``phrase``: instead of text, a quick phrase's code (:mod:`matches.chat.phrases`), which
    each reader sees in their own language. ``invite``: the private table's invitation the
    author's board came with, if any."""
    if player is None:
        raise ServiceError("not_authenticated", _("Log in to chat."))
    code = ""
    if phrase is not None:
        code = phrase_code(phrase)
        text = english(code)
    if not isinstance(text, str) or not text.strip():
        raise ServiceError("bad_request", _("text is the message, a non-empty string."))
    text = " ".join(text.split())  # one line: no control characters, no runs of spaces
    if len(text) > MAX_LENGTH:
        raise ServiceError("message_too_long",
                           ngettext("A chat message has at most %(max_length)s character.",
                                    "A chat message has at most %(max_length)s characters.",
                                    MAX_LENGTH) % {"max_length": MAX_LENGTH})
    table = Table.objects.get(pk=table_id)
    if not access.may_watch(table, player, invite):
        raise ServiceError("forbidden", _("This table is private."))
    since = timezone.now() - timedelta(seconds=RATE_SECONDS)
    # Lock the author's row so two sockets of one member cannot both squeeze under the limit.
    Player.objects.select_for_update().filter(pk=player.pk).first()
    if ChatMessage.objects.filter(author=player, created_at__gte=since).count() >= RATE_MESSAGES:
        raise ServiceError("rate_limited",
                           ngettext("At most %(rate_messages)s chat message in %(rate_seconds)s "
                                    "seconds.",
                                    "At most %(rate_messages)s chat messages in %(rate_seconds)s "
                                    "seconds.", RATE_MESSAGES)
                           % {"rate_messages": RATE_MESSAGES, "rate_seconds": RATE_SECONDS})
    match = playing_match(table)
    room = ChatRoom.PLAYERS if in_players_room(table, player) else ChatRoom.SPECTATORS
    message = ChatMessage.objects.create(table=table, match=match, author=player, room=room,
                                         text=text, phrase=code)
    broadcast.broadcast_on_commit(broadcast.table_group(table.pk), {
        "type": "chat.message", "message": message_data(message),
        "match_in_progress": match is not None,
    })
    return message


def chat_block(*, player: Player | None, blocked_id: Any, block: bool = True) -> None:
    if player is None:
        raise ServiceError("not_authenticated", _("Log in to block a member."))
    if isinstance(blocked_id, bool) or not isinstance(blocked_id, int):
        raise ServiceError("bad_request", _("player_id is the member's id."))
    if blocked_id == player.pk:
        raise ServiceError("bad_request", _("You cannot block yourself."))
    if not Player.objects.filter(pk=blocked_id).exists():
        raise ServiceError("not_found", _("No such player."))
    if block:
        ChatBlock.objects.get_or_create(blocker=player, blocked_id=blocked_id)
    else:
        ChatBlock.objects.filter(blocker=player, blocked_id=blocked_id).delete()


def chat_report(*, player: Player | None, message_id: Any, reason: Any = "",
                invite: str | None = None) -> ChatReport:
    if player is None:
        raise ServiceError("not_authenticated", _("Log in to report a message."))
    if isinstance(message_id, bool) or not isinstance(message_id, int):
        raise ServiceError("bad_request", _("message_id is the message's id."))
    if not isinstance(reason, str):
        raise ServiceError("bad_request", _("reason is text."))
    message = ChatMessage.objects.filter(pk=message_id, deleted_at__isnull=True).first()
    table = message.table if message is not None else None
    if message is None or table is None or not access.may_watch(table, player, invite):
        raise ServiceError("not_found", _("No such message."))
    report, _created = ChatReport.objects.get_or_create(
        message=message, reporter=player, defaults={"reason": reason.strip()[:MAX_LENGTH]})
    return report


@transaction.atomic
def chat_remove(*, message_id: int, referee: Any, reason: str) -> ChatMessage:
    """A referee removes a message: hidden everywhere at once, and logged with the reason."""
    if not getattr(referee, "has_perm", None) or not referee.has_perm("matches.moderate_chat"):
        raise ServiceError("forbidden", _("Only referees may remove chat messages."))
    reason = (reason or "").strip()
    if not reason:
        raise ServiceError("reason_required", _("Say why the message is removed."))
    message = ChatMessage.objects.select_for_update().get(pk=message_id)
    if message.deleted_at is None:
        message.deleted_at = timezone.now()
        message.save(update_fields=["deleted_at"])
        ChatModeration.objects.create(message=message, referee=referee, action="remove",
                                      reason=reason[:MAX_LENGTH])
        ChatReport.objects.filter(message=message).update(reviewed=True)
        broadcast.broadcast_on_commit(broadcast.table_group(message.table_id), {
            "type": "chat.removed", "message_id": message.pk})
    return message
