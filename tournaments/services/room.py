"""Running the room: table numbers, round start times, and late entries.

Table numbers are given out by :func:`tournaments.services.bracket.open_pairing` (the lowest
free one); the director can move a pairing to another table, and call a round for a time.

A late entry (after the start, the director's decision) is seeded last. Where the format
allows it:

- Swiss: until the last round is paired; the player joins from the next round paired, with
  nothing for the rounds missed.
- Elimination: while the bracket has a bye left, the late entrant takes the place of the
  lowest-seeded player's bye (standard seeding puts seed N + 1 there), provided nothing
  played depends on that bye: the bye holder's next match must not have started.
- Round robin: never (the schedule is fixed at the start).
- Swiss with a cut: as a Swiss, until the knockout is drawn.

Whatever the format, the entry is refused unless every result already recorded still
stands in the new draw.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.db import transaction
from django.db.models import Max
from django.utils import timezone
from django.utils.translation import gettext as _

from matches.models import Player
from tournaments import formats
from tournaments.models import (
    Entry,
    EntryStatus,
    FormatName,
    Pairing,
    PairingStatus,
    TournamentStatus,
)
from tournaments.notices import notify_after_commit
from tournaments.selectors import format_state, seeded_entry_ids
from tournaments.services.bracket import advance, repair_dependents, store_pairing
from tournaments.services.common import (
    TournamentError,
    announce,
    format_for,
    locked,
    log_action,
    played_at,
    require_director,
    require_referee,
)


@transaction.atomic
def round_set_start(*, tournament_id: int, bracket: str, number: int,
                    starts_at: datetime | None, actor: Any = None) -> None:
    """Call round ``number`` of ``bracket`` for ``starts_at`` (None: no time): shown on the
    bracket, the projector, the score cards and the players' notices, pushed live to the
    tournament's pages and to the round's paired players."""
    tournament = locked(tournament_id)
    require_director(actor, tournament)
    updated = tournament.rounds.filter(bracket=bracket, number=number).update(
        starts_at=starts_at)
    if not updated:
        raise TournamentError("not_found",
                              _("There is no round %(number)s of %(bracket)s yet.")
                              % {"number": number, "bracket": bracket})
    log_action(tournament, "round_start_set", actor=actor, bracket=bracket, number=number,
               starts_at=starts_at.isoformat() if starts_at else None)
    announce(tournament)
    paired = tournament.pairings.filter(round__bracket=bracket, round__number=number,
                                        status=PairingStatus.PAIRED)
    notify_after_commit([player_id for pair in paired.values_list(
        "entry_a__player_id", "entry_b__player_id") for player_id in pair if player_id])


@transaction.atomic
def pairing_set_board(*, pairing_id: int, board_number: int, actor: Any = None) -> Pairing:
    """Move an open pairing to physical table ``board_number`` (a referee or the director);
    refused if another open pairing is at that table."""
    row = Pairing.objects.filter(pk=pairing_id).only("tournament_id").first()
    if row is None:
        raise TournamentError("not_found",
                              _("There is no pairing %(pairing_id)s.") % {"pairing_id": pairing_id})
    tournament = locked(row.tournament_id)
    require_referee(actor, tournament)
    row = Pairing.objects.get(pk=pairing_id)
    if not isinstance(board_number, int) or isinstance(board_number, bool) or not (
        1 <= board_number <= 999
    ):
        raise TournamentError("bad_board_number", _("A table number is from 1 to 999."))
    if row.status != PairingStatus.PAIRED:
        raise TournamentError("not_open", _("Only a pairing being played has a table."))
    if tournament.pairings.filter(status=PairingStatus.PAIRED,
                                  board_number=board_number).exclude(pk=row.pk).exists():
        raise TournamentError("board_taken",
                              _("Table %(board_number)s is in use.")
                              % {"board_number": board_number})
    previous, row.board_number = row.board_number, board_number
    row.save(update_fields=["board_number"])
    log_action(tournament, "board_set", actor=actor, pairing=row, slot=row.slot,
               board=board_number, previous=previous)
    announce(tournament)
    return row


@transaction.atomic
def entry_register_late(*, tournament_id: int, player: Player, actor: Any = None) -> Entry:
    """Enter ``player`` after the start (the director), seeded last, where the format allows
    it (see the module). Raises :class:`TournamentError` ``late_entry_not_allowed``,
    ``too_late`` or ``already_registered``; a refusal changes nothing."""
    tournament = locked(tournament_id)
    require_director(actor, tournament)
    if tournament.status != TournamentStatus.RUNNING:
        raise TournamentError("not_running", _("Late entry is for a tournament under way."))
    if tournament.format == FormatName.ROUND_ROBIN:
        raise TournamentError("late_entry_not_allowed",
                              _("A round robin's schedule is fixed at the start: no late entry."))
    if tournament.format == FormatName.SWISS_CUT and tournament.rounds.filter(
            bracket=formats.Bracket.KNOCKOUT.value).exists():
        raise TournamentError("too_late", _("The knockout is drawn: the cut is made."))
    fmt = format_for(tournament)
    seeds = seeded_entry_ids(tournament)
    if tournament.is_elimination and len(seeds) + 1 > formats.next_power_of_two(len(seeds)):
        raise TournamentError("too_late", _("The bracket is full: there is no bye to replace."))
    if Entry.objects.filter(tournament=tournament, player=player).exists():
        raise TournamentError("already_registered", _("This player already has an entry."))
    last_seed = tournament.entries.aggregate(last=Max("seed"))["last"] or 0
    entry = Entry.objects.create(tournament=tournament, player=player, checked_in=True,
                                 late=True, seed=last_seed + 1, status=EntryStatus.ACTIVE)
    rows = list(tournament.pairings.select_related("round").order_by("order"))
    try:
        resolved = fmt.resolved_pairings(format_state(tournament, rows))
    except formats.PairingError as error:
        raise TournamentError("too_late",
                              _("The results so far do not leave room for a late entry "
                                "(%(error)s).")
                              % {"error": _(error.template) % error.params}) from error
    stored = {row.slot: row for row in rows}
    rounds = {(r.bracket, r.number): r for r in tournament.rounds.all()}
    replaced: list[Pairing] = []
    for index, pairing in enumerate(resolved):
        row = stored.get(pairing.slot)
        if row is None:
            # A slot the bye had made unnecessary (a losers' or consolation match its
            # nobody would have played): the late entrant's result will fill it.
            stored[pairing.slot] = store_pairing(tournament, pairing, order=index,
                                                 rounds=rounds)
            continue
        if tournament.is_elimination and row.order != index:
            row.order = index  # keep the bracket's top-to-bottom order
            row.save(update_fields=["order"])
        sides = (formats.side_notation(pairing.a), formats.side_notation(pairing.b))
        if sides == (row.side_a, row.side_b):
            continue
        if row.status == PairingStatus.DECIDED or (
            row.status == PairingStatus.PAIRED and played_at(row.table_id)
        ):
            raise TournamentError("too_late",
                                  _("%(slot)s is already played: a late entry would change it.")
                                  % {"slot": row.slot})
        if row.status == PairingStatus.BYE:
            replaced.append(row)
    for row in replaced:  # the bye the late entrant takes: to be played now
        row.status, row.winner, row.result_source, row.decided_at = (
            PairingStatus.WAITING, None, "", None)
        row.save(update_fields=["status", "winner", "result_source", "decided_at"])
    repair_dependents(tournament)
    log_action(tournament, "late_entry", actor=actor, player=player.display_name,
               entry=entry.pk, seed=entry.seed, replaces_bye=[row.slot for row in replaced],
               at=timezone.now().isoformat())
    advance(tournament, actor=actor)
    announce(tournament)
    return entry
