"""Live play over WebSockets: one consumer per open board, one for the lobby.

The protocol is written down in ``docs/protocol.md``. A board connects to
``/ws/tables/<id>/`` and gets the full state, read from the database; after every change
the service that made it pushes the new public state, versioned, once to the table's states
group, which each web process hands to its boards of the table (:mod:`matches.live.fanout`), and
each board adds only its viewer's part (:func:`matches.selectors.for_viewer`): no board
reads the database to learn what just happened. Everything else for a table's boards (chat,
an unknown change) comes through the table's group, board by board. A client that sees a
version gap sends ``sync``. Commands are one ``database_sync_to_async`` call into
:mod:`matches.services` each; a refused command comes back as
``{"type": "error", "error": code, "detail": text}`` and changes nothing. Who the user is
comes from the middleware (:mod:`matches.live.auth`).
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any
from urllib.parse import parse_qs

from channels.consumer import get_handler_name
from channels.generic.websocket import AsyncJsonWebsocketConsumer
from django.utils.translation import gettext as _

from matches import access, selectors, services, validation
from matches.chat.socket import COMMANDS as CHAT_COMMANDS
from matches.chat.socket import ChatSocketMixin
from matches.errors import ServiceError
from matches.live.fanout import Fanout
from matches.live.socket_db import db
from matches.live.socket_limits import GuardedSocket
from matches.models import Match, MatchStatus, Player, Table
from matches.services import presence
from matches.services.broadcast import LOBBY_GROUP, table_group
from matches.services.clocks import match_check_clock
from matches.services.dice_seeds import match_client_seed
from matches.services.preferences import match_never_double, player_set_auto_roll
from matches.services.rematch import match_rematch
from matches.services.takeback import match_takeback

logger = logging.getLogger(__name__)

# Close codes (4000-4999 are the application's own): the browser shows why it was sent away.
# A private table without its invitation is, to that viewer, no table at all: 4404 as over
# REST's 404, after the same ``not_found`` error.
CLOSE_NO_TABLE = 4404

COMMANDS = ("action", "sit", "stand", "sync", "history", "ping", "check_clock", "client_seed",
            "rematch", "rematch_decline", "takeback", "never_double", "preferences",
            *CHAT_COMMANDS)
# The commands that change something: refused to an anonymous viewer before their content is
# read, as REST refuses an anonymous write before reading its body.
WRITES = frozenset(("action", "sit", "stand", "client_seed", "rematch", "rematch_decline",
                    "takeback", "never_double", "preferences"))

def _history(table_id: int, match_id: int | None) -> dict[str, Any]:
    """Every game with its events of ``match_id`` (the match the board shows, which must be
    at this table), or of the table's current or last match."""
    matches = Match.objects.filter(table_id=table_id)
    if match_id is not None:
        matches = matches.filter(pk=match_id)
    match = matches.order_by("-pk").first()
    if match is None:
        raise ServiceError("no_match", _("No match has been played at this table."))
    return selectors.match_history(match)


def _client_seed(table_id: int, player: Player | None, seed: str, known: int | None) -> None:
    """Send ``player``'s client seed (checked) for the match in progress at the table
    (``known``: the one the board shows)."""
    if player is None:
        raise ServiceError("not_authenticated", _("Log in to play."))
    target = known or (Match.objects.filter(table_id=table_id, status=MatchStatus.PLAYING)
                       .order_by("-pk").values_list("pk", flat=True).first())
    if target is None:
        raise ServiceError("no_match", _("No match is being played at this table."))
    match_client_seed(match_id=target, player=player, seed=seed)


def _rematch(table_id: int, match_id: int, player: Player | None, accept: bool) -> None:
    if not Match.objects.filter(pk=match_id, table_id=table_id).exists():
        raise ServiceError("no_match", _("No such match at this table."))
    match_rematch(match_id=match_id, player=player, accept=accept)


