"""Every change to a tournament goes through these functions.

The admin, pages, API, Celery tasks and the ``match_finished`` receiver are thin callers.
Writes lock the tournament row (``select_for_update``), change the rows, append to the
:class:`~tournaments.models.TournamentLog`, let the format say what happens next
(:func:`_advance`) and tell open pages after commit.

Lock order, everywhere: match → table → tournament (the match-play finisher holds the match
and tells us through ``match_finished``). A service here that must end a live match (a
withdrawal, an override) calls :mod:`matches.services` *before* locking the tournament.

Rules chosen here (see the issue note):

- Withdrawn or disqualified players stay in the draw: every pairing of theirs still to be
  played is lost by forfeit (a live match through :func:`matches.services.match_forfeit`).
  If both players of a pairing are out, the better seed goes through.
- No-show: a paired player who has not sat down within ``no_show_minutes`` of the pairing
  loses by forfeit. If neither sat down, the better seed goes through (so the bracket keeps
  moving) and the log says so; the director can override that result.
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import Iterable
from datetime import datetime, timedelta
from typing import Any

from django.db import transaction
from django.db.models import ProtectedError, Q
from django.utils import timezone

from matches import services as match_services
from matches.broadcast import broadcast_on_commit
from matches.models import Match, MatchStatus, Player, Table
from matches.services import ServiceError
from tournaments import formats
from tournaments.models import (
    Entry,
    EntryStatus,
    Pairing,
    PairingStatus,
    ResultSource,
    Round,
    SeedingMethod,
    Tournament,
    TournamentLog,
    TournamentStatus,
)
from tournaments.selectors import (
    can_direct,
    format_of,
    format_state,
    is_referee,
    tournament_group,
)

logger = logging.getLogger(__name__)


class TournamentError(ServiceError):
    """A refused request: ``code`` is stable for programs, ``detail`` is for people."""


# -- helpers -------------------------------------------------------------------------------


def _locked(tournament_id: int) -> Tournament:
    try:
        return Tournament.objects.select_for_update().get(pk=tournament_id)
    except Tournament.DoesNotExist:
        raise TournamentError("not_found", f"There is no tournament {tournament_id}.") from None


def _format(tournament: Tournament) -> formats.Format:
    try:
        return format_of(tournament)
    except formats.PairingError as error:
        raise TournamentError(error.code, str(error)) from error


def _user(actor: Any) -> Any:
    return actor if actor is not None and getattr(actor, "is_authenticated", False) else None


def _log(tournament: Tournament, action: str, *, actor: Any = None, pairing: Pairing | None = None,
         reason: str = "", **data: Any) -> TournamentLog:
    return TournamentLog.objects.create(
        tournament=tournament, pairing=pairing, actor=_user(actor), action=action,
        reason=reason, data=data,
    )


def _announce(tournament: Tournament) -> None:
    broadcast_on_commit(
        tournament_group(tournament.pk),
        {"type": "tournament.changed", "tournament_id": tournament.pk},
    )


def _require_director(actor: Any, tournament: Tournament) -> None:
    if actor is not None and not can_direct(actor, tournament):
        raise TournamentError("forbidden", "Only the tournament's director may do that.")


def _require_referee(actor: Any, tournament: Tournament) -> None:
    if not is_referee(actor, tournament):
        raise TournamentError("forbidden", "Only a referee or the director may do that.")


def _check_configuration(tournament: Tournament) -> None:
    _format(tournament)
    lengths = tournament.match_lengths
    if not isinstance(lengths, list) or not lengths or not all(
        isinstance(n, int) and not isinstance(n, bool) and 1 <= n <= 99 for n in lengths
    ):
        raise TournamentError(
            "bad_match_lengths", "Match lengths must be a list of 1 to 99 points, e.g. [3, 5]."
        )


# -- lifecycle -----------------------------------------------------------------------------


@transaction.atomic
def tournament_open_registration(*, tournament_id: int, actor: Any = None) -> Tournament:
    """Draft → registration: players may enter. Checks the format and its options."""
    tournament = _locked(tournament_id)
    _require_director(actor, tournament)
    if tournament.status != TournamentStatus.DRAFT:
        raise TournamentError("bad_status", "Registration can be opened only from a draft.")
    _check_configuration(tournament)
    tournament.status = TournamentStatus.REGISTRATION
    tournament.save(update_fields=["status"])
    _log(tournament, "registration_opened", actor=actor)
    _announce(tournament)
    return tournament


@transaction.atomic
def tournament_open_check_in(*, tournament_id: int, actor: Any = None) -> Tournament:
    """Registration → check-in: at the start, entries that did not check in are dropped."""
    tournament = _locked(tournament_id)
    _require_director(actor, tournament)
    if tournament.status != TournamentStatus.REGISTRATION:
        raise TournamentError("bad_status", "Check-in follows registration.")
    tournament.status = TournamentStatus.CHECK_IN
    tournament.save(update_fields=["status"])
    _log(tournament, "check_in_opened", actor=actor)
    _announce(tournament)
    return tournament


@transaction.atomic
def entry_register(*, tournament_id: int, player: Player, actor: Any = None) -> Entry:
    """Enter ``player`` (again, after a withdrawal). During check-in, entering checks in."""
    tournament = _locked(tournament_id)
    if not tournament.accepts_entries:
        raise TournamentError("registration_closed", "Registration is not open.")
    entry = Entry.objects.filter(tournament=tournament, player=player).first()
    if entry is not None and entry.status == EntryStatus.DISQUALIFIED:
        raise TournamentError("disqualified", "You were disqualified from this tournament.")
    if entry is not None and entry.is_active:
        raise TournamentError("already_registered", "You are already registered.")
    active = tournament.entries.filter(status=EntryStatus.ACTIVE).count()
    if tournament.max_entries is not None and active >= tournament.max_entries:
        raise TournamentError("tournament_full", "The tournament is full.")
    checked_in = tournament.status == TournamentStatus.CHECK_IN
    if entry is None:
        entry = Entry.objects.create(tournament=tournament, player=player, checked_in=checked_in)
    else:
        entry.status, entry.left_at, entry.checked_in = EntryStatus.ACTIVE, None, checked_in
        entry.save(update_fields=["status", "left_at", "checked_in"])
    _log(tournament, "registered", actor=actor or player.user, player=player.display_name,
         entry=entry.pk)
    _announce(tournament)
    return entry


@transaction.atomic
def entry_check_in(*, tournament_id: int, player: Player) -> Entry:
    tournament = _locked(tournament_id)
    if not tournament.accepts_entries:
        raise TournamentError("check_in_closed", "Check-in is not open.")
    entry = Entry.objects.filter(tournament=tournament, player=player,
                                 status=EntryStatus.ACTIVE).first()
    if entry is None:
        raise TournamentError("not_registered", "Register first.")
    if not entry.checked_in:
        entry.checked_in = True
        entry.save(update_fields=["checked_in"])
        _log(tournament, "checked_in", actor=player.user, player=player.display_name)
        _announce(tournament)
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
        raise TournamentError(error.code, str(error)) from error


def _write_seeds(tournament: Tournament, order: list[int]) -> None:
    tournament.entries.exclude(pk__in=order).update(seed=None)
    for seed, entry_id in enumerate(order, start=1):
        Entry.objects.filter(pk=entry_id).update(seed=seed)


@transaction.atomic
def tournament_reseed(*, tournament_id: int, actor: Any = None) -> list[int]:
    """Before the start: draw the seeds again (a new random seed value for a random draw)
    and show them on the entries. The start keeps this draw."""
    tournament = _locked(tournament_id)
    _require_director(actor, tournament)
    if tournament.has_started:
        raise TournamentError("already_started", "Seeds can be changed only before the start.")
    entries = list(tournament.entries.filter(status=EntryStatus.ACTIVE).select_related("player"))
    order = _draw(tournament, entries, new_random=True)
    tournament.save(update_fields=["rng_seed"])
    _write_seeds(tournament, order)
    _log(tournament, "reseeded", actor=actor, seeding=tournament.seeding,
         rng_seed=tournament.rng_seed, order=order)
    _announce(tournament)
    return order


@transaction.atomic
def tournament_start(*, tournament_id: int, actor: Any = None) -> Tournament:
    """Make the draw, store the format's pairings and start the first matches.

    From registration or check-in (then entries that did not check in are withdrawn).
    Raises :class:`TournamentError` with ``bad_status``, ``too_few_entrants`` or the
    format's own code.
    """
    tournament = _locked(tournament_id)
    _require_director(actor, tournament)
    if not tournament.accepts_entries:
        raise TournamentError("bad_status", "Start the tournament from registration or check-in.")
    _check_configuration(tournament)
    now = timezone.now()
    entries = list(tournament.entries.filter(status=EntryStatus.ACTIVE).select_related("player"))
    if tournament.status == TournamentStatus.CHECK_IN:
        absent = [entry for entry in entries if not entry.checked_in]
        for entry in absent:
            entry.status, entry.left_at = EntryStatus.WITHDRAWN, now
            entry.save(update_fields=["status", "left_at"])
            _log(tournament, "withdrawn", actor=actor, reason="did not check in",
                 player=entry.player.display_name)
        entries = [entry for entry in entries if entry.checked_in]
    if len(entries) < 2:
        raise TournamentError("too_few_entrants", "A tournament needs at least two players.")
    fmt = _format(tournament)
    order = _draw(tournament, entries, new_random=False)
    _write_seeds(tournament, order)
    try:
        initial = fmt.start(order)
    except formats.PairingError as error:
        raise TournamentError(error.code, str(error)) from error
    rounds: dict[tuple[str, int], Round] = {}
    for index, pairing in enumerate(initial):
        _store_pairing(tournament, pairing, order=index, rounds=rounds)
    tournament.status = TournamentStatus.RUNNING
    tournament.started_at = now
    tournament.save(update_fields=["status", "started_at", "rng_seed"])
    _log(tournament, "started", actor=actor, format=tournament.format,
         options=tournament.format_options, seeding=tournament.seeding,
         rng_seed=tournament.rng_seed, order=order)
    _advance(tournament, release=True, actor=actor)
    _announce(tournament)
    return tournament


# -- advancing: the format decides, this maps its answer to rows -----------------------------


def _round_row(tournament: Tournament, bracket: str, number: int,
               rounds: dict[tuple[str, int], Round]) -> Round:
    key = (bracket, number)
    if key not in rounds:
        rounds[key], _created = Round.objects.get_or_create(
            tournament=tournament, bracket=bracket, number=number,
            defaults={"match_length": tournament.match_length_for(bracket, number)},
        )
    return rounds[key]


def _entry_id(side: formats.Side) -> int | None:
    return side if isinstance(side, int) and not isinstance(side, bool) else None


def _store_pairing(tournament: Tournament, pairing: formats.Pairing, *, order: int,
                   rounds: dict[tuple[str, int], Round]) -> Pairing:
    return Pairing.objects.create(
        tournament=tournament,
        slot=pairing.slot,
        round=_round_row(tournament, pairing.bracket.value, pairing.round, rounds),
        order=order,
        side_a=formats.side_notation(pairing.a),
        side_b=formats.side_notation(pairing.b),
        entry_a_id=_entry_id(pairing.a),
        entry_b_id=_entry_id(pairing.b),
    )


def _set_sides(row: Pairing, pairing: formats.Pairing) -> bool:
    """Write the format's sides onto ``row``; True if anything changed (caller saves)."""
    sides = (formats.side_notation(pairing.a), formats.side_notation(pairing.b))
    if (row.side_a, row.side_b) == sides:
        return False
    row.side_a, row.side_b = sides
    row.entry_a_id, row.entry_b_id = _entry_id(pairing.a), _entry_id(pairing.b)
    return True


