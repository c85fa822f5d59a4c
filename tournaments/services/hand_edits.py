"""Hand edits with a trail: swap two players between pairings, re-pair the latest round, or
take it back — each by the director, with a reason in the log, while nothing of what changes
has been played.

"Not started" means, for every pairing touched: no result (a bye aside), no report waiting
for confirmation, and no match that counts begun at its table (a voided one does not count).
A refusal raises :class:`~tournaments.services.common.TournamentError` and changes nothing.

How a swap works depends on where the format takes its players from:

- **Swiss** (and the Swiss of ``swiss_cut``, and the first round of its knockout, which is
  read back from the stored pairings): the stored pairings are the draw, so the two players
  change places in them. A rematch this makes is allowed (it is the director's call) and
  logged.
- **Elimination and round robin**: the draw is a function of the seeds, so the two players
  swap seeds and every pairing that changes is paired again. That is refused if it would
  change a pairing already played or being played (in practice: swap in the first round of
  a bracket, before its matches start).

Re-pairing and taking back a round are for formats paired round by round (Swiss and
``swiss_cut``): an elimination bracket or a round-robin schedule is fixed at the start
(``fixed_draw``). For ``swiss_cut`` once the knockout is drawn, "the latest round" is the
whole knockout draw (taking it back lets the cut be made again).
"""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.utils.translation import gettext as _

from matches.models import Table
from tournaments import formats
from tournaments.models import Entry, Pairing, PairingStatus, Round, Tournament, TournamentStatus
from tournaments.permissions import ROUND_BY_ROUND_FORMATS
from tournaments.selectors import format_state
from tournaments.services.bracket import advance, close_table, set_sides
from tournaments.services.common import (
    TournamentError,
    announce,
    format_for,
    locked,
    log_action,
    played_at,
    require_director,
)


def _reason(reason: str) -> str:
    reason = (reason or "").strip()
    if not reason:
        raise TournamentError("reason_required", _("A hand edit needs a written reason."))
    return reason


def _running(tournament: Tournament) -> None:
    if tournament.status != TournamentStatus.RUNNING:
        raise TournamentError("not_running", _("The tournament is not running."))


def _check_not_started(rows: list[Pairing]) -> None:
    for row in rows:
        if row.status == PairingStatus.DECIDED:
            raise TournamentError("round_started",
                                  _("%(slot)s already has a result: correct it instead.")
                                  % {"slot": row.slot})
        if row.status == PairingStatus.PAIRED and (row.has_report or played_at(row.table_id)):
            raise TournamentError("round_started",
                                  _("%(slot)s has already started.") % {"slot": row.slot})


def _discard_table(row: Pairing) -> None:
    """The pairing will not be played at its table (it is paired again or taken back): the
    table goes, or, if something keeps it (a voided match), nobody is reserved there."""
    close_table(row)
    if row.table_id is not None:
        Table.objects.filter(pk=row.table_id).update(reserved0=None, reserved1=None,
                                                     seat0=None, seat1=None)
        row.table = None


def _unpair(row: Pairing) -> None:
    """Back to waiting, so that :func:`advance` opens it again with its (new) players."""
    if row.status == PairingStatus.PAIRED:
        _discard_table(row)
    if row.status in (PairingStatus.PAIRED, PairingStatus.BYE):
        row.status, row.paired_at = PairingStatus.WAITING, None
        row.winner = row.loser = None
        row.result_source, row.decided_at = "", None


def _sides(row: Pairing) -> tuple[str, str]:
    return row.side_a, row.side_b


# -- swapping two players --------------------------------------------------------------------


