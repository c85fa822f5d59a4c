"""Live play over WebSockets: one consumer per open board, one for the lobby.

The protocol is written down for bot authors in ``docs/protocol.md``. In short: a board
connects to ``/ws/tables/<id>/``, gets the full state at once and again after every change
(each connection with its own viewer, so only the player who must act gets the legal plays),
and sends ``{"type": "action", ...}``, ``sit``, ``stand`` or ``sync``. Every command is one
``database_sync_to_async`` call into :mod:`matches.services`; a refused command comes back
as ``{"type": "error", "error": code, "detail": text}`` and changes nothing.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import OrderedDict
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qs

from channels.consumer import get_handler_name
from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncJsonWebsocketConsumer

from matches import access, presence, services
from matches.broadcast import LOBBY_GROUP, table_group
from matches.chat_socket import COMMANDS as CHAT_COMMANDS
from matches.chat_socket import ChatSocketMixin
from matches.clocks import match_check_clock
from matches.errors import ServiceError
from matches.models import Match, MatchStatus, Player, Table
from matches.rematch import match_rematch
from matches.rules import rules_shown
from matches.selectors import match_state, open_tables
from matches.socket_limits import GuardedSocket

logger = logging.getLogger(__name__)

# Close codes (4000-4999 are the application's own): the browser shows why it was sent away.
CLOSE_NO_TABLE = 4404
CLOSE_FORBIDDEN = 4403

LOBBY_SIZE = 100


# -- what a table and the lobby look like to a client (plain dicts, JSON-ready) -------------


def _seat_dict(player: Player | None) -> dict[str, Any] | None:
    if player is None:
        return None
    return {"id": player.pk, "name": player.display_name, "rating": round(player.rating, 2)}


def table_dict(table: Table, match: Match | None) -> dict[str, Any]:
    """A table: its name, rules, who sits there and the match being shown (if any)."""
    return {
        "id": table.pk,
        "name": table.name,
        "is_public": table.is_public,
        "rules": rules_shown(table),
        "seats": [_seat_dict(table.seat0), _seat_dict(table.seat1)],
        "reserved": bool(table.reserved0_id or table.reserved1_id),
        "reserved_for": [p for p in (table.reserved0_id, table.reserved1_id) if p is not None],
        "match_id": match.pk if match is not None else None,
        "playing": match is not None and match.status == MatchStatus.PLAYING,
    }


def read_table(table_id: int) -> tuple[Table, Match | None]:
    """The table with its seats and its current (or last) match with its players: everything
    :func:`state_for` needs, in one query (two before a table's first match).

    Raises ``Table.DoesNotExist``.
    """
    match = (Match.objects.filter(table_id=table_id)
             .select_related("player0", "player1", "table", "table__seat0", "table__seat1")
             .order_by("-pk").first())
    if match is not None:
        return match.table, match
    return Table.objects.select_related("seat0", "seat1").get(pk=table_id), None


def table_state(table_id: int, viewer: Player | None) -> dict[str, Any]:
    """Everything a board at ``table_id`` shows to ``viewer`` (``None``: a spectator).

    With a match (in progress or the last one): :func:`matches.selectors.match_state` plus
    ``table``, ``viewer_id`` and ``server_time``. Before the first match:
    ``{"type": "table", ...}``. Raises ``Table.DoesNotExist``.
    """
    return state_for(*read_table(table_id), viewer)


def state_for(table: Table, match: Match | None, viewer: Player | None) -> dict[str, Any]:
    """The state of an already read table for ``viewer``; no query (players are loaded)."""
    data: dict[str, Any]
    if match is None:
        data = {"type": "table", "match_id": None, "version": None}
    else:
        data = match_state(match, viewer)
    data["table"] = table_dict(table, match)
    data["viewer_id"] = viewer.pk if viewer is not None else None
    data["server_time"] = time.time()
    return data


def lobby_tables() -> list[dict[str, Any]]:
    """The newest public tables with their rules, seats and match in progress (if any)."""
    tables = list(open_tables().order_by("-created_at")[:LOBBY_SIZE])
    playing = {
        match.table_id: match
        for match in Match.objects.filter(table__in=[t.pk for t in tables],
                                          status=MatchStatus.PLAYING)
        .only("pk", "table_id", "status", "score0", "score1")
    }
    rows = []
    for table in tables:
        match = playing.get(table.pk)
        row = table_dict(table, match)
        row["score"] = [match.score0, match.score1] if match is not None else None
        rows.append(row)
    return rows


# -- one read per change per process, however many boards watch the table ---------------------


@dataclass
class _Read:
    started: float
    table: Table
    match: Match | None

    def shows(self, match_id: Any, version: Any) -> bool:
        """True when this read has ``match_id`` at ``version`` or later."""
        return (self.match is not None and self.match.pk == match_id
                and isinstance(version, int) and self.match.version >= version)


class SharedReads:
    """The last read of each table in this process, shared by every board open on it.

    When a change is broadcast, every board of the table in this process needs the same
    rows: the first asks the database, the others wait for its answer (or use the cached
    one when it is already that recent). A read is a task of its own, so a board that
    closes while waiting cancels nothing for the others.
    """

    def __init__(self, size: int = 4096) -> None:
        self.size = size
        self.cache: OrderedDict[int, _Read] = OrderedDict()
        self.inflight: dict[int, tuple[float, asyncio.Task[_Read]]] = {}

    async def get(self, table_id: int, *, fresher_than: float | None = None,
                  match_id: Any = None, version: Any = None) -> _Read:
        """A read of the table that started after ``fresher_than`` (a monotonic time), or
        one that shows ``match_id`` at ``version`` or later. Raises ``Table.DoesNotExist``."""
        cached = self.cache.get(table_id)
        if cached is not None and (cached.shows(match_id, version) or (
                fresher_than is not None and cached.started >= fresher_than)):
            return cached
        running = self.inflight.get(table_id)
        if running is not None and (fresher_than is None or running[0] >= fresher_than):
            read = await asyncio.shield(running[1])
            if fresher_than is not None or read.shows(match_id, version):
                return read
        started = asyncio.get_running_loop().time()
        task = asyncio.ensure_future(self._read(table_id, started))
        self.inflight[table_id] = (started, task)
        return await asyncio.shield(task)

    async def _read(self, table_id: int, started: float) -> _Read:
        try:
            table, match = await db(read_table)(table_id)
        finally:
            running = self.inflight.get(table_id)
            if running is not None and running[0] == started:
                del self.inflight[table_id]
        read = _Read(started, table, match)
        cached = self.cache.get(table_id)
        if cached is None or cached.started <= started:
            self.cache[table_id] = read
            self.cache.move_to_end(table_id)
            while len(self.cache) > self.size:
                self.cache.popitem(last=False)
        return read

    def acted(self, table_id: int, match: Match) -> None:
        """Remember ``match`` as a service just committed it, so the broadcast that follows
        needs no read in this process. Only while the match goes on: its players and the
        table's seats are then those of the last read (a match's end frees the seats)."""
        cached = self.cache.get(table_id)
        if (cached is None or cached.match is None or cached.match.pk != match.pk
                or match.status != MatchStatus.PLAYING or cached.match.version >= match.version):
            return
        match.player0, match.player1 = cached.match.player0, cached.match.player1
        match.table = cached.table
        self.cache[table_id] = _Read(asyncio.get_running_loop().time(), cached.table, match)
        self.cache.move_to_end(table_id)


shared_reads = SharedReads()


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
            rows: list[dict[str, Any]] = await db(lobby_tables)()
        finally:
            if self.running is not None and self.running[0] == started:
                self.running = None
        if self.last is None or self.last[0] <= started:
            self.last = (started, rows)
        return rows


lobby_reads = LobbyReads()


DB_THREADS = 4
_db_pool = ThreadPoolExecutor(max_workers=DB_THREADS, thread_name_prefix="tavla-db")


def db(function: Any) -> Any:
    """``database_sync_to_async`` on this module's thread pool: commands and reads of
    different boards run side by side, each thread with its own database connection,
    instead of queueing behind one another on asgiref's single thread-sensitive thread."""
    return database_sync_to_async(function, thread_sensitive=False, executor=_db_pool)


