"""Divisions: one event, several brackets (Open, Intermediate, Novice, or the director's own).

A division is a tournament of its own (its own format, rules, money and bracket) whose
``event`` is the tournament players register for. The event has no bracket: it routes.

- **Registering for the event** places the player in the first division, in
  ``division_order``, whose eligibility they meet: by rating range (``min_rating`` ≤ rating
  < ``max_rating``), by experience range (the same with ``experience``, the sum of the
  lengths of their finished rated matches), or open to anyone. A division whose eligibility
  is "assigned" takes no one by itself: a player eligible for no other division waits in the
  event, unassigned, until the director assigns them (:func:`division_assign`, which may
  also move anyone before their division starts, whatever the ranges).
- Registering for a division directly is the same as registering for the event, except that
  the player must be eligible for that division.
- Opening registration or check-in on the event opens it on every division; checking in for
  the event checks in the player's division entry; starting the event starts every division
  with two or more players (an unassigned entry is withdrawn). The event is finished when
  every division that started is.
"""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from matches.models import Player
from tournaments.models import Eligibility, Entry, EntryStatus, Tournament, TournamentStatus
from tournaments.services.common import (
    TournamentError,
    announce,
    divisions_of,
    has_divisions,
    locked,
    log_action,
    require_director,
)
from tournaments.services.lifecycle import (
    check_in,
    enter,
    open_check_in,
    open_registration,
    start,
)


def eligible(division: Tournament, player: Player) -> bool:
    """Whether ``player`` meets the division's own rule (an assigned division: never)."""
    if division.eligibility == Eligibility.ASSIGNED:
        return False
    if division.eligibility == Eligibility.RATING:
        value: float = player.rating
        low, high = division.min_rating, division.max_rating
    elif division.eligibility == Eligibility.EXPERIENCE:
        value = player.experience
        low = division.min_experience
        high = division.max_experience
    else:
        return True
    return (low is None or value >= low) and (high is None or value < high)


def division_for(event: Tournament, player: Player) -> Tournament | None:
    return next((d for d in divisions_of(event) if eligible(d, player)), None)


def entry_in_event(event: Tournament, player: Player) -> Entry | None:
    """The player's entry in the event: in one of its divisions, or waiting in the event."""
    return (Entry.objects.filter(tournament__event=event, player=player)
            .exclude(status=EntryStatus.WITHDRAWN).select_related("tournament").first()
            or Entry.objects.filter(tournament=event, player=player)
            .exclude(status=EntryStatus.WITHDRAWN).select_related("tournament").first())


def event_register(*, event_id: int, player: Player, actor: Any = None,
                   division_id: int | None = None) -> Entry:
    """Register ``player`` for the event (see the module); ``division_id``: for that
    division, which the player must be eligible for."""
    with transaction.atomic():
        event = locked(event_id)
        if not event.accepts_entries:
            raise TournamentError("registration_closed", _("Registration is not open."))
        existing = entry_in_event(event, player)
        if existing is not None and existing.status == EntryStatus.DISQUALIFIED:
            raise TournamentError("disqualified", _("You were disqualified from this event."))
        if existing is not None:
            raise TournamentError(
                "already_registered", _("You are already registered (%(tournament)s).")
                                      % {"tournament": existing.tournament})
        if division_id is not None:
            division = Tournament.objects.filter(pk=division_id, event=event).first()
            if division is None or not eligible(division, player):
                raise TournamentError("not_eligible",
                                      _("You are not eligible for this division."))
        else:
            division = division_for(event, player)
        if division is None:
            if not event.divisions.filter(eligibility=Eligibility.ASSIGNED).exists():
                raise TournamentError("not_eligible",
                                      _("You are not eligible for any division of this event."))
            entry = Entry.objects.filter(tournament=event, player=player).first()
            checked_in = event.status == TournamentStatus.CHECK_IN
            if entry is None:
                entry = Entry.objects.create(tournament=event, player=player,
                                             checked_in=checked_in)
            else:
                entry.status, entry.left_at, entry.checked_in = (
                    EntryStatus.ACTIVE, None, checked_in)
                entry.save(update_fields=["status", "left_at", "checked_in"])
            log_action(event, "registered", actor=actor or player.user,
                       player=player.display_name, entry=entry.pk, division=None,
                       reason="waiting for the director to assign a division")
            announce(event)
            return entry
        entry = enter(tournament_id=division.pk, player=player, actor=actor)
        log_action(event, "registered", actor=actor or player.user, player=player.display_name,
                   entry=entry.pk, division=division.name)
        announce(event)
        return entry


