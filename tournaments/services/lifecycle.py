"""A tournament's life: draft → registration → check-in → running (→ finished, which
:mod:`tournaments.services.bracket` decides). Entering, checking in, seeding, the start, and
the director's "pair next round"."""

from __future__ import annotations

import secrets
from typing import Any

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from matches.models import Player
from tournaments import formats
from tournaments.models import (
    Entry,
    EntryStatus,
    PairingStatus,
    Round,
    SeedingMethod,
    Tournament,
    TournamentStatus,
)
from tournaments.selectors import format_state
from tournaments.services.bracket import advance, store_pairing
from tournaments.services.common import (
    TournamentError,
    announce,
    check_configuration,
    format_for,
    locked,
    log_action,
    require_director,
)
from tournaments.services.results import reconcile_finished_matches


@transaction.atomic
def open_registration(*, tournament_id: int, actor: Any = None) -> Tournament:
    """Draft → registration in this one tournament (its divisions: see
    :func:`tournaments.services.divisions.tournament_open_registration`)."""
    tournament = locked(tournament_id)
    require_director(actor, tournament)
    if tournament.status != TournamentStatus.DRAFT:
        raise TournamentError("bad_status", _("Registration can be opened only from a draft."))
    check_configuration(tournament)
    tournament.status = TournamentStatus.REGISTRATION
    tournament.save(update_fields=["status"])
    log_action(tournament, "registration_opened", actor=actor)
    announce(tournament)
    return tournament


@transaction.atomic
def open_check_in(*, tournament_id: int, actor: Any = None) -> Tournament:
    """Registration → check-in in this one tournament (its divisions: see
    :func:`tournaments.services.divisions.tournament_open_check_in`)."""
    tournament = locked(tournament_id)
    require_director(actor, tournament)
    if tournament.status != TournamentStatus.REGISTRATION:
        raise TournamentError("bad_status", _("Check-in follows registration."))
    tournament.status = TournamentStatus.CHECK_IN
    tournament.save(update_fields=["status"])
    log_action(tournament, "check_in_opened", actor=actor)
    announce(tournament)
    return tournament


@transaction.atomic
def enter(*, tournament_id: int, player: Player, actor: Any = None) -> Entry:
    """Enter ``player`` in this one tournament, whatever its event (see
    :func:`tournaments.services.divisions.entry_register`)."""
    tournament = locked(tournament_id)
    if not tournament.accepts_entries:
        raise TournamentError("registration_closed", _("Registration is not open."))
    entry = Entry.objects.filter(tournament=tournament, player=player).first()
    if entry is not None and entry.status == EntryStatus.DISQUALIFIED:
        raise TournamentError("disqualified", _("You were disqualified from this tournament."))
    if entry is not None and entry.is_active:
        raise TournamentError("already_registered", _("You are already registered."))
    active = tournament.entries.filter(status=EntryStatus.ACTIVE).count()
    if tournament.max_entries is not None and active >= tournament.max_entries:
        raise TournamentError("tournament_full", _("The tournament is full."))
    checked_in = tournament.status == TournamentStatus.CHECK_IN
    if entry is None:
        entry = Entry.objects.create(tournament=tournament, player=player, checked_in=checked_in)
    else:
        entry.status, entry.left_at, entry.checked_in = EntryStatus.ACTIVE, None, checked_in
        entry.save(update_fields=["status", "left_at", "checked_in"])
    log_action(tournament, "registered", actor=actor or player.user, player=player.display_name,
               entry=entry.pk)
    announce(tournament)
    return entry


@transaction.atomic
def check_in(*, tournament_id: int, player: Player) -> Entry:
    tournament = locked(tournament_id)
    if not tournament.accepts_entries:
        raise TournamentError("check_in_closed", _("Check-in is not open."))
    entry = Entry.objects.filter(tournament=tournament, player=player,
                                 status=EntryStatus.ACTIVE).first()
    if entry is None:
        raise TournamentError("not_registered", _("Register first."))
    if not entry.checked_in:
        entry.checked_in = True
        entry.save(update_fields=["checked_in"])
        log_action(tournament, "checked_in", actor=player.user, player=player.display_name)
        announce(tournament)
    return entry


def _draw(tournament: Tournament, entries: list[Entry], *, new_random: bool) -> list[int]:
    """The entry ids best seed first, by the tournament's seeding method. Records a newly
    drawn random seed on ``tournament`` (the caller saves it)."""
    ids = [entry.pk for entry in entries]
    try:
        if tournament.seeding == SeedingMethod.RANDOM:
            if new_random or tournament.rng_seed is None:
                tournament.rng_seed = secrets.randbits(62)
            return formats.seed_order(ids, "random", rng_seed=tournament.rng_seed)
        if tournament.seeding == SeedingMethod.RATING:
            ratings = {entry.pk: entry.player.rating for entry in entries}
            return formats.seed_order(ids, "rating", ratings=ratings)
        manual = sorted(entries, key=lambda e: (e.seed is None, e.seed or 0, e.registered_at,
                                                e.pk))
        return formats.seed_order(ids, "manual", manual=[entry.pk for entry in manual])
    except formats.PairingError as error:
        raise TournamentError(error.code, _(error.template) % error.params) from error