# -- the sync side of each command: one call into the services each --------------------------


def scope_user(scope: dict[str, Any]) -> Any:
    """The session's user, else the owner of an API token sent as ``Authorization: Token
    <key>`` (bots), else the anonymous user the auth middleware put in the scope."""
    user = scope.get("user")
    if user is not None and getattr(user, "is_authenticated", False):
        return user
    for name, value in scope.get("headers", []):
        if name.lower() == b"authorization":
            kind, _, key = value.decode("latin-1").partition(" ")
            if kind.lower() == "token" and key.strip():
                from rest_framework.authtoken.models import Token

                token = Token.objects.select_related("user").filter(key=key.strip()).first()
                if token is not None and token.user.is_active:
                    return token.user
    return user


def _rematch(table_id: int, match_id: int, player: Player | None, accept: bool) -> None:
    if not Match.objects.filter(pk=match_id, table_id=table_id).exists():
        raise ServiceError("no_match", "No such match at this table.")
    match_rematch(match_id=match_id, player=player, accept=accept)


def _act(table_id: int, player: Player | None, action: str, expected_version: int,
         play: str | None, match_id: int | None, *, known: int | None = None) -> Match:
    """Act on ``match_id`` (which must be at this table), or on ``known`` (the match in
    progress the board shows: no lookup), or on the match in progress at the table."""
    if player is None:
        raise ServiceError("not_authenticated", "Log in to play.")
    target: int | None = known
    if target is None:
        matches = Match.objects.filter(table_id=table_id)
        if match_id is not None:
            matches = matches.filter(pk=match_id)
        else:
            matches = matches.filter(status=MatchStatus.PLAYING)
        target = matches.order_by("-pk").values_list("pk", flat=True).first()
    if target is None:
        raise ServiceError("no_match", "No match is being played at this table.")
    if action == "end_session":  # money sessions: as over REST, the same service
        return services.match_end_session(match_id=target, player=player,
                                          expected_version=expected_version)
    return services.match_act(match_id=target, player=player, action=action,
                              expected_version=expected_version, play=play).match