class LobbyReads:
    """The lobby's table list, read once per change per process for all its lobby sockets."""

    def __init__(self) -> None:
        self.last: tuple[float, list[dict[str, Any]]] | None = None
        self.running: tuple[float, asyncio.Task[list[dict[str, Any]]]] | None = None

    async def get(self, fresher_than: float) -> list[dict[str, Any]]:
        """A list read that started at ``fresher_than`` (a loop time) or later."""
        if self.last is not None and self.last[0] >= fresher_than:
            return self.last[1]
        if self.running is None or self.running[0] < fresher_than:
            started = asyncio.get_running_loop().time()
            self.running = (started, asyncio.ensure_future(self._read(started)))
        return await asyncio.shield(self.running[1])

    async def _read(self, started: float) -> list[dict[str, Any]]:
        try:
            rows: list[dict[str, Any]] = await db(selectors.lobby_tables)()
        finally:
            if self.running is not None and self.running[0] == started:
                self.running = None
        if self.last is None or self.last[0] <= started:
            self.last = (started, rows)
        return rows


lobby_reads = LobbyReads()


class _LiveConsumer(GuardedSocket, AsyncJsonWebsocketConsumer):  # type: ignore[misc]
    """Channels closes stale database connections before every handler, a hop to its one
    sync thread per message. These consumers never touch the database on the event loop:
    every query runs through :func:`db`, which closes stale connections in its own thread.

    A group message this consumer has no handler for never closes the socket: an unknown
    ``*.changed`` (something new that boards should show) sends the state again; anything
    else is logged and ignored.
    """

    async def dispatch(self, message: dict[str, Any]) -> None:
        handler = getattr(self, get_handler_name(message), None)
        if handler is not None:
            await handler(message)
        elif str(message.get("type", "")).endswith(".changed"):
            await self.changed(message)
        else:
            logger.warning("%s ignores a %r message", type(self).__name__, message.get("type"))

    async def changed(self, event: dict[str, Any]) -> None:
        raise NotImplementedError

    async def send_error(self, code: str, detail: str, ref: Any = None) -> None:
        message: dict[str, Any] = {"type": "error", "error": code, "detail": detail}
        if ref is not None:
            message["ref"] = ref
        await self.send_json(message)