def _advance(tournament: Tournament, *, release: bool = False, actor: Any = None) -> None:
    """Store what the format says now, start every match whose players are known, and
    finish the tournament when the format says so. Caller holds the tournament lock.

    Swiss and round robin with ``auto_pair`` off start a new round only with ``release``
    (the director's "pair next round"), one round per call.
    """
    if tournament.status < TournamentStatus.RUNNING:
        return
    fmt = _format(tournament)
    gated = not tournament.auto_pair and not tournament.is_elimination
    release_up_to = tournament.current_round + (1 if release else 0)
    rounds: dict[tuple[str, int], Round] = {
        (r.bracket, r.number): r for r in tournament.rounds.all()
    }
    entries = {entry.pk: entry for entry in tournament.entries.select_related("player")}
    for _step in range(10_000):
        rows = list(tournament.pairings.select_related("round").order_by("order"))
        state = format_state(tournament, rows)
        try:
            ready = fmt.next_pairings(state)
            by_slot = {row.slot: row for row in rows}
            next_order = max((row.order for row in rows), default=-1) + 1
            if gated:
                ready = [p for p in ready if p.round <= release_up_to]
            for pairing in ready:
                if pairing.slot not in by_slot:
                    by_slot[pairing.slot] = _store_pairing(
                        tournament, pairing, order=next_order, rounds=rounds)
                    next_order += 1
            state = format_state(tournament, list(by_slot.values()))
            resolved = fmt.resolved_pairings(state)
        except formats.PairingError as error:
            raise TournamentError(error.code, str(error)) from error
        to_open = {pairing.slot for pairing in ready if pairing.is_playable}
        decided_any = False
        for pairing in resolved:
            row = by_slot.get(pairing.slot)
            if row is None:
                continue
            changed = _set_sides(row, pairing)
            if row.status == PairingStatus.WAITING:
                if pairing.is_void:
                    row.status = PairingStatus.VOID
                    changed = True
                elif pairing.is_bye and pairing.is_known:
                    row.status = PairingStatus.BYE
                    row.winner_id = row.entry_a_id or row.entry_b_id
                    row.result_source = ResultSource.BYE
                    row.decided_at = timezone.now()
                    changed = True
                elif pairing.slot in to_open:
                    if changed:
                        row.save()
                        changed = False
                    decided_any |= _open(tournament, row, entries)
                    number = row.round.number
                    if number > tournament.current_round and not tournament.is_elimination:
                        tournament.current_round = number
                        tournament.save(update_fields=["current_round"])
            if changed:
                row.save()
        if not decided_any:
            break
    _finish_if_done(tournament, fmt, actor=actor)


