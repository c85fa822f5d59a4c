"""Acting on a match: a player's action and the flag, each one change through the one door
(:mod:`matches.services.change`), which then does what the server does by itself."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.utils.translation import gettext as _

from matches import validation
from matches.errors import ServiceError
from matches.models import (
    Event,
    Match,
    Player,
)
from matches.services import presence
from matches.services.change import MatchChange, match_change
from matches.services.log import _actor_id, _require_player
from matches.state import MatchDice
from matches.validation import PLAYER_ACTIONS as PLAYER_ACTIONS  # the checks' own list
from tavla import metrics
from tavla.engine.actions import (
    AcceptResign,
    Action,
    Double,
    Drop,
    PlayMove,
    RejectResign,
    Resign,
    Roll,
    Take,
    Timeout,
)
from tavla.engine.clock import Clock
from tavla.engine.game import Phase
from tavla.engine.match import MatchState

# -- acting on a match ---------------------------------------------------------------------


@dataclass(frozen=True)
class ActResult:
    """What an action did: the match as saved, the events logged, the new engine state."""

    match: Match
    events: list[Event]
    state: MatchState


def match_act(
    *,
    match_id: int,
    player: Player | None,
    action: str,
    expected_version: int,
    play: str | None = None,
    actor: Any = None,
    now: datetime | None = None,
    table_id: int | None = None,
    level: int | None = None,
) -> ActResult:
    """Apply a player's action: ``roll``, ``double``, ``take``, ``drop``, ``play`` (with the
    play's notation), ``resign`` (with an optional ``level``: 1 single, 2 gammon, 3
    backgammon, on a table whose resignation style is ``offer``), ``accept_resign`` or
    ``reject_resign``, made against ``expected_version``.

    Raises :class:`ServiceError` with codes ``unknown_action``, ``not_found``,
    ``match_over``, ``not_a_player``, ``stale_version``, ``not_your_turn`` and
    ``illegal_action`` (the engine's reason in the reader's words,
    :mod:`matches.engine_words`), ``not_authenticated`` for no player, and ``no_match``
    when ``table_id`` is given and the match is not played at that table. Nothing changes on
    an error,
    except ``flag_fell``: the acting player's deadline had passed when this request got the
    lock, so the flag is recorded (and committed) instead of the action. ``now`` is for
    tests; it defaults to the time the lock is held.

    Queries: the locked read, one insert of the events (a game's end adds its ``Game`` row)
    and the match's update; a match's end also rates it and frees the table.
    """
    player = _require_player(player, _("Log in to play."))
    action, play, level = validation.action_arguments(action, play, level)
    with metrics.timed_action(action, refused=ServiceError):
        return _act(match_id=match_id, player=player, action=action,
                    expected_version=expected_version, play=play, actor=actor, now=now,
                    table_id=table_id, level=level)


def _act(*, match_id: int, player: Player, action: str, expected_version: int,
         play: str | None, actor: Any, now: datetime | None, table_id: int | None,
         level: int | None) -> ActResult:
    with match_change(match_id, table_id=table_id, now=now) as change:
        match = change.match
        # A move and a flag that race resolve to one outcome: whoever holds the lock first
        # decides, and a move that gets it after the deadline is too late.
        flagged = deadline_passed(match, change.now) and flag_change(change)
        if not flagged:
            seat = match.seat_of(player)
            if seat is None:
                raise ServiceError("not_a_player", _("Only the two players of this match may act."))
            check_version(match, expected_version)
            state = change.state
            if action != "resign" and state.player_to_act != seat:
                raise ServiceError("not_your_turn", _("It is not your turn to act."))
            engine_action = _engine_action(action, seat, state, play, MatchDice(match), level)
            change.apply(engine_action, _actor_id(actor) or player.user_id)
    if not flagged:
        return ActResult(change.match, change.events, change.state)
    raise ServiceError("flag_fell", _("Time ran out before this action arrived: the flag fell."))


def _engine_action(action: str, seat: int, state: MatchState, play: str | None,
                   dice: MatchDice, level: int | None = None) -> Action:
    if action == "roll":
        if state.phase is not Phase.TURN_START:
            raise ServiceError("illegal_action", _("You can roll only at the start of your turn."))
        return Roll(*dice.roll(), player=seat)
    if action == "double":
        return Double(player=seat)
    if action == "take":
        return Take(player=seat)
    if action == "drop":
        return Drop(player=seat)
    if action == "play":
        assert play is not None
        return PlayMove(play, player=seat)
    if action == "accept_resign":
        return AcceptResign(player=seat)
    if action == "reject_resign":
        return RejectResign(player=seat)
    return Resign(seat, level)


def check_version(match: Match, expected_version: int) -> None:
    if expected_version != match.version:
        raise ServiceError(
            "stale_version",
            _("The match has moved on (version %(version)s, you acted on %(expected_version)s); "
              "reload the state and try again.")
            % {"version": match.version, "expected_version": expected_version},
        )


def deadline_passed(match: Match, now: datetime) -> bool:
    return (not match.is_finished and match.clock is not None and match.deadline is not None
            and match.deadline <= now)


def flag_change(change: MatchChange) -> bool:
    """Flag the player who must act, whose deadline has passed, in ``change``
    (:func:`matches.services.clocks.flag_if_expired` and a late :func:`match_act` call it).

    The timeout event records when the flag fell and whether the player had a board open
    (``absent``; ``None`` when presence could not tell), for the grace period.
    """
    match, state, now = change.match, change.state, change.now
    loser = state.player_to_act
    if loser is None or match.clock is None:
        return False
    # After a flag the match goes on with that player on delay only.
    match.clock = Clock.from_dict(match.clock).stop(now.timestamp()).flag(loser).to_dict()
    player_id = match.player0_id if loser == 0 else match.player1_id
    absent = presence.absent_at_flag(table_id=match.table_id, player_id=player_id)
    change.apply(Timeout(loser), None, logged={"flagged_at": now.timestamp(), "absent": absent})
    return True