class TableConsumer(ChatSocketMixin, _LiveConsumer):
    """One open board of one table: a player's or a spectator's."""

    table_id: int
    group: str
    player: Player | None = None
    invite: str | None = None  # a private table's invitation this board came with
    board_presence: presence.BoardHeartbeat | None = None  # a seated player's open board
    shown: tuple[int | None, int | None] = (None, None)  # (match id, version) last sent
    playing: int | None = None  # the match in progress this board last showed
    fanout: Fanout | None = None  # serves this board its table's states
    # Pushed states that came before the greeting was sent, sent right after it.
    held: list[dict[str, Any]] | None = None

    @property
    def viewer_id(self) -> int | None:
        return None if self.player is None else self.player.pk

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        try:
            await super().__call__(scope, receive, send)
        finally:
            # A consumer that failed ends without ``disconnect``: its process's fan-out
            # must not keep it (nor write to its closed socket) for the process's life.
            if self.fanout is not None:
                self.fanout.forget(self)
                self.fanout = None

    async def connect(self) -> None:
        self.table_id = int(self.scope["url_route"]["kwargs"]["table_id"])
        self.group = table_group(self.table_id)
        try:
            self.player, seated = await db(self._open)()
        except ServiceError as error:  # no such table, or a private one without invitation
            await self.accept()
            await self.send_error(error.code, error.detail)
            await self.close(code=CLOSE_NO_TABLE)
            return
        await self.channel_layer.group_add(self.group, self.channel_name)
        # States pushed from now on are held until the greeting (state, chat history) is out.
        self.held = []
        self.fanout = Fanout.of(asyncio.get_running_loop())
        await self.fanout.join(self)
        await self.accept()
        if seated:
            await self._mark_present()
        await self.send_state()
        await self.chat_open()
        held, self.held = self.held, None
        for message in held:
            await self.match_state(message)

    def _open(self) -> tuple[Player | None, bool]:
        query = parse_qs(self.scope.get("query_string", b"").decode("latin-1"))
        self.invite = (query.get("invite") or [None])[0] or access.session_invite(
            self.scope.get("session"), self.table_id)
        return access.board_access(self.table_id, self.scope.get("user"), self.invite)

    async def disconnect(self, code: int) -> None:
        if self.fanout is not None:
            await self.fanout.leave(self)
            self.fanout = None
        if hasattr(self, "group"):
            await self.channel_layer.group_discard(self.group, self.channel_name)
        if self.board_presence is not None:
            await self.board_presence.close()
            self.board_presence = None

    async def _mark_present(self) -> None:
        if self.board_presence is not None or self.player is None:
            return
        self.board_presence = presence.BoardHeartbeat(
            table_id=self.table_id, player_id=self.player.pk, channel_name=self.channel_name)
        await self.board_presence.open()

    # -- sending ------------------------------------------------------------------------------

    async def send_state(self) -> None:
        """Send this viewer the full state, read from the database (connect, ``sync``)."""
        try:
            public, plays = await db(selectors.table_public_state)(self.table_id)
        except Table.DoesNotExist:
            await self.close(code=CLOSE_NO_TABLE)
            return
        head = selectors.push_head(public)
        if self._is_old(head):
            return  # a newer version was pushed while this one was read: the board has it
        self._shown(head)
        await self.send_json(selectors.for_viewer(public, self.viewer_id, plays))
        await self.chat_follow_seats((head["match_id"], *head["seat_ids"]))

    def _shown(self, head: dict[str, Any]) -> None:
        self.shown = (head["match_id"], head["version"])
        self.playing = head["match_id"] if head["status"] == "playing" else None

    def _is_old(self, head: dict[str, Any]) -> bool:
        """True when this board already shows a newer version of that match (pushes from two
        web processes may cross on the way)."""
        match_id, version = head["match_id"], head["version"]
        shown_match, shown_version = self.shown
        return (match_id is not None and match_id == shown_match and shown_version is not None
                and version is not None and version < shown_version)

    # -- pushed states (from the services after commit, through :mod:`matches.live.fanout`) ------

    async def push(self, message: dict[str, Any]) -> None:
        """A state of this table, handed over by the process's fan-out."""
        if self.held is not None:
            self.held.append(message)
        else:
            await self.match_state(message)

    async def match_state(self, event: dict[str, Any]) -> None:
        """A match of this table changed: its new public state, encoded once for all
        (:func:`matches.selectors.pushed_state`); this board adds its viewer's part."""
        if self._is_old(event["head"]):
            return
        self._shown(event["head"])
        await self.send(text_data=selectors.viewer_text(event, self.viewer_id))
        head = event["head"]
        await self.chat_follow_seats((head["match_id"], *head.get("seat_ids", ())))

    async def table_state(self, event: dict[str, Any]) -> None:
        """Someone sat down or stood up: the table's public state, read once for all."""
        await self.match_state(event)

    async def changed(self, event: dict[str, Any]) -> None:
        await self.send_state()

    # -- commands from the client ---------------------------------------------------------------

    async def receive_json(self, content: Any, **kwargs: Any) -> None:
        ref = content.get("ref") if isinstance(content, dict) else None
        try:
            content = validation.message_object(content)
            kind = content.get("type")
            if kind in WRITES and self.player is None:  # before the content is read
                raise ServiceError("not_authenticated", _("Log in to play."))
            if kind == "action":
                await self._action(content)
            elif kind == "sit":
                wanted = validation.sit_input(content)
                # Present first: the new seat reaches the other boards as soon as it commits.
                await self._mark_present()
                await db(services.table_sit)(table_id=self.table_id, player=self.player,
                                             seat=wanted.seat,
                                             invite=wanted.invite or self.invite)
                await self.chat_refresh()
            elif kind == "stand":
                await db(services.table_stand)(table_id=self.table_id, player=self.player)
                await self.chat_refresh()
            elif kind in ("sync", "history") and not self.may_read():
                raise ServiceError("rate_limited", _("Too many state reads: one a second."))
            elif kind == "sync":
                await self.send_state()
            elif kind == "history":
                await self.send_json(await db(_history)(self.table_id, self.shown[0]))
            elif kind == "ping":  # the board's heartbeat: proof the link still carries messages
                await self.send_json({"type": "pong"} if ref is None
                                     else {"type": "pong", "ref": ref})
            elif kind == "client_seed":  # this player's contribution to the dice
                await db(_client_seed)(self.table_id, self.player,
                                       validation.client_seed(content.get("seed")), self.playing)
            elif kind == "check_clock":
                # A board whose clock display reached zero asks; the server still decides,
                # and a flag reaches every board through the usual broadcast.
                if self.playing is not None:
                    await db(match_check_clock)(match_id=self.playing)
            elif kind in ("takeback", "never_double"):  # casual play's takeback; one match's
                await db(self._match_command)(kind, content)
            elif kind == "preferences":
                kept = await db(player_set_auto_roll)(player=self.player,
                                                      auto_roll=content.get("auto_roll"))
                answer = {"type": "preferences", "auto_roll": kept.auto_roll}
                await self.send_json(answer if ref is None else {**answer, "ref": ref})
            elif kind in CHAT_COMMANDS:
                await self.chat_command(kind, content)
            elif kind in ("rematch", "rematch_decline"):
                match_id = content.get("match_id", self.shown[0])
                if match_id is None:
                    raise ServiceError("no_match", _("No match has been played at this table."))
                match_id = validation.object_id(match_id, "match_id")
                await db(_rematch)(self.table_id, match_id, self.player, kind == "rematch")
            else:
                raise ServiceError("unknown_type", _("type is one of: %(names)s.")
                                   % {"names": ", ".join(COMMANDS)})
        except ServiceError as error:
            await self.send_error(error.code, error.detail, ref)

    def _match_command(self, kind: str, content: dict[str, Any]) -> None:
        """``takeback`` (``answer``) and ``never_double`` (``on``) for the match in progress
        at this table."""
        target = self.playing or selectors.playing_match_id(self.table_id)
        if target is None:
            raise ServiceError("no_match", _("No match is being played at this table."))
        if kind == "takeback":
            match_takeback(match_id=target, table_id=self.table_id, player=self.player,
                           answer=content.get("answer"))
        else:
            match_never_double(match_id=target, table_id=self.table_id, player=self.player,
                               on=content.get("on"))

    async def _action(self, content: dict[str, Any]) -> None:
        wanted = validation.action_input(content, with_match_id=True)
        # The match this board shows in progress is the one acted on: no lookup.
        target = wanted.match_id if wanted.match_id is not None else self.playing
        if target is None:
            target = await db(selectors.playing_match_id)(self.table_id)
        if target is None:
            raise ServiceError("no_match", _("No match is being played at this table."))
        if wanted.action == "end_session":  # money sessions: as over REST, the same service
            await db(services.match_end_session)(match_id=target, table_id=self.table_id,
                                                 player=self.player,
                                                 expected_version=wanted.expected_version)
            return
        await db(services.match_act)(match_id=target, table_id=self.table_id,
                                     player=self.player, action=wanted.action,
                                     expected_version=wanted.expected_version,
                                     play=wanted.play, level=wanted.level)