def _open(tournament: Tournament, row: Pairing, entries: dict[int, Entry]) -> bool:
    """Start a pairing whose two players are known: a table reserved for them (or nothing
    over the board). A pairing with a withdrawn player is decided at once; returns True then.
    """
    now = timezone.now()
    assert row.entry_a_id is not None and row.entry_b_id is not None
    a, b = entries[row.entry_a_id], entries[row.entry_b_id]
    row.status, row.paired_at = PairingStatus.PAIRED, now
    if not (a.is_active and b.is_active):
        if a.is_active or b.is_active:
            winner = a if a.is_active else b
            reason = f"{(b if winner is a else a).player} is out of the tournament"
        else:
            winner = a if (a.seed or 0) <= (b.seed or 0) else b
            reason = "both players are out of the tournament: the better seed goes through"
        _decide(tournament, row, winner, ResultSource.FORFEIT, reason=reason)
        return True
    if not tournament.over_the_board:
        table = match_services.table_create(
            name=f"{tournament.name} · {row.slot}"[:80],
            match_length=row.round.match_length,
            **tournament.table_rules(),
        )
        Table.objects.filter(pk=table.pk).update(reserved0=a.player, reserved1=b.player)
        row.table = table
    row.save()
    _log(tournament, "paired", pairing=row, slot=row.slot, a=str(a.player), b=str(b.player),
         table=row.table_id)
    return False


