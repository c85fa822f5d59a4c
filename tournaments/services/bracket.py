"""The bracket manager: the one place that turns what a format says into rows.

In the role of Tabbycat's ``DrawManager``: the formats (:mod:`tournaments.formats`) are pure
and answer with plain values; :func:`advance` stores their pairings, opens the ones whose
players are known (a reserved table online, nothing over the board) and finishes the
tournament when the format says so. :func:`settle` is the one sequence every result goes
through: decide the pairing, close its table, advance, announce.
"""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.db.models import ProtectedError
from django.utils import timezone
from django.utils.translation import gettext as _

from matches import services as match_services
from matches.models import Table
from tournaments import formats
from tournaments.models import (
    Entry,
    Pairing,
    PairingStatus,
    ResultSource,
    Round,
    Tournament,
    TournamentStatus,
)
from tournaments.selectors import format_state, placed_champion
from tournaments.services.common import (
    TournamentError,
    announce,
    divisions_of,
    format_for,
    log_action,
)


def round_row(tournament: Tournament, bracket: str, number: int,
              rounds: dict[tuple[str, int], Round]) -> Round:
    key = (bracket, number)
    if key not in rounds:
        rounds[key], _created = Round.objects.get_or_create(
            tournament=tournament, bracket=bracket, number=number,
            defaults={"match_length": tournament.match_length_for(bracket, number)},
        )
    return rounds[key]


def entry_id_of(side: formats.Side) -> int | None:
    return side if isinstance(side, int) and not isinstance(side, bool) else None


def store_pairing(tournament: Tournament, pairing: formats.Pairing, *, order: int,
                  rounds: dict[tuple[str, int], Round]) -> Pairing:
    return Pairing.objects.create(
        tournament=tournament,
        slot=pairing.slot,
        round=round_row(tournament, pairing.bracket.value, pairing.round, rounds),
        order=order,
        side_a=formats.side_notation(pairing.a),
        side_b=formats.side_notation(pairing.b),
        entry_a_id=entry_id_of(pairing.a),
        entry_b_id=entry_id_of(pairing.b),
    )


def set_sides(row: Pairing, pairing: formats.Pairing) -> bool:
    """Write the format's sides onto ``row``; True if anything changed (caller saves)."""
    sides = (formats.side_notation(pairing.a), formats.side_notation(pairing.b))
    if (row.side_a, row.side_b) == sides:
        return False
    row.side_a, row.side_b = sides
    row.entry_a_id, row.entry_b_id = entry_id_of(pairing.a), entry_id_of(pairing.b)
    return True


def advance(tournament: Tournament, *, release: bool = False, actor: Any = None) -> None:
    """Store what the format says now, start every match whose players are known, and
    finish the tournament when the format says so. Caller holds the tournament lock.

    Swiss and round robin with ``auto_pair`` off start a new round only with ``release``
    (the director's "pair next round"), one round per call.
    """
    if tournament.status < TournamentStatus.RUNNING:
        return
    fmt = format_for(tournament)
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
                ready = [p for p in ready if tournament.round_sequence(
                    p.bracket.value, p.round) <= release_up_to]
            for pairing in ready:
                if pairing.slot not in by_slot:
                    by_slot[pairing.slot] = store_pairing(
                        tournament, pairing, order=next_order, rounds=rounds)
                    next_order += 1
            state = format_state(tournament, list(by_slot.values()))
            resolved = fmt.resolved_pairings(state)
        except formats.PairingError as error:
            raise TournamentError(error.code, _(error.template) % error.params) from error
        to_open = {pairing.slot for pairing in ready if pairing.is_playable}
        decided_any = False
        for pairing in resolved:
            row = by_slot.get(pairing.slot)
            if row is None:
                continue
            changed = set_sides(row, pairing)
            if row.status in (PairingStatus.BYE, PairingStatus.VOID) and (
                    pairing.is_playable or (row.status == PairingStatus.VOID
                                            and pairing.is_bye)):
                # A reinstated player's round-robin games, cancelled meanwhile, are back.
                row.status, row.winner_id, row.result_source, row.decided_at = (
                    PairingStatus.WAITING, None, "", None)
                changed = True
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
                    decided_any |= open_pairing(tournament, row, entries)
                    number = tournament.round_sequence(row.round.bracket, row.round.number)
                    if number > tournament.current_round and not tournament.is_elimination:
                        tournament.current_round = number
                        tournament.save(update_fields=["current_round"])
            if changed:
                row.save()
        if not decided_any:
            break
    finish_if_done(tournament, fmt, actor=actor)


