"""Money bookkeeping: the paid mark of an entry and who is in a side pool. No payment is
processed; the treasurer takes the money and marks it here (see :mod:`tournaments.treasury`
for the pools and payouts)."""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.utils.translation import gettext as _

from tournaments.models import Entry, SidePool
from tournaments.services.common import (
    TournamentError,
    announce,
    locked,
    log_action,
    require_referee,
)


@transaction.atomic
def entry_set_paid(*, entry_id: int, paid: bool, actor: Any = None) -> Entry:
    """Mark an entry's fee paid (or not), at the check-in desk: a referee or the director."""
    entry = Entry.objects.filter(pk=entry_id).select_related("player").first()
    if entry is None:
        raise TournamentError("not_found",
                              _("There is no entry %(entry_id)s.") % {"entry_id": entry_id})
    tournament = locked(entry.tournament_id)
    require_referee(actor, tournament)
    if entry.paid != paid:
        entry.paid = paid
        entry.save(update_fields=["paid"])
        log_action(tournament, "paid" if paid else "unpaid", actor=actor,
                   player=entry.player.display_name, entry=entry.pk,
                   fee=str(tournament.entry_fee))
        announce(tournament)
    return entry


@transaction.atomic
def side_pool_enter(*, side_pool_id: int, entry_id: int, enter: bool = True,
                    actor: Any = None) -> SidePool:
    """Put an entry in a side pool (it paid the side pool's fee), or take it out."""
    side = SidePool.objects.filter(pk=side_pool_id).first()
    if side is None:
        raise TournamentError("not_found",
                              _("There is no side pool %(side_pool_id)s.")
                              % {"side_pool_id": side_pool_id})
    tournament = locked(side.tournament_id)
    require_referee(actor, tournament)
    entry = Entry.objects.filter(pk=entry_id, tournament=tournament).select_related(
        "player").first()
    if entry is None:
        raise TournamentError("not_registered", _("That entry is not in this tournament."))
    if enter:
        side.entries.add(entry)
    else:
        side.entries.remove(entry)
    log_action(tournament, "side_pool_entered" if enter else "side_pool_left", actor=actor,
               pool=side.name, player=entry.player.display_name, entry=entry.pk)
    announce(tournament)
    return side