class LobbyConsumer(_LiveConsumer):
    """The lobby's table list, sent on connect and again whenever a table changes."""

    async def connect(self) -> None:
        await self.channel_layer.group_add(LOBBY_GROUP, self.channel_name)
        await self.accept()
        await self.send_lobby()

    async def disconnect(self, code: int) -> None:
        await self.channel_layer.group_discard(LOBBY_GROUP, self.channel_name)

    async def send_lobby(self) -> None:
        tables = await lobby_reads.get(asyncio.get_running_loop().time())
        await self.send_json({"type": "lobby", "protocol": selectors.PROTOCOL_VERSION,
                              "tables": tables})

    async def lobby_changed(self, event: dict[str, Any]) -> None:
        await self.send_lobby()

    async def changed(self, event: dict[str, Any]) -> None:
        await self.send_lobby()

    async def receive_json(self, content: Any, **kwargs: Any) -> None:
        ref = content.get("ref") if isinstance(content, dict) else None
        if not isinstance(content, dict):
            await self.send_error("bad_request", _("Send one JSON object per message."), ref)
        elif content.get("type") == "sync":
            await self.send_lobby()
        elif content.get("type") == "ping":  # the heartbeat every client sends (as a board's)
            await self.send_json({"type": "pong"} if ref is None else {"type": "pong", "ref": ref})
        else:
            await self.send_error("unknown_type", _("The lobby understands sync and ping."), ref)