def _decide(tournament: Tournament, row: Pairing, winner: Entry, source: str, *,
            winner_points: int | None = None, loser_points: int | None = None,
            actor: Any = None, reason: str = "") -> None:
    """Record ``winner`` as the result of ``row`` (one of its two players). Caller holds the
    tournament lock and advances the tournament afterwards."""
    loser_id = row.entry_b_id if winner.pk == row.entry_a_id else row.entry_a_id
    if winner.pk not in (row.entry_a_id, row.entry_b_id) or loser_id is None:
        raise TournamentError("bad_result", "The winner must be one of the pairing's players.")
    previous = row.winner_id if row.status == PairingStatus.DECIDED else None
    row.status = PairingStatus.DECIDED
    row.winner_id, row.loser_id = winner.pk, loser_id
    row.winner_points, row.loser_points = winner_points, loser_points
    row.result_source = source
    row.decided_at = timezone.now()
    row.save()
    _log(tournament, "result", actor=actor, pairing=row, reason=reason, slot=row.slot,
         winner=str(winner.player), winner_entry=winner.pk, loser_entry=loser_id,
         score=[winner_points, loser_points], source=source, previous_winner_entry=previous)


def _finish_if_done(tournament: Tournament, fmt: formats.Format, *, actor: Any) -> None:
    state = format_state(tournament)
    if not fmt.is_finished(state):
        if tournament.status == TournamentStatus.FINISHED:  # a correction reopened it
            tournament.status, tournament.champion, tournament.finished_at = (
                TournamentStatus.RUNNING, None, None)
            tournament.save(update_fields=["status", "champion", "finished_at"])
        return
    champion_id = fmt.champion(state)
    if tournament.status == TournamentStatus.FINISHED and tournament.champion_id == champion_id:
        return
    tournament.status = TournamentStatus.FINISHED
    tournament.champion_id = champion_id
    tournament.finished_at = tournament.finished_at or timezone.now()
    tournament.save(update_fields=["status", "champion", "finished_at"])
    champion = (Entry.objects.select_related("player").filter(pk=champion_id).first()
                if champion_id is not None else None)
    _log(tournament, "finished", actor=actor, champion=str(champion.player) if champion else None)


def _close_table(row: Pairing) -> None:
    """The pairing is decided without a match at its table: take the table away, unless a
    match was played there (then leave it for the record)."""
    if row.table_id is None:
        return
    table = Table.objects.select_for_update().get(pk=row.table_id)
    if table.matches.exists():
        return
    try:
        with transaction.atomic():
            table.delete()
    except ProtectedError:
        Table.objects.filter(pk=table.pk).update(seat0=None, seat1=None)
        return
    row.table = None
    row.save(update_fields=["table"])


# -- results of matches played online ------------------------------------------------------


def on_match_finished(sender: Any, match: Match, **kwargs: Any) -> None:
    """``matches.signals.match_finished`` receiver: the result flows into the bracket.

    Runs inside the finisher's transaction, in a savepoint: a tournament problem is logged
    and never undoes the move that ended the match (the director's "pair next round" picks
    the result up again).
    """
    if not Pairing.objects.filter(table_id=match.table_id).exists():
        return
    try:
        with transaction.atomic():
            pairing_record_match(match=match)
    except Exception:
        logger.exception("tournament could not record match %s", match.pk)


def pairing_record_match(*, match: Match) -> Pairing | None:
    """Record the finished ``match`` as its pairing's result and advance the tournament."""
    row = Pairing.objects.filter(table_id=match.table_id).only("tournament_id").first()
    if row is None:
        return None
    with transaction.atomic():
        tournament = _locked(row.tournament_id)
        row = Pairing.objects.select_related("entry_a__player", "entry_b__player").get(pk=row.pk)
        if row.match_id is None:
            row.match = match
            row.save(update_fields=["match"])
        if row.status != PairingStatus.PAIRED or tournament.status != TournamentStatus.RUNNING:
            return row
        if match.winner_id is None or match.status < MatchStatus.FINISHED:
            return row
        if match.status == MatchStatus.VOIDED:
            return row
        winner = row.entry_a if row.entry_a and row.entry_a.player_id == match.winner_id \
            else row.entry_b
        assert winner is not None and row.entry_a is not None
        winner_score = match.score0 if match.winner_id == match.player0_id else match.score1
        loser_score = match.score1 if match.winner_id == match.player0_id else match.score0
        source = {
            MatchStatus.FORFEITED: ResultSource.FORFEIT,
            MatchStatus.ADJUDICATED: ResultSource.REFEREE,
        }.get(MatchStatus(match.status), ResultSource.MATCH)
        _decide(tournament, row, winner, source, winner_points=winner_score,
                loser_points=loser_score, reason=f"match {match.pk}")
        _advance(tournament)
        _announce(tournament)
        return row