@transaction.atomic
def division_assign(*, entry_id: int, division_id: int, actor: Any = None,
                    reason: str = "") -> Entry:
    """The director puts an entry (waiting in the event, or in another division) in the
    division ``division_id``, before that division and the entry's own have started."""
    entry = Entry.objects.select_related("tournament", "player").filter(pk=entry_id).first()
    division = Tournament.objects.filter(pk=division_id).first()
    if entry is None or division is None or division.event_id is None:
        raise TournamentError("not_found", _("No such entry or division."))
    event = locked(division.event_id)
    require_director(actor, event)
    if entry.tournament_id not in (event.pk, *event.divisions.values_list("pk", flat=True)):
        raise TournamentError("not_registered", _("That entry is not in this event."))
    if entry.tournament.has_started or division.has_started:
        raise TournamentError("already_started", _("A division's players are fixed at its start."))
    if Entry.objects.filter(tournament=division, player=entry.player).exclude(
            pk=entry.pk).exists():
        raise TournamentError("already_registered", _("The player is already in that division."))
    previous = entry.tournament
    entry.tournament, entry.seed = division, None
    entry.save(update_fields=["tournament", "seed"])
    log_action(event, "division_assigned", actor=actor, reason=reason,
               player=entry.player.display_name, entry=entry.pk, division=division.name,
               previous=previous.name)
    announce(event)
    announce(division)
    if previous.pk != event.pk:
        announce(previous)
    return entry


def event_open(*, event_id: int, check_in: bool, actor: Any = None) -> None:
    """Open registration (or check-in) on the event's divisions too."""
    for division in divisions_of(Tournament.objects.get(pk=event_id)):
        if check_in and division.status == TournamentStatus.REGISTRATION:
            open_check_in(tournament_id=division.pk, actor=actor)
        elif not check_in and division.status == TournamentStatus.DRAFT:
            open_registration(tournament_id=division.pk, actor=actor)


def event_check_in(*, event_id: int, player: Player) -> Entry:
    event = Tournament.objects.get(pk=event_id)
    entry = entry_in_event(event, player)
    if entry is None:
        raise TournamentError("not_registered", _("Register first."))
    return check_in(tournament_id=entry.tournament_id, player=player)


def event_start(*, event_id: int, actor: Any = None) -> Tournament:
    """Start every division with two or more players; the event is then running."""
    with transaction.atomic():
        event = locked(event_id)
        require_director(actor, event)
        if not event.accepts_entries:
            raise TournamentError("bad_status", _("Start the event from registration or check-in."))
        now = timezone.now()
        for entry in event.entries.filter(status=EntryStatus.ACTIVE).select_related("player"):
            entry.status, entry.left_at = EntryStatus.WITHDRAWN, now
            entry.save(update_fields=["status", "left_at"])
            log_action(event, "withdrawn", actor=actor, player=entry.player.display_name,
                       reason="not assigned to a division")
        started = []
        for division in divisions_of(event):
            players = division.entries.filter(status=EntryStatus.ACTIVE)
            if division.status == TournamentStatus.CHECK_IN:
                players = players.filter(checked_in=True)
            if players.count() < 2:
                log_action(event, "division_not_started", actor=actor, division=division.name,
                           reason="fewer than two players")
                continue
            start(tournament_id=division.pk, actor=actor)
            started.append(division.name)
        if not started:
            raise TournamentError("too_few_entrants",
                                  _("No division has two players: nothing to start."))
        event.status, event.started_at = TournamentStatus.RUNNING, now
        event.save(update_fields=["status", "started_at"])
        log_action(event, "started", actor=actor, divisions=started)
        announce(event)
        return event


# -- the entry points: a tournament, or an event routed to its divisions -------------------


@transaction.atomic
def tournament_open_registration(*, tournament_id: int, actor: Any = None) -> Tournament:
    """Draft → registration: players may enter. Checks the format and its options. An
    event opens its divisions too."""
    tournament = open_registration(tournament_id=tournament_id, actor=actor)
    event_open(event_id=tournament.pk, check_in=False, actor=actor)
    return tournament


@transaction.atomic
def tournament_open_check_in(*, tournament_id: int, actor: Any = None) -> Tournament:
    """Registration → check-in: at the start, entries that did not check in are dropped. An
    event opens check-in on its divisions too."""
    tournament = open_check_in(tournament_id=tournament_id, actor=actor)
    event_open(event_id=tournament.pk, check_in=True, actor=actor)
    return tournament


def entry_register(*, tournament_id: int, player: Player, actor: Any = None) -> Entry:
    """Enter ``player`` (again, after a withdrawal). During check-in, entering checks in.
    For an event with divisions, or a division, the player is placed by the division rules
    (see the module)."""
    event_id = Tournament.objects.filter(pk=tournament_id).values_list("event_id",
                                                                        flat=True).first()
    if event_id is not None:
        return event_register(event_id=event_id, player=player, actor=actor,
                              division_id=tournament_id)
    if has_divisions(tournament_id):
        return event_register(event_id=tournament_id, player=player, actor=actor)
    return enter(tournament_id=tournament_id, player=player, actor=actor)


def entry_check_in(*, tournament_id: int, player: Player) -> Entry:
    """Check ``player`` in (for an event with divisions: in their division)."""
    if has_divisions(tournament_id):
        return event_check_in(event_id=tournament_id, player=player)
    return check_in(tournament_id=tournament_id, player=player)


def tournament_start(*, tournament_id: int, actor: Any = None) -> Tournament:
    """Make the draw, store the format's pairings and start the first matches (an event
    with divisions: every division, see :func:`event_start`).

    From registration or check-in (then entries that did not check in are withdrawn).
    Raises :class:`TournamentError` with ``bad_status``, ``too_few_entrants`` or the
    format's own code.
    """
    if has_divisions(tournament_id):
        return event_start(event_id=tournament_id, actor=actor)
    return start(tournament_id=tournament_id, actor=actor)
