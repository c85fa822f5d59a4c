"""Telling players of their pairings at once, wherever they are.

A player's open pairings ("Your match: table 7 against X") are shown on the home page and
the lobby, and pushed live over ``/ws/notices/`` (:class:`tournaments.consumers.
NoticeConsumer`) the moment a pairing is made, decided or re-opened: every save of a pairing
with both players known sends each of them their current notices, after commit. A player
sitting down or standing up at a tournament table tells the tournament's pages, so the
bracket's "seated" marks and live marker follow.

Receivers of model signals, so every path that pairs or decides (the services, whatever
their shape) is covered without one of them forgetting to call this.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.db import transaction
from django.db.models import Q
from django.urls import reverse

from matches.models import Player, Table
from matches.services.broadcast import broadcast_now, player_group
from tournaments.models import Pairing, PairingStatus, TournamentStatus
from tournaments.selectors import tournament_group


def notices_for(player: Player | None) -> list[dict[str, Any]]:
    """The player's pairings waiting to be played, in running tournaments, oldest first:
    ``{"pairing_id", "tournament", "tournament_url", "slot", "opponent", "table_id",
    "table_url", "board_number", "starts_at", "match_length"}``."""
    if player is None:
        return []
    rows = (
        Pairing.objects.filter(Q(entry_a__player=player) | Q(entry_b__player=player),
                               status=PairingStatus.PAIRED,
                               tournament__status=TournamentStatus.RUNNING)
        .select_related("tournament", "round", "entry_a__player", "entry_b__player")
        .order_by("paired_at", "pk")
    )
    notices = []
    for row in rows:
        assert row.entry_a is not None and row.entry_b is not None
        opponent = row.entry_b if row.entry_a.player_id == player.pk else row.entry_a
        notices.append({
            "pairing_id": row.pk,
            "tournament": row.tournament.name,
            "tournament_url": reverse("tournaments:detail", args=[row.tournament_id]),
            "slot": row.slot,
            "opponent": opponent.player.display_name,
            "table_id": row.table_id,
            "table_url": reverse("table", args=[row.table_id]) if row.table_id else None,
            "board_number": row.board_number,
            "starts_at": row.round.starts_at.isoformat() if row.round.starts_at else None,
            "match_length": row.round.match_length,
        })
    return notices


def send_notices(player_id: int) -> None:
    """Push the player's current notices to their open pages (call after commit)."""
    player = Player.objects.filter(pk=player_id).first()
    broadcast_now(player_group(player_id),
                  {"type": "notices.changed", "notices": notices_for(player)})


def on_pairing_saved(sender: Any, instance: Pairing, **kwargs: Any) -> None:
    """``post_save`` of a pairing: its two players learn of it (or of its end) at once."""
    if instance.entry_a_id is None or instance.entry_b_id is None:
        return
    player_ids = list(
        Pairing.objects.filter(pk=instance.pk).values_list("entry_a__player_id",
                                                           "entry_b__player_id").first() or ()
    )
    for player_id in player_ids:
        transaction.on_commit(_notify_after_commit(player_id), robust=True)


def notify_after_commit(player_ids: list[int]) -> None:
    """The players' notices are pushed again once the transaction commits (a change their
    pairings' rows do not show, e.g. a round's new start time)."""
    for player_id in player_ids:
        transaction.on_commit(_notify_after_commit(player_id), robust=True)


def _notify_after_commit(player_id: int) -> Callable[[], None]:
    # A named function, not a partial: Django logs a failed robust hook by its __qualname__,
    # which a partial lacks, and that AttributeError would escape the commit.
    def notify() -> None:
        send_notices(player_id)

    return notify


def on_table_saved(sender: Any, instance: Table, update_fields: Any = None,
                   **kwargs: Any) -> None:
    """``post_save`` of a table's seats: a tournament table tells the tournament's pages."""
    if update_fields is not None and not {"seat0", "seat1"} & set(update_fields):
        return
    tournament_id = (Pairing.objects.filter(table_id=instance.pk)
                     .values_list("tournament_id", flat=True).first())
    if tournament_id is None:
        return
    transaction.on_commit(
        lambda: broadcast_now(tournament_group(tournament_id),
                              {"type": "tournament.changed", "tournament_id": tournament_id}),
        robust=True,
    )
