"""Withdrawals, disqualifications, absences and reinstatements.

A player out of the tournament (withdrawn, disqualified, absent from a pairing without
notice) is paired no more in Swiss and round robin (see :mod:`tournaments.formats`); in
elimination they stay in the draw and every match of theirs still to be played is lost by
forfeit, both players out being a double forfeit.
"""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext as _

from matches import log_reasons
from matches import services as match_services
from matches.errors import ServiceError
from matches.models import Player
from tournaments.models import (
    Entry,
    EntryStatus,
    Pairing,
    PairingStatus,
    ResultSource,
    Tournament,
    TournamentStatus,
)
from tournaments.selectors import can_direct
from tournaments.services import divisions
from tournaments.services.bracket import advance, settle
from tournaments.services.common import (
    TournamentError,
    acting_user,
    announce,
    live_match,
    locked,
    log_action,
    require_director,
    require_referee,
)


def entry_withdraw(*, entry_id: int, actor: Any = None, reason: str = "",
                   disqualify: bool = False) -> Entry:
    """Withdraw (or disqualify) an entry. Before the start it just leaves the list; once
    running, every pairing of theirs still to be played is lost by forfeit, a live match
    through :func:`matches.services.match_forfeit`."""
    entry = Entry.objects.select_related("player", "tournament").get(pk=entry_id)
    tournament = entry.tournament
    if disqualify:
        require_director(actor, tournament)
        if not (reason or "").strip():
            raise TournamentError("reason_required", _("A disqualification needs a reason."))
    elif (actor is not None and acting_user(actor) != entry.player.user
          and not can_direct(actor, tournament)):
        raise TournamentError("forbidden", _("Only the player or the director may withdraw them."))
    with transaction.atomic():
        tournament = locked(tournament.pk)
        entry.refresh_from_db()
        if tournament.status == TournamentStatus.FINISHED:
            raise TournamentError("finished", _("The tournament is over."))
        if entry.status == EntryStatus.DISQUALIFIED or (entry.status == EntryStatus.WITHDRAWN
                                                        and not disqualify):
            raise TournamentError("not_active", _("This entry is no longer in the tournament."))
        entry.status = EntryStatus.DISQUALIFIED if disqualify else EntryStatus.WITHDRAWN
        entry.left_at = timezone.now()
        entry.save(update_fields=["status", "left_at"])
        log_action(tournament, "disqualified" if disqualify else "withdrawn", actor=actor,
                   reason=reason, player=entry.player.display_name, entry=entry.pk)
        announce(tournament)
        running = tournament.status == TournamentStatus.RUNNING
    if not running:
        return entry
    # Live matches first, without the tournament lock (lock order: match → tournament); the
    # finisher's match_finished records each forfeit.
    open_rows = list(Pairing.objects.filter(
        Q(entry_a=entry) | Q(entry_b=entry), status=PairingStatus.PAIRED))
    for row in open_rows:
        live = live_match(row)
        if live is not None:
            try:
                match_services.match_forfeit(
                    match_id=live.pk, loser=entry.player,
                    reason=log_reasons.with_detail(
                        log_reasons.DISQUALIFIED if disqualify else log_reasons.WITHDREW,
                        reason),
                    actor=acting_user(actor),
                )
            except ServiceError as error:
                if error.code != "match_over":
                    raise
    with transaction.atomic():
        tournament = locked(tournament.pk)
        rows = Pairing.objects.filter(Q(entry_a=entry) | Q(entry_b=entry),
                                      status=PairingStatus.PAIRED).select_related(
            "entry_a__player", "entry_b__player")
        for row in rows:
            live = live_match(row)
            if live is not None:  # started in between: forfeit it (its receiver records it)
                match_services.match_forfeit(match_id=live.pk, loser=entry.player,
                                             reason=log_reasons.WITHDREW,
                                             actor=acting_user(actor))
                continue
            assert row.entry_a is not None and row.entry_b is not None
            opponent = row.entry_b if row.entry_a_id == entry.pk else row.entry_a
            tournament.refresh_from_db()  # a forfeited live match may have advanced it
            if opponent.is_active:
                settle(tournament, row, opponent, ResultSource.FORFEIT, actor=actor,
                       reason=f"{entry.player} is out of the tournament")
            else:
                settle(tournament, row, None, ResultSource.DOUBLE_FORFEIT, actor=actor,
                       reason="both players are out of the tournament: both lose")
    entry.refresh_from_db()
    return entry


def player_withdraw(*, tournament_id: int, player: Player, reason: str = "") -> Entry:
    """A player withdraws themselves (site or API)."""
    entry = Entry.objects.filter(tournament_id=tournament_id, player=player).first()
    if entry is None or entry.status == EntryStatus.WITHDRAWN:  # an event: their division's
        event = Tournament.objects.filter(pk=tournament_id).first()
        in_event = divisions.entry_in_event(event, player) if event is not None else None
        entry = in_event or entry
    if entry is None:
        raise TournamentError("not_registered", _("You are not registered."))
    return entry_withdraw(entry_id=entry.pk, actor=player.user, reason=reason or "withdrew")




def withdraw_absent(tournament: Tournament, entry: Entry, *, slot: str) -> None:
    """``entry`` did not come to their pairing ``slot`` and sent no word: they are withdrawn
    from later rounds (logged). Caller holds the tournament lock and decides the pairing."""
    if not entry.is_active:
        return
    entry.status, entry.left_at = EntryStatus.WITHDRAWN, timezone.now()
    entry.save(update_fields=["status", "left_at"])
    log_action(tournament, "withdrawn", reason=f"absent from {slot} without notice",
               player=entry.player.display_name, entry=entry.pk, absent=True, slot=slot)


def entry_reinstate(*, entry_id: int, actor: Any, reason: str) -> Entry:
    """A referee (or the director) brings a withdrawn player back, with a reason: they are
    paired again from the next pairing on (Swiss, round robin; in elimination, their next
    match if the draw still has one). Results already decided stay as they are. Only the
    director may reinstate a disqualified player.

    Raises :class:`TournamentError` ``reason_required``, ``forbidden``, ``finished`` or
    ``not_out`` (the player is still in).
    """
    reason = (reason or "").strip()
    if not reason:
        raise TournamentError("reason_required", _("A reinstatement needs a written reason."))
    entry = Entry.objects.select_related("player").filter(pk=entry_id).first()
    if entry is None:
        raise TournamentError("not_found",
                              _("There is no entry %(entry_id)s.") % {"entry_id": entry_id})
    with transaction.atomic():
        tournament = locked(entry.tournament_id)
        require_referee(actor, tournament)
        entry.refresh_from_db()
        if tournament.status == TournamentStatus.FINISHED:
            raise TournamentError("finished", _("The tournament is over."))
        if entry.status == EntryStatus.ACTIVE:
            raise TournamentError("not_out", _("This player is still in the tournament."))
        if entry.status == EntryStatus.DISQUALIFIED and not can_direct(actor, tournament):
            raise TournamentError("forbidden",
                                  _("Only the director may reinstate a disqualified player."))
        was = EntryStatus(entry.status).name.lower()
        entry.status, entry.left_at = EntryStatus.ACTIVE, None
        entry.save(update_fields=["status", "left_at"])
        log_action(tournament, "reinstated", actor=actor, reason=reason,
                   player=entry.player.display_name, entry=entry.pk, was=was)
        advance(tournament, actor=actor)
        announce(tournament)
    return entry