def _reconcile_finished_matches(tournament: Tournament) -> int:
    """Record matches that finished at the tournament's tables without being recorded (a
    receiver that failed). Caller holds the tournament lock."""
    recorded = 0
    for row in tournament.pairings.filter(status=PairingStatus.PAIRED, table__isnull=False):
        match = (Match.objects.filter(table=row.table, winner__isnull=False,
                                      status__gte=MatchStatus.FINISHED)
                 .exclude(status=MatchStatus.VOIDED).order_by("-pk").first())
        if match is not None:
            pairing_record_match(match=match)
            recorded += 1
    return recorded


# -- director actions ------------------------------------------------------------------------


@transaction.atomic
def tournament_pair_next_round(*, tournament_id: int, actor: Any = None) -> int:
    """Pair the next round (Swiss, round robin) and start every match that can start; also
    picks up any finished match not recorded yet. Returns how many pairings were opened."""
    tournament = _locked(tournament_id)
    _require_director(actor, tournament)
    if tournament.status != TournamentStatus.RUNNING:
        raise TournamentError("not_running", "The tournament is not running.")
    before = tournament.pairings.filter(status__gte=PairingStatus.PAIRED).count()
    _reconcile_finished_matches(tournament)
    tournament.refresh_from_db()
    if tournament.status != TournamentStatus.RUNNING:
        return 0
    fmt = _format(tournament)
    state = format_state(tournament)
    pending = [p for p in fmt.next_pairings(state) if p.is_playable]
    open_slots = set(tournament.pairings.filter(status=PairingStatus.PAIRED)
                     .values_list("slot", flat=True))
    if not tournament.is_elimination and any(p.slot in open_slots for p in pending):
        raise TournamentError("round_not_complete",
                              "The current round still has matches to play.")
    _advance(tournament, release=True, actor=actor)
    opened = tournament.pairings.filter(status__gte=PairingStatus.PAIRED).count() - before
    _log(tournament, "pair_next_round", actor=actor, opened=opened,
         round=tournament.current_round)
    _announce(tournament)
    return opened


def _live_match(row: Pairing) -> Match | None:
    if row.table_id is None:
        return None
    return Match.objects.filter(table_id=row.table_id, status=MatchStatus.PLAYING).first()


def entry_withdraw(*, entry_id: int, actor: Any = None, reason: str = "",
                   disqualify: bool = False) -> Entry:
    """Withdraw (or disqualify) an entry. Before the start it just leaves the list; once
    running, every pairing of theirs still to be played is lost by forfeit, a live match
    through :func:`matches.services.match_forfeit`."""
    entry = Entry.objects.select_related("player", "tournament").get(pk=entry_id)
    tournament = entry.tournament
    if disqualify:
        _require_director(actor, tournament)
        if not (reason or "").strip():
            raise TournamentError("reason_required", "A disqualification needs a reason.")
    elif actor is not None and _user(actor) != entry.player.user and not can_direct(actor,
                                                                                     tournament):
        raise TournamentError("forbidden", "Only the player or the director may withdraw them.")
    with transaction.atomic():
        tournament = _locked(tournament.pk)
        entry.refresh_from_db()
        if tournament.status == TournamentStatus.FINISHED:
            raise TournamentError("finished", "The tournament is over.")
        if entry.status == EntryStatus.DISQUALIFIED or (entry.status == EntryStatus.WITHDRAWN
                                                        and not disqualify):
            raise TournamentError("not_active", "This entry is no longer in the tournament.")
        entry.status = EntryStatus.DISQUALIFIED if disqualify else EntryStatus.WITHDRAWN
        entry.left_at = timezone.now()
        entry.save(update_fields=["status", "left_at"])
        _log(tournament, "disqualified" if disqualify else "withdrawn", actor=actor,
             reason=reason, player=entry.player.display_name, entry=entry.pk)
        _announce(tournament)
        running = tournament.status == TournamentStatus.RUNNING
    if not running:
        return entry
    # Live matches first, without the tournament lock (lock order: match → tournament); the
    # finisher's match_finished records each forfeit.
    open_rows = list(Pairing.objects.filter(
        Q(entry_a=entry) | Q(entry_b=entry), status=PairingStatus.PAIRED))
    for row in open_rows:
        live = _live_match(row)
        if live is not None:
            try:
                match_services.match_forfeit(
                    match_id=live.pk, loser=entry.player,
                    reason=f"{'disqualified' if disqualify else 'withdrew'}: {reason}".strip(),
                    actor=_user(actor),
                )
            except ServiceError as error:
                if error.code != "match_over":
                    raise
    with transaction.atomic():
        tournament = _locked(tournament.pk)
        rows = Pairing.objects.filter(Q(entry_a=entry) | Q(entry_b=entry),
                                      status=PairingStatus.PAIRED).select_related(
            "entry_a__player", "entry_b__player")
        for row in rows:
            live = _live_match(row)
            if live is not None:  # started in between: forfeit it (its receiver records it)
                match_services.match_forfeit(match_id=live.pk, loser=entry.player,
                                             reason="withdrew", actor=_user(actor))
                continue
            assert row.entry_a is not None and row.entry_b is not None
            winner = row.entry_b if row.entry_a_id == entry.pk else row.entry_a
            _decide(tournament, row, winner, ResultSource.FORFEIT, actor=actor,
                    reason=f"{entry.player} is out of the tournament")
            _close_table(row)
        tournament.refresh_from_db()
        _advance(tournament, actor=actor)
        _announce(tournament)
    entry.refresh_from_db()
    return entry


