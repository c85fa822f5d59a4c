"""Friends: a player follows others (:func:`follow`, :func:`unfollow`), and the lobby shows
where they play now (:func:`followed_tables`); who is online now (:func:`online_players`,
read from :mod:`matches.services.online`)."""

from __future__ import annotations

import logging
from typing import Any

from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from matches.errors import ServiceError
from matches.models import Follow, Match, MatchStatus, Player, Table
from matches.services import online
from matches.services.log import _require_player
from matches.services.seeks import player_brief, table_url

logger = logging.getLogger(__name__)

MAX_FOLLOWS = 500  # a bound on one account's list: the lobby reads all of it


def follow(*, player: Player | None, followed: Player) -> bool:
    """``player`` follows ``followed`` (following again changes nothing); True when new.
    Raises ``not_authenticated``, ``invalid_option`` (oneself), ``too_many_follows``."""
    player = _require_player(player, _("Log in to follow a player."))
    if followed.pk == player.pk:
        raise ServiceError("invalid_option", _("You cannot follow yourself."), field="player")
    with transaction.atomic():
        Player.objects.select_for_update().filter(pk=player.pk).first()
        if Follow.objects.filter(follower=player, followed=followed).exists():
            return False
        if Follow.objects.filter(follower=player).count() >= MAX_FOLLOWS:
            raise ServiceError("too_many_follows",
                               ngettext("You follow %(max_follows)s player, the most allowed.",
                                        "You follow %(max_follows)s players, the most allowed.",
                                        MAX_FOLLOWS) % {"max_follows": MAX_FOLLOWS})
        try:
            with transaction.atomic():
                Follow.objects.create(follower=player, followed=followed)
        except IntegrityError:  # the same follow from another request a moment ago
            return False
        return True


def unfollow(*, player: Player | None, followed: Player) -> None:
    """Stop following. Raises ``not_authenticated``, ``not_found`` (not followed)."""
    player = _require_player(player, _("Log in first."))
    deleted, _kinds = Follow.objects.filter(follower=player, followed=followed).delete()
    if not deleted:
        raise ServiceError("not_found", _("You do not follow this player."))


def follows(player: Player, other: Player) -> bool:
    return Follow.objects.filter(follower=player, followed=other).exists()


def _tables_of(player_ids: list[int]) -> dict[int, Table]:
    """Each player's current public table: where they play a match now, else where they sit."""
    found: dict[int, Table] = {}
    playing = (Match.objects.filter(Q(player0_id__in=player_ids) | Q(player1_id__in=player_ids),
                                    status=MatchStatus.PLAYING, table__is_public=True)
               .select_related("table").order_by("-pk"))
    for match in playing[:1000]:
        for pk in (match.player0_id, match.player1_id):
            if pk in player_ids:
                found.setdefault(pk, match.table)
    seated = Table.objects.filter(Q(seat0_id__in=player_ids) | Q(seat1_id__in=player_ids),
                                  is_public=True).order_by("-created_at")
    for table in seated[:1000]:
        for seat in (table.seat0_id, table.seat1_id):
            if seat is not None and seat in player_ids:
                found.setdefault(seat, table)
    return found


def _table_brief(table: Table | None, playing: set[int]) -> dict[str, Any] | None:
    if table is None:
        return None
    return {"id": table.pk, "name": table.name, "url": table_url(table.pk),
            "playing": table.pk in playing,
            "free_seat": not (table.seat0_id and table.seat1_id)
            and not (table.reserved0_id or table.reserved1_id)}


def _playing_tables(tables: list[Table]) -> set[int]:
    return set(Match.objects.filter(table__in=tables, status=MatchStatus.PLAYING)
               .values_list("table_id", flat=True))


def followed_tables(player: Player) -> list[dict[str, Any]]:
    """The players ``player`` follows, each with ``online`` and ``table`` (their public
    table now, or null): those at a table first."""
    followed = list(Player.objects.filter(followers__follower=player).order_by("display_name"))
    ids = [p.pk for p in followed]
    tables = _tables_of(ids)
    playing = _playing_tables(list(tables.values()))
    try:
        live = set(online.online_ids())
    except Exception:  # noqa: BLE001 - Redis down: the tables are still worth showing
        logger.exception("online: could not read who is online")
        live = set()
    rows = [{"player": player_brief(p), "online": p.pk in live,
             "table": _table_brief(tables.get(p.pk), playing)} for p in followed]
    rows.sort(key=lambda row: row["table"] is None)
    return rows


def online_players(viewer: Player | None, *, limit: int = 200) -> list[dict[str, Any]]:
    """The players online now (not bots), by name: each with ``followed`` (by the viewer),
    ``me`` and ``table`` (their public table now, or null). Nobody while Redis cannot be
    reached (logged): the list is a convenience, never worth an error page."""
    try:
        ids = online.online_ids()
    except Exception:  # noqa: BLE001 - logged; the next read tries again
        logger.exception("online: could not read who is online")
        return []
    players = list(Player.objects.filter(pk__in=ids, is_bot=False)
                   .order_by("display_name", "pk")[:limit])
    tables = _tables_of([p.pk for p in players])
    playing = _playing_tables(list(tables.values()))
    followed = set() if viewer is None else set(
        Follow.objects.filter(follower=viewer).values_list("followed_id", flat=True))
    return [{**player_brief(p), "followed": p.pk in followed,
             "me": viewer is not None and p.pk == viewer.pk,
             "table": _table_brief(tables.get(p.pk), playing)} for p in players]
