"""Seeks: "I want a 5-point match with the normal clock, rated, with anyone".

A player posts a seek (:func:`seek_post`); when another player's open seek has the same terms
(match length, time control, rated) the two pair at once: a public table reserved for them
opens with both seated and the match started (:func:`matches.services.tables.table_for_two`),
and both players' open pages get ``seek.paired`` with the table (docs/protocol.md). Otherwise
the seek waits, listed in the lobby, until it pairs, its player withdraws it
(:func:`seek_cancel`), the player's last lobby page closes (:func:`seeks_withdraw`, called by
the notice socket) or ``TAVLA_SEEK_SECONDS`` pass.

Two matching seeks posted at the same moment pair exactly once: each post first locks the
:class:`~matches.models.SeekPool` row of its terms, so posts of the same terms run one after
the other and the second sees the first. A player has at most ``TAVLA_OPEN_SEEKS`` open seeks
and posts at most ``TAVLA_SEEKS_PER_HOUR`` an hour; a paired player's other seeks are
withdrawn (they are playing now).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any, Final, TypeVar

from django.conf import settings
from django.db import OperationalError, transaction
from django.db.models import Q
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from matches.errors import ServiceError
from matches.models import ChatBlock, Player, Seek, SeekPool, SeekStatus, Table
from matches.services import broadcast
from matches.services.log import _require_player
from matches.services.tables import table_for_two
from matches.validation import GameTermsInput

T = TypeVar("T")
DEADLOCK_SQLSTATE: Final = "40P01"  # PostgreSQL's deadlock_detected
DEADLOCK_ATTEMPTS: Final = 3


def seek_seconds() -> int:
    return int(getattr(settings, "TAVLA_SEEK_SECONDS", 600))


def player_brief(player: Player) -> dict[str, Any]:
    """A player as the lists of this feature show them."""
    return {"id": player.pk, "name": player.display_name, "rating": round(player.rating)}


def table_url(table_id: int) -> str:
    return reverse("table", args=[table_id])


def blocked_ids(player: Player) -> set[int]:
    """The players who blocked ``player`` or whom ``player`` blocked: never paired."""
    rows = ChatBlock.objects.filter(Q(blocker=player) | Q(blocked=player)).values_list(
        "blocker_id", "blocked_id")
    return {pk for pair in rows for pk in pair} - {player.pk}


def game_table(first: Player, second: Player, terms: GameTermsInput) -> Table:
    """The table of a pairing on ``terms`` (inside the caller's transaction)."""
    return table_for_two(first=first, second=second, clock_preset=terms.clock_preset,
                         match_length=terms.match_length, is_rated=terms.rated)


def withdraw_open_seeks(player_ids: list[int]) -> int:
    """Withdraw the open seeks of these players (they are playing now, or gone); how many."""
    count = Seek.objects.filter(player_id__in=player_ids, status=SeekStatus.OPEN).update(
        status=SeekStatus.CANCELLED)
    if count:
        broadcast.broadcast_on_commit(broadcast.LOBBY_GROUP, {"type": "lobby.changed"})
    return count


def seek_data(seek: Seek, *, viewer: Player | None = None) -> dict[str, Any]:
    return {
        "id": seek.pk, "player": player_brief(seek.player),
        "match_length": seek.match_length, "clock_preset": seek.clock_preset,
        "rated": seek.rated, "status": seek.status,
        "created_at": seek.created_at.isoformat(), "expires_at": seek.expires_at.isoformat(),
        "table_id": seek.table_id,
        "table_url": table_url(seek.table_id) if seek.table_id else None,
        "mine": viewer is not None and seek.player_id == viewer.pk,
    }


def open_seeks(*, now: datetime | None = None) -> list[Seek]:
    """Every open seek that has not expired, oldest first, with its player."""
    moment = timezone.now() if now is None else now
    return list(Seek.objects.filter(status=SeekStatus.OPEN, expires_at__gt=moment)
                .select_related("player").order_by("created_at", "pk")[:200])


def _check_bounds(player: Player, terms: GameTermsInput, now: datetime) -> None:
    mine = Seek.objects.filter(player=player, status=SeekStatus.OPEN, expires_at__gt=now)
    if mine.filter(match_length=terms.match_length, clock_preset=terms.clock_preset,
                   rated=terms.rated).exists():
        raise ServiceError("seek_exists", _("You already seek a game on these terms."))
    most = int(getattr(settings, "TAVLA_OPEN_SEEKS", 3))
    if most and mine.count() >= most:
        raise ServiceError("too_many_seeks",
                           ngettext("You have %(most)s open seek, the most allowed: cancel it "
                                    "first.",
                                    "You have %(most)s open seeks, the most allowed: cancel one "
                                    "first.", most) % {"most": most})
    hourly = int(getattr(settings, "TAVLA_SEEKS_PER_HOUR", 60))
    recent = Seek.objects.filter(player=player, created_at__gte=now - timedelta(hours=1)).count()
    if hourly and recent >= hourly:
        raise ServiceError("too_many_seeks",
                           ngettext("You posted %(recent)s seek in the last hour, the most "
                                    "allowed: wait a while.",
                                    "You posted %(recent)s seeks in the last hour, the most "
                                    "allowed: wait a while.", recent) % {"recent": recent})


def seek_post(*, player: Player | None, terms: GameTermsInput) -> Seek:
    """Post a seek on ``terms``; paired at once with the oldest open seek of the same terms
    by another player (not one who blocked this player or whom this player blocked). Returns
    the seek: ``status`` ``paired`` with its ``table`` then, else ``open``. Raises
    :class:`ServiceError`: ``not_authenticated``, ``forbidden`` (a bot), ``seek_exists``,
    ``too_many_seeks``."""
    player = _require_player(player, _("Log in to seek a game."))
    if player.is_bot:
        raise ServiceError("forbidden", _("Bots do not seek games."))
    return retry_on_deadlock(lambda: _seek_post(player, terms))


def retry_on_deadlock(work: Callable[[], T]) -> T:
    """``work`` (one transaction), again when PostgreSQL ended it as a deadlock's victim.

    Pairing withdraws both players' other seeks, which may be another pool's candidates at
    that moment: two pairings that share a player then wait on each other's rows, and
    PostgreSQL ends one. Its transaction is rolled back whole; run again, it sees the other's
    commit (the shared player paired, their seeks gone) and decides afresh."""
    for attempt in range(DEADLOCK_ATTEMPTS):
        try:
            return work()
        except OperationalError as error:
            deadlock = getattr(error.__cause__, "sqlstate", None) == DEADLOCK_SQLSTATE
            if not deadlock or attempt == DEADLOCK_ATTEMPTS - 1:
                raise
    raise AssertionError("unreachable")  # pragma: no cover - the loop returns or raises


def _seek_post(player: Player, terms: GameTermsInput) -> Seek:
    now = timezone.now()
    with transaction.atomic():
        # The player's row first: their bounds are counted one post after the other.
        Player.objects.select_for_update().filter(pk=player.pk).first()
        _check_bounds(player, terms, now)
        pool, _created = SeekPool.objects.get_or_create(
            match_length=terms.match_length, clock_preset=terms.clock_preset, rated=terms.rated)
        # Every post of these terms waits here for the one before it to commit.
        SeekPool.objects.select_for_update().filter(pk=pool.pk).first()
        # The candidate seek's row alone (of=self: not its player's row too); one another
        # pairing holds is passed over, not waited for.
        other = (Seek.objects.select_for_update(skip_locked=True, of=("self",))
                 .filter(status=SeekStatus.OPEN, expires_at__gt=now,
                         match_length=terms.match_length, clock_preset=terms.clock_preset,
                         rated=terms.rated)
                 .exclude(player=player).exclude(player_id__in=blocked_ids(player))
                 .select_related("player").order_by("created_at", "pk").first())
        seek = Seek.objects.create(player=player, match_length=terms.match_length,
                                   clock_preset=terms.clock_preset, rated=terms.rated,
                                   expires_at=now + timedelta(seconds=seek_seconds()))
        broadcast.broadcast_on_commit(broadcast.LOBBY_GROUP, {"type": "lobby.changed"})
        if other is None:
            return seek
        table = game_table(other.player, player, terms)
        withdraw_open_seeks([player.pk, other.player_id])
        Seek.objects.filter(pk__in=[seek.pk, other.pk]).update(status=SeekStatus.PAIRED,
                                                                 table=table)
        for mine, theirs in ((other, player), (seek, other.player)):
            broadcast.tell_player_on_commit(mine.player_id, {
                "type": "seek.paired", "seek_id": mine.pk, "table_id": table.pk,
                "table_url": table_url(table.pk), "opponent": player_brief(theirs)})
        seek.refresh_from_db()
        return seek


def seek_cancel(*, seek_id: int, player: Player | None) -> Seek:
    """Withdraw one's own open seek. Raises ``not_authenticated``, ``not_found`` (no such
    seek of this player), ``seek_closed`` (paired, withdrawn or expired already)."""
    player = _require_player(player, _("Log in first."))
    with transaction.atomic():
        seek = Seek.objects.select_for_update().filter(pk=seek_id, player=player).first()
        if seek is None:
            raise ServiceError("not_found", _("You have no such seek."))
        if seek.status != SeekStatus.OPEN or seek.expires_at <= timezone.now():
            raise ServiceError("seek_closed", _("This seek is no longer open."))
        seek.status = SeekStatus.CANCELLED
        seek.save(update_fields=["status"])
        broadcast.broadcast_on_commit(broadcast.LOBBY_GROUP, {"type": "lobby.changed"})
        return seek


def seeks_withdraw(player_id: int) -> int:
    """The player left (their last lobby page closed): their open seeks go. How many."""
    with transaction.atomic():
        return withdraw_open_seeks([player_id])


def seeks_expire(*, now: datetime | None = None) -> int:
    """Mark the open seeks past their time expired (they are never paired anyway: every
    read and every pairing looks at ``expires_at``); how many."""
    moment = timezone.now() if now is None else now
    return Seek.objects.filter(status=SeekStatus.OPEN, expires_at__lte=moment).update(
        status=SeekStatus.EXPIRED)
