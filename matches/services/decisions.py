"""Server and referee decisions: forfeits, adjudication, voiding, verification and the end
of a money session."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from matches.errors import ServiceError
from matches.models import (
    Event,
    Match,
    Player,
)
from matches.services.change import MatchChange, match_change
from matches.services.log import _actor_id, _require_player
from matches.services.play import check_version
from matches.state import (
    replay_events,
    stored_state,
)
from tavla.engine import EngineError
from tavla.engine.actions import (
    AcceptResign,
    Action,
    Adjudicate,
    AdjudicationScope,
    EndSession,
    Forfeit,
    Resign,
)

# -- server and referee decisions ------------------------------------------------------------


def match_forfeit(*, match_id: int, loser: Player, reason: str, actor: Any = None) -> Match:
    """``loser`` forfeits the match (no-show, disconnection past grace, disqualification)."""
    with match_change(match_id) as change:
        forfeit_change(change, loser=loser, reason=reason, actor=actor)
    return change.match


def forfeit_change(change: MatchChange, *, loser: Player, reason: str, actor: Any = None) -> None:
    """``loser`` forfeits the match being changed (:func:`match_forfeit`; the clock's grace
    forfeit, which decides under the same lock whether the player came back)."""
    seat = change.match.seat_of(loser)
    if seat is None:
        raise ServiceError("not_a_player", _("Only a player of this match can forfeit it."))
    change.apply(Forfeit(seat), _actor_id(actor), logged={"reason": reason})


def match_adjudicate(*, match_id: int, referee: Any, winner: Player, scope: str,
                     reason: str, points: int | None = None,
                     expected_version: int | None = None) -> Match:
    """A referee awards the current game or the whole match to ``winner``, with a reason,
    decided on ``expected_version`` when given (the position the referee looked at:
    ``stale_version`` if a move landed since).

    The decision is itself an event carrying the referee and the reason.
    """
    reason = (reason or "").strip()
    if not reason:
        raise ServiceError("reason_required", _("An adjudication needs a written reason."))
    try:
        scope_value = AdjudicationScope(scope)
    except ValueError:
        raise ServiceError("invalid_scope", _("Adjudicate the 'game' or the 'match'.")) from None
    with match_change(match_id) as change:
        if expected_version is not None:
            check_version(change.match, expected_version)
        seat = change.match.seat_of(winner)
        if seat is None:
            raise ServiceError("not_a_player", _("The winner must be a player of this match."))
        action = Adjudicate(winner=seat, scope=scope_value, points=points, reason=reason)
        change.apply(action, _actor_id(referee))
    return change.match


def match_void(*, match_id: int, referee: Any, reason: str) -> Match:
    """Cancel a match without a result (no score, no rating change), through the one
    finisher: listeners hear ``match_finished`` with a voided match."""
    reason = (reason or "").strip()
    if not reason:
        raise ServiceError("reason_required", _("Voiding a match needs a written reason."))
    with match_change(match_id) as change:
        change.void(reason, _actor_id(referee))
    return change.match


@dataclass(frozen=True)
class Verification:
    ok: bool
    events: int
    detail: str


def match_verify(*, match_id: int) -> Verification:
    """Replay the event log through the engine and compare with the stored state: the
    snapshot and the finished games' records (:func:`matches.state.stored_state`)."""
    # Read under the match's lock, so no change lands between the log and the snapshot.
    with match_change(match_id, finished=True) as change:
        match = change.match
        events = list(match.events.order_by("sequence"))
        return _verified(match, events)


def _verified(match: Match, events: list[Event]) -> Verification:
    gaps = [e.sequence for i, e in enumerate(events) if e.sequence != i]
    if gaps:
        return Verification(False, len(events),
                            _("the log has a gap or duplicate at event %(sequence)s")
                            % {"sequence": gaps[0]})
    try:
        replayed = replay_events(events)
    except (EngineError, ValueError, KeyError) as error:
        return Verification(False, len(events), _("the log does not replay: %(error)s")
                            % {"error": error})
    try:
        stored = stored_state(match)
    except (EngineError, ValueError, KeyError, TypeError) as error:
        return Verification(False, len(events), _("the stored state does not read: %(error)s")
                            % {"error": error})
    if stored is None:
        return Verification(False, len(events), _("a finished game's record is missing"))
    if replayed.to_dict() != stored.to_dict():
        return Verification(False, len(events), _("replaying the log gives a different state"))
    return Verification(True, len(events), ngettext("%(count)s event replays to the stored state",
                                                  "%(count)s events replay to the stored state",
                                                  len(events)) % {"count": len(events)})


def match_end_session(*, match_id: int, player: Player | None,
                      expected_version: int | None = None, table_id: int | None = None) -> Match:
    """End a money session (either player may close it), made against ``expected_version``
    when given.

    The next game starts as soon as one ends, so a session is never between games: the
    player who ends it resigns the game in progress first (single × cube to the opponent).
    """
    player = _require_player(player, _("Log in to end the session."))
    with match_change(match_id, table_id=table_id) as change:
        match = change.match
        seat = match.seat_of(player)
        if seat is None:
            raise ServiceError("not_a_player", _("Only a player may end the session."))
        if expected_version is not None:
            check_version(match, expected_version)
        state = change.state
        if not state.rules.is_money:
            raise ServiceError("illegal_action", _("Only a money session can be ended; "
                               "a match ends when a player reaches the match length."))
        if state.resign_offer is not None:
            raise ServiceError("illegal_action", _("A resignation waits for its answer: the "
                               "session can end once it is accepted or refused."))
        if state.phase.in_game:
            # At an "offer" table the session's end resigns a single game: offered, accepted.
            steps: list[Action] = [Resign(seat)]
            if state.rules.resignation == "offer":
                steps.append(AcceptResign())
            for step in steps:
                change.apply(step, player.user_id)
        change.apply(EndSession(), player.user_id)
    return change.match
