"""Results: matches played online flow in through ``match_finished``; the director or a
referee sets or corrects a result (:func:`pairing_override`)."""

from __future__ import annotations

import logging
from dataclasses import replace
from typing import Any

from django.db import transaction
from django.utils.translation import gettext as _

from matches import log_reasons
from matches import services as match_services
from matches.models import Event, LogKind, Match, MatchStatus
from tournaments import formats
from tournaments.models import (
    Entry,
    EntryStatus,
    Pairing,
    PairingStatus,
    ResultSource,
    Tournament,
    TournamentStatus,
)
from tournaments.selectors import format_state
from tournaments.services.bracket import reopen, settle
from tournaments.services.common import (
    TournamentError,
    acting_user,
    check_points,
    format_for,
    live_match,
    locked,
    log_action,
    played_at,
    require_referee,
)

logger = logging.getLogger(__name__)


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
    """Record the finished ``match`` as its pairing's result and advance the tournament.

    A voided match gives no result: the pairing re-opens (:func:`bracket.reopen`), so the
    players sit down again at the same table and the no-show limit counts from now. A
    referee's decision (adjudication, void) enters the tournament log with its reason.
    """
    row = Pairing.objects.filter(table_id=match.table_id).only("tournament_id").first()
    if row is None:
        return None
    with transaction.atomic():
        tournament = locked(row.tournament_id)
        row = Pairing.objects.select_related("entry_a__player", "entry_b__player").get(pk=row.pk)
        if row.status != PairingStatus.PAIRED or tournament.status != TournamentStatus.RUNNING:
            return row
        reason, referee = _decision_of(match)
        if match.status == MatchStatus.VOIDED:
            reopen(tournament, row, actor=referee,
                   reason=f"match {match.pk} voided: {reason}" if reason else "")
            return row
        if row.match_id is None:
            row.match = match
            row.save(update_fields=["match"])
        if match.winner_id is None or match.status < MatchStatus.FINISHED:
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
        settle(tournament, row, winner, source, winner_points=winner_score,
               loser_points=loser_score, actor=referee,
               reason=f"match {match.pk}: {reason}" if reason else f"match {match.pk}")
        return row


def _decision_of(match: Match) -> tuple[str, Any]:
    """The reason and the referee of the decision that ended ``match`` (an adjudication,
    a void, a forfeit), or ``("", None)`` when it ended over the board."""
    if match.status == MatchStatus.FINISHED:
        return "", None
    decisions = (LogKind.ADJUDICATE, LogKind.VOID, LogKind.FORFEIT)
    event = (Event.objects.filter(match=match, kind__in=decisions)
             .select_related("actor").order_by("-sequence").first())
    if event is None:
        return "", None
    action = event.payload.get("action") or {}
    reason = event.payload.get("reason") or action.get("reason") or ""
    return str(reason), event.actor


def reconcile_finished_matches(tournament: Tournament) -> int:
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


def pairing_override(*, pairing_id: int, actor: Any, winner_entry_id: int, reason: str,
                     winner_points: int | None = None,
                     loser_points: int | None = None) -> Pairing:
    """The director (or a referee) sets or corrects a pairing's result, with a reason.

    A live match is awarded through :func:`matches.services.match_adjudicate`. Correcting a
    decided result is refused if a later match already depends on it and has a result or
    a match in progress; a later pairing only paired (nobody playing yet) is re-paired.
    A winner who had been withdrawn as absent from this very pairing (a no-show decided
    wrongly) is reinstated.
    """
    return _correct(pairing_id=pairing_id, actor=actor, winner_entry_id=winner_entry_id,
                    reason=reason, winner_points=winner_points, loser_points=loser_points)


def pairing_double_forfeit(*, pairing_id: int, actor: Any, reason: str) -> Pairing:
    """A referee records a double forfeit (both players lose; in elimination nobody goes
    through and the next opponent has a bye), with a reason; a live match is voided first.
    The same checks as :func:`pairing_override` apply to a decided pairing."""
    return _correct(pairing_id=pairing_id, actor=actor, winner_entry_id=None, reason=reason)