def player_withdraw(*, tournament_id: int, player: Player, reason: str = "") -> Entry:
    """A player withdraws themselves (site or API)."""
    entry = Entry.objects.filter(tournament_id=tournament_id, player=player).first()
    if entry is None:
        raise TournamentError("not_registered", "You are not registered.")
    return entry_withdraw(entry_id=entry.pk, actor=player.user, reason=reason or "withdrew")


def pairing_override(*, pairing_id: int, actor: Any, winner_entry_id: int, reason: str,
                     winner_points: int | None = None,
                     loser_points: int | None = None) -> Pairing:
    """The director (or a referee) sets or corrects a pairing's result, with a reason.

    A live match is awarded through :func:`matches.services.match_adjudicate`. Correcting a
    decided result is refused if a later match already depends on it and has a result or
    a match in progress; a later pairing only paired (nobody playing yet) is re-paired.
    """
    reason = (reason or "").strip()
    if not reason:
        raise TournamentError("reason_required", "An override needs a written reason.")
    row = Pairing.objects.select_related("tournament", "entry_a__player",
                                         "entry_b__player").get(pk=pairing_id)
    _require_referee(actor, row.tournament)
    winner = next((e for e in row.entries() if e.pk == winner_entry_id), None)
    if winner is None:
        raise TournamentError("bad_result", "The winner must be one of the pairing's players.")
    live = _live_match(row) if row.status == PairingStatus.PAIRED else None
    if live is not None:
        match_services.match_adjudicate(match_id=live.pk, referee=_user(actor),
                                        winner=winner.player, scope="match", reason=reason)
    with transaction.atomic():
        tournament = _locked(row.tournament_id)
        row = Pairing.objects.select_related("round", "entry_a__player",
                                             "entry_b__player").get(pk=pairing_id)
        if row.status not in (PairingStatus.PAIRED, PairingStatus.DECIDED):
            raise TournamentError("not_playable", "This pairing has no players to decide.")
        if row.status == PairingStatus.DECIDED and live is None:
            for stale in _check_correction(tournament, row, winner):
                _log(tournament, "result_cleared", actor=actor, pairing=stale,
                     reason="decided again after a correction", slot=stale.slot,
                     winner_entry=stale.winner_id)
                stale.status = PairingStatus.WAITING
                stale.winner = stale.loser = None
                stale.winner_points = stale.loser_points = None
                stale.result_source, stale.decided_at = "", None
                stale.save()
        _decide(tournament, row, winner, ResultSource.OVERRIDE, winner_points=winner_points,
                loser_points=loser_points, actor=actor, reason=reason)
        _close_table(row)
        _repair_dependents(tournament)
        _advance(tournament, actor=actor)
        _announce(tournament)
        return row


def _check_correction(tournament: Tournament, row: Pairing, winner: Entry) -> list[Pairing]:
    """Refuse to change a decided result that a later result or a started match relies on.

    Later results that were automatic forfeits (a withdrawn player, no match played) do not
    block a correction: they are returned, to be decided again with the right players.
    """
    fmt = _format(tournament)
    rows = list(tournament.pairings.select_related("round").order_by("order"))
    state = format_state(tournament, rows)
    loser_id = row.entry_b_id if winner.pk == row.entry_a_id else row.entry_a_id
    assert loser_id is not None
    corrected = formats.Result(row.slot, winner.pk, loser_id)
    by_slot = {r.slot: r for r in state.results}
    by_slot[row.slot] = corrected
    redo: list[Pairing] = []
    accepted: list[formats.Result] = []
    # Swiss and round robin results never decide who plays whom in a stored pairing; an
    # elimination bracket is checked slot by slot in layout (dependency) order.
    candidates = [r for r in rows if r.slot in by_slot] if tournament.is_elimination else []
    for stored in candidates:
        trial = [*accepted, by_slot[stored.slot]]
        try:
            fmt.resolved_pairings(formats.TournamentState(state.seeds, state.pairings, trial))
        except formats.PairingError as error:
            automatic = (stored.result_source == ResultSource.FORFEIT
                         and stored.match_id is None and stored.slot != row.slot)
            if not automatic:
                raise TournamentError(
                    "depends", f"{stored.slot} already has a result that depends on this one: "
                    "correct that one first.") from error
            redo.append(stored)
            continue
        accepted = trial
    if not tournament.is_elimination:
        accepted = list(by_slot.values())
    try:
        resolved = fmt.resolved_pairings(formats.TournamentState(state.seeds, state.pairings,
                                                                 accepted))
    except formats.PairingError as error:
        raise TournamentError("depends", str(error)) from error
    stored_by_slot = {r.slot: r for r in rows}
    for pairing in resolved:
        stored = stored_by_slot[pairing.slot]
        sides = (formats.side_notation(pairing.a), formats.side_notation(pairing.b))
        if (sides != (stored.side_a, stored.side_b) and stored.status == PairingStatus.PAIRED
                and stored.table_id is not None
                and Match.objects.filter(table=stored.table).exists()):
            raise TournamentError(
                "depends", f"{stored.slot} is already being played with the old result.")
    return redo