def open_pairing(tournament: Tournament, row: Pairing, entries: dict[int, Entry]) -> bool:
    """Start a pairing whose two players are known: a table reserved for them (or nothing
    over the board). A pairing with a withdrawn player is decided at once; returns True then.
    """
    now = timezone.now()
    assert row.entry_a_id is not None and row.entry_b_id is not None
    a, b = entries[row.entry_a_id], entries[row.entry_b_id]
    row.status, row.paired_at = PairingStatus.PAIRED, now
    if not (a.is_active and b.is_active):
        if a.is_active or b.is_active:
            winner: Entry | None = a if a.is_active else b
            reason = f"{(b if winner is a else a).player} is out of the tournament"
            source = ResultSource.FORFEIT
        else:
            winner, source = None, ResultSource.DOUBLE_FORFEIT
            reason = "both players are out of the tournament: both lose"
        decide(tournament, row, winner, source, reason=reason)
        return True
    row.board_number = free_board_number(tournament)
    if not tournament.over_the_board:
        table = match_services.table_create(
            name=f"{tournament.name} · {row.slot}"[:80],
            match_length=row.round.match_length,
            **tournament.rule_values(),
        )
        # Reserved for the two players from now: the no-show limit and the late-arrival
        # penalty count from here.
        Table.objects.filter(pk=table.pk).update(
            reserved0=a.player, reserved1=b.player, reserved_at=now,
            late_penalty_points=tournament.late_penalty_points,
            late_penalty_minutes=tournament.late_penalty_minutes)
        row.table = table
        # A bot entry (a practice event) takes its seat at once; the match starts when
        # the other player sits (or at once, for two bots).
        for entry in (a, b):
            if entry.player.is_bot:
                match_services.table_sit(table_id=table.pk, player=entry.player)
    row.save()
    log_action(tournament, "paired", pairing=row, slot=row.slot, a=str(a.player), b=str(b.player),
               table=row.table_id)
    return False


def free_board_number(tournament: Tournament) -> int:
    """The lowest table number no open pairing of the tournament is using: pairings made
    together get 1, 2, 3...; a table freed by a finished match is given out again."""
    taken = set(tournament.pairings.filter(status=PairingStatus.PAIRED,
                                           board_number__isnull=False)
                .values_list("board_number", flat=True))
    return next(number for number in range(1, len(taken) + 2) if number not in taken)


def decide(tournament: Tournament, row: Pairing, winner: Entry | None, source: str, *,
           winner_points: int | None = None, loser_points: int | None = None,
           actor: Any = None, reason: str = "") -> None:
    """Record ``winner`` as the result of ``row`` (one of its two players); ``None`` is a
    double forfeit: both lose (``source`` is then ``DOUBLE_FORFEIT``). Caller holds the
    tournament lock and advances the tournament afterwards (see :func:`settle`)."""
    if row.entry_a_id is None or row.entry_b_id is None:
        raise TournamentError("bad_result", _("This pairing does not have two players."))
    previous = row.winner_id if row.status == PairingStatus.DECIDED else None
    if winner is None:
        source = ResultSource.DOUBLE_FORFEIT
        winner_id = loser_id = None
        winner_points = loser_points = None
    else:
        if winner.pk not in (row.entry_a_id, row.entry_b_id):
            raise TournamentError("bad_result",
                                  _("The winner must be one of the pairing's players."))
        winner_id = winner.pk
        loser_id = row.entry_b_id if winner.pk == row.entry_a_id else row.entry_a_id
    row.status = PairingStatus.DECIDED
    row.winner_id, row.loser_id = winner_id, loser_id
    row.winner_points, row.loser_points = winner_points, loser_points
    row.result_source = source
    row.decided_at = timezone.now()
    row.save()
    log_action(tournament, "result", actor=actor, pairing=row, reason=reason, slot=row.slot,
               winner=str(winner.player) if winner else None, winner_entry=winner_id,
               loser_entry=loser_id, score=[winner_points, loser_points], source=source,
               double_forfeit=winner is None, previous_winner_entry=previous)


