"""Matches played over the board: the winner reports the score, the opponent or a referee
confirms or rejects it, or a referee enters the result directly."""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from tournaments.models import Pairing, PairingStatus, ResultSource, Tournament, TournamentStatus
from tournaments.selectors import is_referee
from tournaments.services.bracket import settle
from tournaments.services.common import (
    TournamentError,
    acting_user,
    announce,
    check_points,
    locked,
    log_action,
    played_at,
    require_referee,
)


def _otb_row(pairing_id: int) -> tuple[Tournament, Pairing]:
    row = Pairing.objects.only("tournament_id").get(pk=pairing_id)
    tournament = locked(row.tournament_id)
    row = Pairing.objects.select_related("round", "entry_a__player", "entry_b__player",
                                         "reported_winner__player").get(pk=pairing_id)
    if row.status != PairingStatus.PAIRED or tournament.status != TournamentStatus.RUNNING:
        raise TournamentError("not_open", _("This pairing is not waiting for a result."))
    if played_at(row.table_id):
        raise TournamentError("played_online", _("This match is played online at its table."))
    return tournament, row


@transaction.atomic
def pairing_report(*, pairing_id: int, user: Any, winner_entry_id: int,
                   winner_points: int | None = None,
                   loser_points: int | None = None) -> Pairing:
    """The winner of a match played over the board reports the score; the opponent or a
    referee confirms it (:func:`pairing_confirm`)."""
    tournament, row = _otb_row(pairing_id)
    winner = next((e for e in row.entries() if e.pk == winner_entry_id), None)
    if winner is None:
        raise TournamentError("bad_result", _("The winner must be one of the pairing's players."))
    if acting_user(user) is None or winner.player.user_id != user.pk:
        raise TournamentError("not_the_winner", _("The winner reports the result."))
    check_points(tournament, winner_points, loser_points, row.round.match_length)
    row.reported_by = user
    row.reported_winner = winner
    row.reported_winner_points, row.reported_loser_points = winner_points, loser_points
    row.reported_at = timezone.now()
    row.save()
    log_action(tournament, "reported", actor=user, pairing=row, slot=row.slot,
               winner=str(winner.player), score=[winner_points, loser_points])
    announce(tournament)
    return row


@transaction.atomic
def pairing_confirm(*, pairing_id: int, user: Any) -> Pairing:
    """The opponent or a referee confirms a report; the reporter cannot confirm their own."""
    tournament, row = _otb_row(pairing_id)
    if row.reported_by_id is None or row.reported_winner is None:
        raise TournamentError("no_report", _("Nothing has been reported yet."))
    if acting_user(user) is None or user.pk == row.reported_by_id:
        raise TournamentError("own_report", _("The reporter cannot confirm their own report."))
    opponent = next(e for e in row.entries() if e.pk != row.reported_winner_id)
    if opponent.player.user_id != user.pk and not is_referee(user, tournament):
        raise TournamentError("forbidden", _("Only the opponent or a referee can confirm."))
    row.confirmed_by, row.confirmed_at = user, timezone.now()
    settle(tournament, row, row.reported_winner, ResultSource.REPORT,
           winner_points=row.reported_winner_points, loser_points=row.reported_loser_points,
           actor=user, reason="report confirmed")
    return row


@transaction.atomic
def pairing_reject_report(*, pairing_id: int, user: Any, reason: str = "") -> Pairing:
    """The opponent or a referee rejects a report: it is cleared (and logged)."""
    tournament, row = _otb_row(pairing_id)
    if row.reported_by_id is None:
        raise TournamentError("no_report", _("Nothing has been reported yet."))
    opponent = next(e for e in row.entries() if e.pk != row.reported_winner_id)
    if opponent.player.user_id != getattr(user, "pk", None) and not is_referee(user, tournament):
        raise TournamentError("forbidden", _("Only the opponent or a referee can reject it."))
    log_action(tournament, "report_rejected", actor=user, pairing=row, reason=reason, slot=row.slot)
    row.reported_by = row.reported_winner = None
    row.reported_winner_points = row.reported_loser_points = None
    row.reported_at = None
    row.save()
    announce(tournament)
    return row


@transaction.atomic
def pairing_enter_result(*, pairing_id: int, referee: Any, winner_entry_id: int,
                         winner_points: int | None = None, loser_points: int | None = None,
                         reason: str = "") -> Pairing:
    """A referee enters the result of a match played over the board directly, with a
    reason (e.g. "score card signed by both")."""
    tournament, row = _otb_row(pairing_id)
    require_referee(referee, tournament)
    if not (reason or "").strip():
        raise TournamentError("reason_required", _("Entering a result needs a written reason."))
    winner = next((e for e in row.entries() if e.pk == winner_entry_id), None)
    if winner is None:
        raise TournamentError("bad_result", _("The winner must be one of the pairing's players."))
    check_points(tournament, winner_points, loser_points, row.round.match_length)
    row.confirmed_by, row.confirmed_at = referee, timezone.now()
    settle(tournament, row, winner, ResultSource.REFEREE, winner_points=winner_points,
           loser_points=loser_points, actor=referee, reason=reason.strip())
    return row