def _repair_dependents(tournament: Tournament) -> None:
    """After a correction: pairings whose players changed go back to waiting (their table,
    where nobody played, is closed) so that :func:`_advance` pairs them again."""
    fmt = _format(tournament)
    rows = {r.slot: r for r in tournament.pairings.select_related("round")}
    for pairing in fmt.resolved_pairings(format_state(tournament, list(rows.values()))):
        stored = rows[pairing.slot]
        sides = (formats.side_notation(pairing.a), formats.side_notation(pairing.b))
        if sides == (stored.side_a, stored.side_b):
            continue
        if stored.status == PairingStatus.VOID:
            stored.status = PairingStatus.WAITING
        if stored.status == PairingStatus.PAIRED:
            _close_table(stored)
            stored.status, stored.paired_at = PairingStatus.WAITING, None
            _log(tournament, "repaired", pairing=stored, slot=stored.slot)
        _set_sides(stored, pairing)
        stored.save()


# -- over the board ----------------------------------------------------------------------------


def _otb_row(pairing_id: int) -> tuple[Tournament, Pairing]:
    row = Pairing.objects.only("tournament_id").get(pk=pairing_id)
    tournament = _locked(row.tournament_id)
    row = Pairing.objects.select_related("round", "entry_a__player", "entry_b__player",
                                         "reported_winner__player").get(pk=pairing_id)
    if row.status != PairingStatus.PAIRED or tournament.status != TournamentStatus.RUNNING:
        raise TournamentError("not_open", "This pairing is not waiting for a result.")
    if row.table_id is not None and Match.objects.filter(table_id=row.table_id).exists():
        raise TournamentError("played_online", "This match is played online at its table.")
    return tournament, row


def _check_points(winner_points: int | None, loser_points: int | None, length: int) -> None:
    if winner_points is None and loser_points is None:
        return
    if winner_points is None or loser_points is None or not (
        0 <= loser_points < winner_points <= 2 * length + 10
    ):
        raise TournamentError("bad_score", "The winner's score must be higher than the loser's.")


@transaction.atomic
def pairing_report(*, pairing_id: int, user: Any, winner_entry_id: int,
                   winner_points: int | None = None,
                   loser_points: int | None = None) -> Pairing:
    """The winner of a match played over the board reports the score; the opponent or a
    referee confirms it (:func:`pairing_confirm`)."""
    tournament, row = _otb_row(pairing_id)
    winner = next((e for e in row.entries() if e.pk == winner_entry_id), None)
    if winner is None:
        raise TournamentError("bad_result", "The winner must be one of the pairing's players.")
    if _user(user) is None or winner.player.user_id != user.pk:
        raise TournamentError("not_the_winner", "The winner reports the result.")
    _check_points(winner_points, loser_points, row.round.match_length)
    row.reported_by = user
    row.reported_winner = winner
    row.reported_winner_points, row.reported_loser_points = winner_points, loser_points
    row.reported_at = timezone.now()
    row.save()
    _log(tournament, "reported", actor=user, pairing=row, slot=row.slot,
         winner=str(winner.player), score=[winner_points, loser_points])
    _announce(tournament)
    return row


@transaction.atomic
def pairing_confirm(*, pairing_id: int, user: Any) -> Pairing:
    """The opponent or a referee confirms a report; the reporter cannot confirm their own."""
    tournament, row = _otb_row(pairing_id)
    if row.reported_by_id is None or row.reported_winner is None:
        raise TournamentError("no_report", "Nothing has been reported yet.")
    if _user(user) is None or user.pk == row.reported_by_id:
        raise TournamentError("own_report", "The reporter cannot confirm their own report.")
    opponent = next(e for e in row.entries() if e.pk != row.reported_winner_id)
    if opponent.player.user_id != user.pk and not is_referee(user, tournament):
        raise TournamentError("forbidden", "Only the opponent or a referee can confirm.")
    row.confirmed_by, row.confirmed_at = user, timezone.now()
    _decide(tournament, row, row.reported_winner, ResultSource.REPORT,
            winner_points=row.reported_winner_points, loser_points=row.reported_loser_points,
            actor=user, reason="report confirmed")
    _close_table(row)
    _advance(tournament, actor=user)
    _announce(tournament)
    return row