def _correct(*, pairing_id: int, actor: Any, winner_entry_id: int | None, reason: str,
             winner_points: int | None = None, loser_points: int | None = None) -> Pairing:
    reason = (reason or "").strip()
    if not reason:
        raise TournamentError("reason_required", _("A decision needs a written reason."))
    row = (Pairing.objects.select_related("tournament", "entry_a__player", "entry_b__player")
           .filter(pk=pairing_id).first())
    if row is None:
        raise TournamentError("not_found",
                              _("There is no pairing %(pairing_id)s.") % {"pairing_id": pairing_id})
    require_referee(actor, row.tournament)
    if len(row.entries()) != 2:
        raise TournamentError("not_playable", _("This pairing has no players to decide."))
    winner = next((e for e in row.entries() if e.pk == winner_entry_id), None)
    if winner is None and winner_entry_id is not None:
        raise TournamentError("bad_result", _("The winner must be one of the pairing's players."))
    if winner is not None:
        check_points(row.tournament, winner_points, loser_points, row.round.match_length)
    live = live_match(row) if row.status == PairingStatus.PAIRED else None
    if live is not None and winner is not None:
        match_services.match_adjudicate(match_id=live.pk, referee=acting_user(actor),
                                        winner=winner.player, scope="match", reason=reason)
    elif live is not None:
        # The void re-opens the pairing (match_finished); the double forfeit then decides it.
        match_services.match_void(match_id=live.pk, referee=acting_user(actor),
                                  reason=log_reasons.with_detail(
                                      log_reasons.DOUBLE_FORFEIT, reason))
    with transaction.atomic():
        tournament = locked(row.tournament_id)
        row = Pairing.objects.select_related("round", "entry_a__player",
                                             "entry_b__player").get(pk=pairing_id)
        if row.status not in (PairingStatus.PAIRED, PairingStatus.DECIDED):
            raise TournamentError("not_playable", _("This pairing has no players to decide."))
        if row.status == PairingStatus.DECIDED and live is None:
            for stale in _check_correction(tournament, row, winner):
                log_action(tournament, "result_cleared", actor=actor, pairing=stale,
                           reason="decided again after a correction", slot=stale.slot,
                           winner_entry=stale.winner_id)
                stale.status = PairingStatus.WAITING
                stale.winner = stale.loser = None
                stale.winner_points = stale.loser_points = None
                stale.result_source, stale.decided_at = "", None
                stale.save()
        if winner is not None and tournament.log.filter(
                action="withdrawn", data__entry=winner.pk, data__slot=row.slot,
                data__absent=True).exists():
            winner.refresh_from_db()
            if winner.status == EntryStatus.WITHDRAWN:
                winner.status, winner.left_at = EntryStatus.ACTIVE, None
                winner.save(update_fields=["status", "left_at"])
                log_action(tournament, "reinstated", actor=actor, pairing=row,
                           reason=f"the result of {row.slot} was corrected: {reason}",
                           player=winner.player.display_name, entry=winner.pk,
                           was="withdrawn")
        source = ResultSource.OVERRIDE if winner is not None else ResultSource.DOUBLE_FORFEIT
        settle(tournament, row, winner, source, winner_points=winner_points,
               loser_points=loser_points, actor=actor, reason=reason, correction=True)
        return row


def _check_correction(tournament: Tournament, row: Pairing,
                      winner: Entry | None) -> list[Pairing]:
    """Refuse to change a decided result that a later result or a started match relies on.

    Later results that were automatic forfeits (a withdrawn player, no match played) do not
    block a correction: they are returned, to be decided again with the right players.
    """
    fmt = format_for(tournament)
    rows = list(tournament.pairings.select_related("round").order_by("order"))
    state = format_state(tournament, rows)
    assert row.entry_a_id is not None and row.entry_b_id is not None
    if winner is None:
        corrected = formats.Result.double_forfeit(row.slot, row.entry_a_id, row.entry_b_id)
    else:
        loser_id = row.entry_b_id if winner.pk == row.entry_a_id else row.entry_a_id
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
            fmt.resolved_pairings(replace(state, results=trial))
        except formats.PairingError as error:
            automatic = (stored.result_source == ResultSource.FORFEIT
                         and stored.match_id is None and stored.slot != row.slot)
            if not automatic:
                raise TournamentError(
                    "depends", _("%(slot)s already has a result that depends on this one: correct "
                                 "that one first.") % {"slot": stored.slot}) from error
            redo.append(stored)
            continue
        accepted = trial
    if not tournament.is_elimination:
        accepted = list(by_slot.values())
    try:
        resolved = fmt.resolved_pairings(replace(state, results=accepted))
    except formats.PairingError as error:
        raise TournamentError("depends", _(error.template) % error.params) from error
    stored_by_slot = {r.slot: r for r in rows}
    for pairing in resolved:
        row_now = stored_by_slot.get(pairing.slot)
        if row_now is None:  # not paired yet (a Swiss cut's knockout to come)
            continue
        sides = (formats.side_notation(pairing.a), formats.side_notation(pairing.b))
        if (sides != (row_now.side_a, row_now.side_b) and row_now.status == PairingStatus.PAIRED
                and row_now.table_id is not None
                and played_at(row_now.table_id)):
            raise TournamentError(
                "depends", _("%(slot)s is already being played with the old result.")
                           % {"slot": row_now.slot})
    return redo


