"""What every tournament service needs: the error type, the tournament lock, the log, the
announcement to open pages, and the permission checks."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext as _

from matches.errors import ServiceError
from matches.models import Match, MatchStatus
from matches.services.broadcast import broadcast_on_commit
from tavla.engine.scores import final_score_problem, max_game_value
from tournaments import formats
from tournaments.models import Pairing, Tournament, TournamentLog
from tournaments.selectors import can_direct, format_of, is_referee, tournament_group


class TournamentError(ServiceError):
    """A refused request: ``code`` is stable for programs, ``detail`` is for people."""


# -- helpers -------------------------------------------------------------------------------


def has_divisions(tournament_id: int) -> bool:
    """Whether the tournament is an event with divisions."""
    return Tournament.objects.filter(event_id=tournament_id).exists()


def divisions_of(event: Tournament) -> list[Tournament]:
    """An event's divisions, in their order."""
    return list(event.divisions.order_by("division_order", "pk"))


def locked(tournament_id: int) -> Tournament:
    try:
        return Tournament.objects.select_for_update().get(pk=tournament_id)
    except Tournament.DoesNotExist:
        raise TournamentError("not_found",
                              _("There is no tournament %(tournament_id)s.")
                              % {"tournament_id": tournament_id}) from None


def format_for(tournament: Tournament) -> formats.Format:
    try:
        return format_of(tournament)
    except formats.PairingError as error:
        raise TournamentError(error.code, _(error.template) % error.params) from error


def acting_user(actor: Any) -> Any:
    return actor if actor is not None and getattr(actor, "is_authenticated", False) else None


def log_action(tournament: Tournament, action: str, *, actor: Any = None,
               pairing: Pairing | None = None, reason: str = "", **data: Any) -> TournamentLog:
    """Append one line to the tournament's append-only log."""
    return TournamentLog.objects.create(
        tournament=tournament, pairing=pairing, actor=acting_user(actor), action=action,
        reason=reason, data=data,
    )


def announce(tournament: Tournament) -> None:
    broadcast_on_commit(
        tournament_group(tournament.pk),
        {"type": "tournament.changed", "tournament_id": tournament.pk},
    )


def require_director(actor: Any, tournament: Tournament) -> None:
    if actor is not None and not can_direct(actor, tournament):
        raise TournamentError("forbidden", _("Only the tournament's director may do that."))


def require_referee(actor: Any, tournament: Tournament) -> None:
    if not is_referee(actor, tournament):
        raise TournamentError("forbidden", _("Only a referee or the director may do that."))


def check_configuration(tournament: Tournament) -> None:
    format_for(tournament)
    lengths = tournament.match_lengths
    if not isinstance(lengths, list) or not lengths or not all(
        isinstance(n, int) and not isinstance(n, bool) and 1 <= n <= 99 for n in lengths
    ):
        raise TournamentError(
            "bad_match_lengths", _("Match lengths must be a list of 1 to 99 points, e.g. [3, 5].")
        )
    days = tournament.correspondence_days
    if days is not None and (isinstance(days, bool) or not isinstance(days, int)
                             or not 1 <= days <= 7):
        raise TournamentError("bad_option", _("A correspondence clock gives 1 to 7 days per "
                                              "move."), field="correspondence_days")




def played_at(table_id: int | None) -> bool:
    """Whether a match that counts was started at the table: a voided one does not (its
    pairing is played again there)."""
    return table_id is not None and (Match.objects.filter(table_id=table_id)
                                     .exclude(status=MatchStatus.VOIDED).exists())


def check_points(tournament: Tournament, winner_points: int | None,
                 loser_points: int | None, length: int) -> None:
    """Refuse a score that cannot end a ``length``-point match under the tournament's rules
    (:func:`tavla.engine.scores.final_score_problem`); no score at all is allowed."""
    if winner_points is None and loser_points is None:
        return
    if winner_points is None or loser_points is None:
        raise TournamentError("bad_score", _("Give both scores, or neither."))
    problem = final_score_problem(length, winner_points, loser_points,
                                  cube=tournament.cube_enabled,
                                  gammons=tournament.gammons_enabled)
    if problem is not None:
        raise TournamentError(
            "bad_score", _("%(winner_points)s–%(loser_points)s cannot end a %(length)s-point "
                           "match: %(problem)s.")
                         % {"winner_points": winner_points, "loser_points": loser_points,
                            "length": length,
                            "problem": _score_words(tournament, winner_points, loser_points,
                                                    length)})


def _score_words(tournament: Tournament, winner_points: int, loser_points: int,
                 length: int) -> str:
    """The engine's reason (:func:`~tavla.engine.scores.final_score_problem`, which speaks
    only English) in the reader's words, reason by reason in the engine's order."""
    for value in (length, winner_points, loser_points):
        if isinstance(value, bool) or not isinstance(value, int):
            return _("scores are whole numbers of points")
    if length < 1:
        return _("a match is played to at least 1 point")
    if loser_points < 0:
        return _("a score cannot be negative")
    if loser_points >= length:
        return _("the loser cannot have %(loser_points)s: reaching %(length)s would have won "
                 "the %(length)s-point match") % {"loser_points": loser_points, "length": length}
    if winner_points < length:
        return _("the winner must have at least %(length)s points in a %(length)s-point "
                 "match") % {"length": length}
    most = length - 1 + max_game_value(cube=tournament.cube_enabled,
                                       gammons=tournament.gammons_enabled)
    return _("the winner cannot have %(winner_points)s: the last game brings at most "
             "%(least)s to %(most)s") % {"winner_points": winner_points, "least": length - 1,
                                         "most": most}


def live_match(row: Pairing) -> Match | None:
    """The match being played at the pairing's table, if any."""
    if row.table_id is None:
        return None
    return Match.objects.filter(table_id=row.table_id, status=MatchStatus.PLAYING).first()