@transaction.atomic
def pairing_reject_report(*, pairing_id: int, user: Any, reason: str = "") -> Pairing:
    """The opponent or a referee rejects a report: it is cleared (and logged)."""
    tournament, row = _otb_row(pairing_id)
    if row.reported_by_id is None:
        raise TournamentError("no_report", "Nothing has been reported yet.")
    opponent = next(e for e in row.entries() if e.pk != row.reported_winner_id)
    if opponent.player.user_id != getattr(user, "pk", None) and not is_referee(user, tournament):
        raise TournamentError("forbidden", "Only the opponent or a referee can reject it.")
    _log(tournament, "report_rejected", actor=user, pairing=row, reason=reason, slot=row.slot)
    row.reported_by = row.reported_winner = None
    row.reported_winner_points = row.reported_loser_points = None
    row.reported_at = None
    row.save()
    _announce(tournament)
    return row


@transaction.atomic
def pairing_enter_result(*, pairing_id: int, referee: Any, winner_entry_id: int,
                         winner_points: int | None = None, loser_points: int | None = None,
                         reason: str = "") -> Pairing:
    """A referee enters the result of a match played over the board directly."""
    tournament, row = _otb_row(pairing_id)
    _require_referee(referee, tournament)
    winner = next((e for e in row.entries() if e.pk == winner_entry_id), None)
    if winner is None:
        raise TournamentError("bad_result", "The winner must be one of the pairing's players.")
    _check_points(winner_points, loser_points, row.round.match_length)
    row.confirmed_by, row.confirmed_at = referee, timezone.now()
    _decide(tournament, row, winner, ResultSource.REFEREE, winner_points=winner_points,
            loser_points=loser_points, actor=referee, reason=reason or "entered by a referee")
    _close_table(row)
    _advance(tournament, actor=referee)
    _announce(tournament)
    return row


# -- no-shows ----------------------------------------------------------------------------------


def no_show_due(now: datetime | None = None) -> list[int]:
    """Ids of online pairings whose no-show limit has passed with no match started."""
    now = now or timezone.now()
    rows = Pairing.objects.filter(
        status=PairingStatus.PAIRED, table__isnull=False, paired_at__isnull=False,
        tournament__status=TournamentStatus.RUNNING,
        tournament__no_show_minutes__isnull=False,
    ).values_list("pk", "paired_at", "tournament__no_show_minutes", "table_id")
    due = [(pk, table_id) for pk, paired_at, minutes, table_id in rows
           if paired_at is not None and minutes is not None
           and paired_at + timedelta(minutes=minutes) <= now]
    started = set(Match.objects.filter(table_id__in=[t for _, t in due])
                  .values_list("table_id", flat=True))
    return [pk for pk, table_id in due if table_id not in started]


def forfeit_no_shows(*, now: datetime | None = None) -> list[int]:
    """Forfeit every due no-show (see :func:`pairing_forfeit_no_show`); the ids decided."""
    now = now or timezone.now()
    return [pk for pk in no_show_due(now) if pairing_forfeit_no_show(pairing_id=pk, now=now)]


def pairing_forfeit_no_show(*, pairing_id: int, now: datetime | None = None) -> bool:
    """If the pairing's limit has passed and its match has not started, the player who did
    not sit down loses by forfeit (neither: the better seed goes through). Idempotent:
    re-checks everything under the locks; True when it decided the pairing."""
    now = now or timezone.now()
    row = Pairing.objects.filter(pk=pairing_id).only("tournament_id").first()
    if row is None:
        return False
    with transaction.atomic():
        tournament = _locked(row.tournament_id)
        row = Pairing.objects.select_related("entry_a__player", "entry_b__player").get(
            pk=pairing_id)
        limit = tournament.no_show_minutes
        if (row.status != PairingStatus.PAIRED or row.table_id is None or limit is None
                or tournament.status != TournamentStatus.RUNNING or row.paired_at is None
                or row.paired_at + timedelta(minutes=limit) > now):
            return False
        table = Table.objects.select_for_update().get(pk=row.table_id)
        if table.matches.exists():
            return False
        assert row.entry_a is not None and row.entry_b is not None
        seated = {table.seat0_id, table.seat1_id} - {None}
        present = [e for e in (row.entry_a, row.entry_b) if e.player_id in seated]
        if len(present) == 1:
            winner = present[0]
            absent = row.entry_b if winner == row.entry_a else row.entry_a
            reason = f"{absent.player} did not sit down within {limit} minutes"
        else:
            winner = min((row.entry_a, row.entry_b), key=lambda e: e.seed or 0)
            reason = (f"neither player sat down within {limit} minutes: "
                      "the better seed goes through")
        _decide(tournament, row, winner, ResultSource.NO_SHOW, reason=reason)
        Table.objects.filter(pk=table.pk).update(seat0=None, seat1=None)
        _close_table(row)
        _advance(tournament)
        _announce(tournament)
        return True


def entries_by_ids(tournament: Tournament, ids: Iterable[int]) -> list[Entry]:
    return list(tournament.entries.filter(pk__in=list(ids)).select_related("player"))