@transaction.atomic
def pairing_swap(*, tournament_id: int, pairing_a_id: int, entry_a_id: int,
                 pairing_b_id: int, entry_b_id: int, actor: Any, reason: str) -> list[Pairing]:
    """Swap ``entry_a`` (in pairing A) and ``entry_b`` (in pairing B), two pairings of one
    round that has not started: the director, with a reason. Returns the two pairings, as
    paired again (new tables online; each keeps its table number where it can).

    Raises :class:`TournamentError`: ``forbidden``, ``reason_required``, ``not_found``,
    ``not_running``, ``bad_request`` (the same pairing twice), ``not_in_pairing``,
    ``not_same_round``, ``round_started``, ``fixed_draw`` (the players come from earlier
    results, or the swap would change a pairing already played).
    """
    tournament = locked(tournament_id)
    require_director(actor, tournament)
    reason = _reason(reason)
    _running(tournament)
    rows = {row.pk: row for row in tournament.pairings.select_related("round").filter(
        pk__in=[pairing_a_id, pairing_b_id])}
    if pairing_a_id == pairing_b_id:
        raise TournamentError("bad_request", _("Choose two different pairings."))
    if len(rows) != 2:
        raise TournamentError("not_found", _("No such pairings in this tournament."))
    row_a, row_b = rows[pairing_a_id], rows[pairing_b_id]
    if entry_a_id not in (row_a.entry_a_id, row_a.entry_b_id) or entry_b_id not in (
            row_b.entry_a_id, row_b.entry_b_id):
        raise TournamentError("not_in_pairing",
                              _("Each player must be in the pairing given with them."))
    if row_a.round_id != row_b.round_id:
        raise TournamentError("not_same_round", _("Players can be swapped within one round only."))
    _check_not_started([row_a, row_b])
    boards = {row_a.pk: row_a.board_number, row_b.pk: row_b.board_number}
    fmt = format_for(tournament)
    if fmt.requires_prev_results:
        _swap_in_stored_pairings(tournament, fmt, row_a, entry_a_id, row_b, entry_b_id)
    else:
        _swap_seeds(tournament, fmt, entry_a_id, entry_b_id)
    row_a.refresh_from_db()
    row_b.refresh_from_db()
    if entry_b_id not in (row_a.entry_a_id, row_a.entry_b_id) or entry_a_id not in (
            row_b.entry_a_id, row_b.entry_b_id):
        raise TournamentError("fixed_draw", _("These players come from earlier results: the "
                              "bracket decides who meets whom."))
    names = dict(Entry.objects.filter(pk__in=[entry_a_id, entry_b_id])
                 .values_list("pk", "player__display_name"))
    rematch = _is_rematch(tournament, row_a) or _is_rematch(tournament, row_b)
    log_action(tournament, "pairing_swapped", actor=actor, pairing=row_a, reason=reason,
               slots=[row_a.slot, row_b.slot], entries=[entry_a_id, entry_b_id],
               players=[names.get(entry_a_id), names.get(entry_b_id)],
               by="seeds" if not fmt.requires_prev_results else "pairings",
               rematch=rematch)
    advance(tournament, actor=actor)
    _restore_boards(tournament, boards)
    announce(tournament)
    row_a.refresh_from_db()
    row_b.refresh_from_db()
    return [row_a, row_b]


def _swap_in_stored_pairings(tournament: Tournament, fmt: formats.Format, row_a: Pairing,
                             entry_a_id: int, row_b: Pairing, entry_b_id: int) -> None:
    for row, old, new in ((row_a, entry_a_id, entry_b_id), (row_b, entry_b_id, entry_a_id)):
        _unpair(row)
        if row.entry_a_id == old:
            row.entry_a_id, row.side_a = new, str(new)
        else:
            row.entry_b_id, row.side_b = new, str(new)
        row.save()
    try:
        resolved = fmt.resolved_pairings(format_state(tournament))
    except formats.PairingError as error:
        raise TournamentError("fixed_draw",
                              _("The format cannot take this swap: %(error)s")
                              % {"error": _(error.template) % error.params}) \
            from error
    for pairing in resolved:
        if pairing.slot in (row_a.slot, row_b.slot):
            row = row_a if pairing.slot == row_a.slot else row_b
            sides = (formats.side_notation(pairing.a), formats.side_notation(pairing.b))
            if sides != _sides(row):
                raise TournamentError("fixed_draw", _("These players come from earlier "
                                      "results: the bracket decides who meets whom."))


def _swap_seeds(tournament: Tournament, fmt: formats.Format, entry_a_id: int,
                entry_b_id: int) -> None:
    entries = {e.pk: e for e in Entry.objects.filter(pk__in=[entry_a_id, entry_b_id])}
    seed_a, seed_b = entries[entry_a_id].seed, entries[entry_b_id].seed
    if seed_a is None or seed_b is None:
        raise TournamentError("fixed_draw", _("Only players of the draw can be swapped."))
    Entry.objects.filter(pk=entry_a_id).update(seed=seed_b)
    Entry.objects.filter(pk=entry_b_id).update(seed=seed_a)
    rows = {row.slot: row for row in tournament.pairings.select_related("round")}
    try:
        resolved = fmt.resolved_pairings(format_state(tournament, list(rows.values())))
    except formats.PairingError as error:
        raise TournamentError("fixed_draw", _(error.template) % error.params) from error
    changed: list[tuple[Pairing, formats.Pairing]] = []
    for pairing in resolved:
        row = rows.get(pairing.slot)
        if row is None:
            continue
        if (formats.side_notation(pairing.a), formats.side_notation(pairing.b)) != _sides(row):
            changed.append((row, pairing))
    _check_not_started([row for row, _pairing in changed])
    for row, pairing in changed:
        _unpair(row)
        if row.status == PairingStatus.VOID:
            row.status = PairingStatus.WAITING
        set_sides(row, pairing)
        row.save()


def _is_rematch(tournament: Tournament, row: Pairing) -> bool:
    if row.entry_a_id is None or row.entry_b_id is None:
        return False
    pair = {row.entry_a_id, row.entry_b_id}
    return any({a, b} == pair for a, b in tournament.pairings.exclude(pk=row.pk).values_list(
        "entry_a_id", "entry_b_id"))