def _sit(table_id: int, player: Player | None, seat: int | None) -> None:
    if player is None:
        raise ServiceError("not_authenticated", "Log in to take a seat.")
    services.table_sit(table_id=table_id, player=player, seat=seat)


def _stand(table_id: int, player: Player | None) -> None:
    if player is None:
        raise ServiceError("not_authenticated", "Log in first.")
    services.table_stand(table_id=table_id, player=player)


# -- consumers --------------------------------------------------------------------------------


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


class TableConsumer(ChatSocketMixin, _LiveConsumer):
    """One open board of one table: a player's or a spectator's."""

    table_id: int
    group: str
    player: Player | None = None
    board_presence: presence.BoardHeartbeat | None = None  # a seated player's open board
    shown: tuple[int | None, int | None] = (None, None)  # (match id, version) last sent
    playing: int | None = None  # the match in progress this board last showed

    async def connect(self) -> None:
        self.table_id = int(self.scope["url_route"]["kwargs"]["table_id"])
        self.group = table_group(self.table_id)
        try:
            self.player, seated = await db(self._open)()
        except Table.DoesNotExist:
            await self.accept()
            await self.close(code=CLOSE_NO_TABLE)
            return
        except ServiceError as error:
            await self.accept()
            await self.send_error(error.code, error.detail)
            await self.close(code=CLOSE_FORBIDDEN)
            return
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.accept()
        if seated:
            await self._mark_present()
        await self.send_state()
        await self.chat_open()

    def _open(self) -> tuple[Player | None, bool]:
        query = parse_qs(self.scope.get("query_string", b"").decode("latin-1"))
        invite = (query.get("invite") or [None])[0] or access.session_invite(
            self.scope.get("session"), self.table_id)
        return access.board_access(self.table_id, scope_user(self.scope), invite)

    async def disconnect(self, code: int) -> None:
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

    async def send_state(self, match_id: Any = None, version: Any = None) -> None:
        """Send this viewer its full state: read afresh, or (for a change broadcast with
        ``match_id`` and ``version``) a read of this process that is at least that recent."""
        fresher_than = None if version is not None else asyncio.get_running_loop().time()
        try:
            read = await shared_reads.get(self.table_id, fresher_than=fresher_than,
                                          match_id=match_id, version=version)
        except Table.DoesNotExist:
            await self.close(code=CLOSE_NO_TABLE)
            return
        state = state_for(read.table, read.match, self.player)
        if (state.get("match_id"), state.get("version")) == self.shown and version is not None:
            return  # a newer state was already sent while this one was read
        self.shown = (state.get("match_id"), state.get("version"))
        self.playing = state["match_id"] if state.get("status") == "playing" else None
        await self.send_json(state)

    async def send_error(self, code: str, detail: str, ref: Any = None) -> None:
        message: dict[str, Any] = {"type": "error", "error": code, "detail": detail}
        if ref is not None:
            message["ref"] = ref
        await self.send_json(message)

    # -- group messages (sent by the services after commit) -----------------------------------

    async def match_changed(self, event: dict[str, Any]) -> None:
        match_id, version = self.shown
        if event.get("match_id") == match_id and version is not None \
                and isinstance(event.get("version"), int) and event["version"] <= version:
            return  # this board already shows that version or a newer one
        await self.send_state(event.get("match_id"), event.get("version"))

    async def table_changed(self, event: dict[str, Any]) -> None:
        await self.send_state()

    async def changed(self, event: dict[str, Any]) -> None:
        await self.send_state()

    # -- commands from the client ---------------------------------------------------------------

    async def receive_json(self, content: Any, **kwargs: Any) -> None:
        ref = content.get("ref") if isinstance(content, dict) else None
        try:
            if not isinstance(content, dict):
                raise ServiceError("bad_request", "Send one JSON object per message.")
            kind = content.get("type")
            if kind == "action":
                await self._action(content)
            elif kind == "sit":
                seat = content.get("seat")
                if seat is not None and (isinstance(seat, bool) or not isinstance(seat, int)):
                    raise ServiceError("bad_request", "seat is 0, 1 or absent.")
                await db(_sit)(self.table_id, self.player, seat)
                await self._mark_present()
                await self.chat_refresh()
            elif kind == "stand":
                await db(_stand)(self.table_id, self.player)
                await self.chat_refresh()
            elif kind == "sync":
                await self.send_state()
            elif kind == "ping":  # the board's heartbeat: proof the link still carries messages
                await self.send_json({"type": "pong"} if ref is None
                                     else {"type": "pong", "ref": ref})
            elif kind == "check_clock":
                # A board whose clock display reached zero asks; the server still decides,
                # and a flag reaches every board through the usual broadcast.
                if self.playing is not None:
                    await db(match_check_clock)(match_id=self.playing)
            elif kind in CHAT_COMMANDS:
                await self.chat_command(kind, content)
            elif kind in ("rematch", "rematch_decline"):
                match_id = content.get("match_id", self.shown[0])
                if isinstance(match_id, bool) or not isinstance(match_id, int):
                    raise ServiceError("bad_request", "match_id is the finished match's id.")
                await db(_rematch)(self.table_id, match_id, self.player, kind == "rematch")
            else:
                raise ServiceError("unknown_type", "type is one of: action, sit, stand, sync, "
                                   "ping, check_clock, rematch, rematch_decline, "
                                   + ", ".join(CHAT_COMMANDS) + ".")
        except ServiceError as error:
            await self.send_error(error.code, error.detail, ref)

    async def _action(self, content: dict[str, Any]) -> None:
        action = content.get("action")
        version = content.get("expected_version")
        play = content.get("play")
        match_id = content.get("match_id")
        if not isinstance(action, str):
            raise ServiceError("bad_request", "action is one of: "
                              + ", ".join(services.PLAYER_ACTIONS) + ".")
        if isinstance(version, bool) or not isinstance(version, int):
            raise ServiceError("bad_request", "expected_version (the state's version) is required.")
        if play is not None and not isinstance(play, str):
            raise ServiceError("bad_request", "play is the play's notation, such as '24/18 13/10'.")
        if match_id is not None and (isinstance(match_id, bool) or not isinstance(match_id, int)):
            raise ServiceError("bad_request", "match_id is a number.")
        # The match this board shows is the one acted on: no need to look it up again.
        known = self.playing if match_id is None or match_id == self.playing else None
        match = await db(_act)(self.table_id, self.player, action, version, play, match_id,
                               known=known)
        shared_reads.acted(self.table_id, match)


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
        await self.send_json({"type": "lobby", "tables": tables})

    async def lobby_changed(self, event: dict[str, Any]) -> None:
        await self.send_lobby()

    async def changed(self, event: dict[str, Any]) -> None:
        await self.send_lobby()

    async def receive_json(self, content: Any, **kwargs: Any) -> None:
        if isinstance(content, dict) and content.get("type") == "sync":
            await self.send_lobby()
        else:
            await self.send_json({"type": "error", "error": "unknown_type",
                                  "detail": "The lobby only understands sync."})