def _write_seeds(tournament: Tournament, order: list[int]) -> None:
    tournament.entries.exclude(pk__in=order).update(seed=None)
    for seed, entry_id in enumerate(order, start=1):
        Entry.objects.filter(pk=entry_id).update(seed=seed)


@transaction.atomic
def tournament_reseed(*, tournament_id: int, actor: Any = None) -> list[int]:
    """Before the start: draw the seeds again (a new random seed value for a random draw)
    and show them on the entries. The start keeps this draw."""
    tournament = locked(tournament_id)
    require_director(actor, tournament)
    if tournament.has_started:
        raise TournamentError("already_started", _("Seeds can be changed only before the start."))
    entries = list(tournament.entries.filter(status=EntryStatus.ACTIVE).select_related("player"))
    order = _draw(tournament, entries, new_random=True)
    tournament.save(update_fields=["rng_seed"])
    _write_seeds(tournament, order)
    log_action(tournament, "reseeded", actor=actor, seeding=tournament.seeding,
               rng_seed=tournament.rng_seed, order=order)
    announce(tournament)
    return order


@transaction.atomic
def start(*, tournament_id: int, actor: Any = None) -> Tournament:
    """Start this one tournament (see :func:`tournament_start`)."""
    tournament = locked(tournament_id)
    require_director(actor, tournament)
    if not tournament.accepts_entries:
        raise TournamentError("bad_status",
                              _("Start the tournament from registration or check-in."))
    check_configuration(tournament)
    now = timezone.now()
    entries = list(tournament.entries.filter(status=EntryStatus.ACTIVE).select_related("player"))
    if tournament.status == TournamentStatus.CHECK_IN:
        absent = [entry for entry in entries if not entry.checked_in]
        for entry in absent:
            entry.status, entry.left_at = EntryStatus.WITHDRAWN, now
            entry.save(update_fields=["status", "left_at"])
            log_action(tournament, "withdrawn", actor=actor, reason="did not check in",
                       player=entry.player.display_name)
        entries = [entry for entry in entries if entry.checked_in]
    if len(entries) < 2:
        raise TournamentError("too_few_entrants", _("A tournament needs at least two players."))
    fmt = format_for(tournament)
    order = _draw(tournament, entries, new_random=False)
    _write_seeds(tournament, order)
    try:
        initial = fmt.start(order)
    except formats.PairingError as error:
        raise TournamentError(error.code, _(error.template) % error.params) from error
    rounds: dict[tuple[str, int], Round] = {}
    for index, pairing in enumerate(initial):
        store_pairing(tournament, pairing, order=index, rounds=rounds)
    tournament.status = TournamentStatus.RUNNING
    tournament.started_at = now
    tournament.save(update_fields=["status", "started_at", "rng_seed"])
    log_action(tournament, "started", actor=actor, format=tournament.format,
               options=tournament.format_options, seeding=tournament.seeding,
               rng_seed=tournament.rng_seed, order=order)
    advance(tournament, release=True, actor=actor)
    announce(tournament)
    return tournament




@transaction.atomic
def tournament_pair_next_round(*, tournament_id: int, actor: Any = None) -> int:
    """Pair the next round (Swiss, round robin) and start every match that can start; also
    picks up any finished match not recorded yet. Returns how many pairings were opened."""
    tournament = locked(tournament_id)
    require_director(actor, tournament)
    if tournament.status != TournamentStatus.RUNNING:
        raise TournamentError("not_running", _("The tournament is not running."))
    before = tournament.pairings.filter(status__gte=PairingStatus.PAIRED).count()
    reconcile_finished_matches(tournament)
    tournament.refresh_from_db()
    if tournament.status != TournamentStatus.RUNNING:
        return 0
    fmt = format_for(tournament)
    state = format_state(tournament)
    pending = [p for p in fmt.next_pairings(state) if p.is_playable]
    open_slots = set(tournament.pairings.filter(status=PairingStatus.PAIRED)
                     .values_list("slot", flat=True))
    if not tournament.is_elimination and any(p.slot in open_slots for p in pending):
        raise TournamentError("round_not_complete",
                              _("The current round still has matches to play."))
    advance(tournament, release=True, actor=actor)
    opened = tournament.pairings.filter(status__gte=PairingStatus.PAIRED).count() - before
    log_action(tournament, "pair_next_round", actor=actor, opened=opened,
               round=tournament.current_round)
    announce(tournament)
    return opened

