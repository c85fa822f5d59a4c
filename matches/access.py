"""Who may watch and who may sit at a table, private tables and invitations included.

A public table is open to everybody. A private table is open to its creator, the players
sitting or playing there, the players a seat is reserved for (a tournament pairing, or the
named opponent its creator invited), and anyone holding its invitation: a secret token in the
invitation link (``/tables/<id>/?invite=<token>``). A browser that opened the link keeps the
token in its session, so its board socket and the sit form need nothing more; a bot sends
``?invite=<token>`` on the socket URL or ``"invite"`` with a REST sit.
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping
from typing import Any

from django.db.models import Q
from django.utils.translation import gettext as _

from matches.errors import ServiceError
from matches.models import Match, MatchStatus, Player, Table
from matches.players.accounts import player_for_user

SESSION_KEY = "tavla_invites"  # {str(table id): token} in the browser's session


def new_invite_token() -> str:
    """32 random bytes, URL-safe: unguessable, and only ever shown to the creator."""
    return secrets.token_urlsafe(32)


def invite_is_valid(table: Table, invite: str | None) -> bool:
    return bool(invite and table.invite_token
                and secrets.compare_digest(invite.encode(), table.invite_token.encode()))


def plays_at(table: Table, player: Player) -> bool:
    if player.pk in (table.seat0_id, table.seat1_id):
        return True
    return Match.objects.filter(table=table, status=MatchStatus.PLAYING).filter(
        Q(player0=player) | Q(player1=player)).exists()


def may_watch(table: Table, player: Player | None, invite: str | None = None) -> bool:
    if table.is_public or invite_is_valid(table, invite):
        return True
    if player is None:
        return False
    known = (table.created_by_id, table.reserved0_id, table.reserved1_id)
    return player.pk in known or plays_at(table, player)


def not_visible(table_id: int) -> ServiceError:
    """The one answer to a table that is not there, or private and not the viewer's: the same
    ``not_found`` (REST's 404, the socket's close 4404), so nobody learns which it is."""
    return ServiceError("not_found",
                        _("There is no table %(table_id)s, or it is private: open it with its "
                          "invitation link.") % {"table_id": table_id})


def check_may_sit(table: Table, player: Player, invite: str | None = None) -> None:
    """Refuse a seat at a private table to whoever may not watch it (the services call this):
    ``not_found``, as for a table that does not exist."""
    if not may_watch(table, player, invite):
        raise not_visible(table.pk)


def board_access(table_id: int, user: Any, invite: str | None = None
                 ) -> tuple[Player | None, bool]:
    """The viewer of a new board and whether they play at this table.

    Raises :class:`ServiceError` ``not_found`` when there is no such table, or a private
    table is not theirs.
    """
    table = Table.objects.filter(pk=table_id).first()
    if table is None:
        raise not_visible(table_id)
    player = None
    if user is not None and getattr(user, "is_authenticated", False):
        player = player_for_user(user)
        player.user = user  # already loaded by the auth middleware: the services need it
    seated = player is not None and plays_at(table, player)
    if not seated and not may_watch(table, player, invite):
        raise not_visible(table_id)
    return player, seated


def session_invite(session: Mapping[str, Any] | None, table_id: int) -> str | None:
    """The invitation for ``table_id`` a browser's session holds, if any."""
    if session is None:
        return None
    invites = session.get(SESSION_KEY) or {}
    token = invites.get(str(table_id)) if isinstance(invites, dict) else None
    return token if isinstance(token, str) else None


def remember_invite(session: Any, table_id: int, invite: str) -> None:
    invites = dict(session.get(SESSION_KEY) or {})
    invites[str(table_id)] = invite
    session[SESSION_KEY] = invites