def _restore_boards(tournament: Tournament, boards: dict[int, int | None]) -> None:
    """Each pairing paired again keeps the table number it had, when no other open pairing
    has taken it meanwhile."""
    for pairing_id, board in boards.items():
        row = Pairing.objects.get(pk=pairing_id)
        if board is None or row.status != PairingStatus.PAIRED or row.board_number == board:
            continue
        if not tournament.pairings.filter(status=PairingStatus.PAIRED, board_number=board
                                          ).exclude(pk=row.pk).exists():
            row.board_number = board
            row.save(update_fields=["board_number"])


# -- re-pairing and taking back the latest round -----------------------------------------------


def _latest_round_rows(tournament: Tournament) -> list[Pairing]:
    """The pairings of the latest round paired: the knockout draw of a ``swiss_cut`` once it
    is made, else the last Swiss round. Refuses formats with a draw fixed at the start."""
    if tournament.format not in ROUND_BY_ROUND_FORMATS:
        raise TournamentError("fixed_draw", _("This format fixes its draw at the start: swap "
                              "players, or correct a result, instead."))
    rows = list(tournament.pairings.select_related("round").order_by("order"))
    knockout = [r for r in rows if r.round.bracket != formats.Bracket.MAIN.value]
    if knockout:
        return knockout
    last = max((r.round.number for r in rows), default=0)
    if last == 0:
        raise TournamentError("not_found", _("No round has been paired yet."))
    return [r for r in rows if r.round.number == last]


def _take_back(tournament: Tournament, rows: list[Pairing]) -> list[list[str]]:
    """Delete ``rows`` (their tables go), and the rounds left empty; returns who was paired
    with whom. Caller holds the lock and has checked nothing was played."""
    before = [_who(r) for r in rows]
    round_ids = {r.round_id for r in rows}
    for row in rows:
        if row.status == PairingStatus.PAIRED:
            _discard_table(row)
        row.delete()
    Round.objects.filter(pk__in=round_ids, pairings__isnull=True).delete()
    tournament.current_round = max(
        (tournament.round_sequence(bracket, number) for bracket, number in
         tournament.rounds.filter(pairings__status__gte=PairingStatus.PAIRED)
         .values_list("bracket", "number")), default=0)
    tournament.save(update_fields=["current_round"])
    return before


def _who(row: Pairing) -> list[str]:
    """``[slot, player A, player B]`` for the log ("bye" for nobody)."""
    return [row.slot, *(str(e.player) if e is not None else "bye"
                        for e in (row.entry_a, row.entry_b))]


def _round_rows_checked(tournament: Tournament) -> list[Pairing]:
    rows = _latest_round_rows(tournament)
    _check_not_started(rows)
    return list(Pairing.objects.filter(pk__in=[r.pk for r in rows])
                .select_related("round", "entry_a__player", "entry_b__player"))


@transaction.atomic
def round_undo(*, tournament_id: int, actor: Any, reason: str) -> int:
    """Take back the latest round (Swiss, ``swiss_cut``) while no match of it has started:
    its pairings and tables go, and rounds are no longer paired automatically — the next
    one is paired when the director asks (:func:`tournament_pair_next_round`). Returns the
    number of the round now latest (0: none).

    Raises :class:`TournamentError`: ``forbidden``, ``reason_required``, ``not_running``,
    ``fixed_draw``, ``not_found`` (nothing paired), ``round_started``.
    """
    tournament = locked(tournament_id)
    require_director(actor, tournament)
    reason = _reason(reason)
    _running(tournament)
    rows = _round_rows_checked(tournament)
    bracket, number = rows[0].round.bracket, rows[0].round.number
    before = _take_back(tournament, rows)
    was_auto = tournament.auto_pair
    if was_auto:
        tournament.auto_pair = False
        tournament.save(update_fields=["auto_pair"])
    log_action(tournament, "round_undone", actor=actor, reason=reason, bracket=bracket,
               number=number, pairings=before, auto_pair_off=was_auto)
    announce(tournament)
    return tournament.current_round


@transaction.atomic
def round_repair(*, tournament_id: int, actor: Any, reason: str) -> list[Pairing]:
    """Pair the latest round again (Swiss, ``swiss_cut``) while no match of it has started:
    after a correction of the round before, a withdrawal or a reinstatement, the format pairs
    it from the standings as they are now. Returns the round's new pairings.

    Raises :class:`TournamentError`: ``forbidden``, ``reason_required``, ``not_running``,
    ``fixed_draw``, ``not_found`` (nothing paired), ``round_started``.
    """
    tournament = locked(tournament_id)
    require_director(actor, tournament)
    reason = _reason(reason)
    _running(tournament)
    rows = _round_rows_checked(tournament)
    bracket, number = rows[0].round.bracket, rows[0].round.number
    before = _take_back(tournament, rows)
    known = set(tournament.pairings.values_list("pk", flat=True))
    advance(tournament, release=True, actor=actor)
    new_rows = list(tournament.pairings.exclude(pk__in=known)
                    .select_related("round", "entry_a__player", "entry_b__player")
                    .order_by("order"))
    log_action(tournament, "round_repaired", actor=actor, reason=reason, bracket=bracket,
               number=number, pairings=before,
               now=[_who(r) for r in new_rows])
    announce(tournament)
    return new_rows