def finish_if_done(tournament: Tournament, fmt: formats.Format, *, actor: Any) -> None:
    state = format_state(tournament)
    if not fmt.is_finished(state):
        if tournament.status == TournamentStatus.FINISHED:  # a correction reopened it
            tournament.status, tournament.champion, tournament.finished_at = (
                TournamentStatus.RUNNING, None, None)
            tournament.save(update_fields=["status", "champion", "finished_at"])
        return
    tournament.status = TournamentStatus.FINISHED  # who never sat down is known from here
    champion_id = placed_champion(tournament, fmt, state)
    if tournament.finished_at is not None and tournament.champion_id == champion_id:
        return
    tournament.champion_id = champion_id
    tournament.finished_at = tournament.finished_at or timezone.now()
    tournament.save(update_fields=["status", "champion", "finished_at"])
    champion = (Entry.objects.select_related("player").filter(pk=champion_id).first()
                if champion_id is not None else None)
    log_action(tournament, "finished", actor=actor,
               champion=str(champion.player) if champion else None)
    if tournament.event_id is not None:
        event_finish_if_done(tournament.event_id)


def event_finish_if_done(event_id: int) -> None:
    """After a division finishes: the event is finished when every started division is."""
    event = Tournament.objects.filter(pk=event_id, status=TournamentStatus.RUNNING).first()
    if event is None:
        return
    if event.divisions.filter(status=TournamentStatus.RUNNING).exists():
        return
    event.status, event.finished_at = TournamentStatus.FINISHED, timezone.now()
    event.save(update_fields=["status", "finished_at"])
    log_action(event, "finished", divisions=[d.name for d in divisions_of(event)])
    announce(event)


def close_table(row: Pairing) -> None:
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


def settle(tournament: Tournament, row: Pairing, winner: Entry | None, source: str, *,
           winner_points: int | None = None, loser_points: int | None = None,
           actor: Any = None, reason: str = "", correction: bool = False) -> None:
    """The one way a pairing gets its result: decide it, close its table (unless a match was
    played there), let the format say what happens next, and tell open pages after commit.
    ``winner`` ``None``: a double forfeit (both lose; in elimination nobody goes through).

    ``correction``: the result replaced another, so later pairings whose players changed
    are paired again (:func:`repair_dependents`). Caller holds the tournament lock.
    """
    decide(tournament, row, winner, source, winner_points=winner_points,
           loser_points=loser_points, actor=actor, reason=reason)
    close_table(row)
    if correction:
        repair_dependents(tournament)
    advance(tournament, actor=actor)
    announce(tournament)


def reopen(tournament: Tournament, row: Pairing, *, actor: Any = None, reason: str = "") -> None:
    """The match at a paired pairing's table was voided: the pairing is to be played again
    at the same table (still reserved for its players; the finisher cleared the seats), and
    its no-show limit counts from now. Caller holds the tournament lock."""
    row.paired_at = timezone.now()
    row.match = None
    row.save(update_fields=["paired_at", "match"])
    if row.table_id is not None:
        Table.objects.filter(pk=row.table_id).update(reserved_at=row.paired_at)
    log_action(tournament, "reopened", actor=actor, pairing=row, reason=reason, slot=row.slot,
               table=row.table_id)
    announce(tournament)


def repair_dependents(tournament: Tournament) -> None:
    """After a correction: pairings whose players changed go back to waiting (their table,
    where nobody played, is closed) so that :func:`advance` pairs them again."""
    fmt = format_for(tournament)
    rows = {r.slot: r for r in tournament.pairings.select_related("round")}
    for pairing in fmt.resolved_pairings(format_state(tournament, list(rows.values()))):
        stored = rows.get(pairing.slot)
        if stored is None:  # not paired yet: advance stores it when it comes
            continue
        sides = (formats.side_notation(pairing.a), formats.side_notation(pairing.b))
        if sides == (stored.side_a, stored.side_b):
            continue
        if stored.status == PairingStatus.VOID:
            stored.status = PairingStatus.WAITING
        if stored.status == PairingStatus.PAIRED:
            close_table(stored)
            stored.status, stored.paired_at = PairingStatus.WAITING, None
            log_action(tournament, "repaired", pairing=stored, slot=stored.slot)
        set_sides(stored, pairing)
        stored.save()


