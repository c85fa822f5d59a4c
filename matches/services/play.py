"""Acting on a match: a player's action, what the server then does by itself (rolls, the
next game), the clocks and the flag, each under the match's lock."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db import transaction
from django.utils import timezone

from matches import broadcast, presence, selectors, statements, validation
from matches.errors import ServiceError
from matches.models import (
    Event,
    Match,
    Player,
)
from matches.services.finish import _finish_match
from matches.services.log import _actor_id, _log_action, _require_player, _save
from matches.signals import match_finished
from matches.state import (
    MatchDice,
    awaiting_client_seeds,
    load_state,
)
from matches.validation import PLAYER_ACTIONS as PLAYER_ACTIONS  # the checks' own list
from tavla.engine import EngineError
from tavla.engine.actions import (
    AcceptResign,
    Action,
    Double,
    Drop,
    NewGame,
    OpeningRoll,
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
    ``illegal_action`` (the engine's message as detail), ``not_authenticated`` for no
    player, and ``no_match`` when ``table_id`` is given and the match is not played at that
    table. Nothing changes on an error,
    except ``flag_fell``: the acting player's deadline had passed when this request got the
    lock, so the flag is recorded (and committed) instead of the action. ``now`` is for
    tests; it defaults to the time the lock is held.

    Queries: the locked read, one insert of the events (a game's end adds its ``Game`` row)
    and the match's update; a match's end also rates it and frees the table.
    """
    player = _require_player(player, "Log in to play.")
    action, play, level = validation.action_arguments(action, play, level)
    with transaction.atomic():
        match = _locked_match(match_id)
        if table_id is not None and match.table_id != table_id:
            raise ServiceError("no_match", f"Match {match_id} is not played at this table.")
        now = now or timezone.now()
        # A move and a flag that race resolve to one outcome: whoever holds the lock first
        # decides, and a move that gets it after the deadline is too late.
        if not deadline_passed(match, now):
            seat = match.seat_of(player)
            if seat is None:
                raise ServiceError("not_a_player", "Only the two players of this match may act.")
            _check_version(match, expected_version)
            state = load_state(match)
            if action != "resign" and state.player_to_act != seat:
                raise ServiceError("not_your_turn", "It is not your turn to act.")
            engine_action = _engine_action(action, seat, state, play, MatchDice(match), level)
            events, new_state = _apply_and_advance(match, state, engine_action,
                                                   _actor_id(actor) or player.user_id, now)
            return ActResult(match, events, new_state)
        flag_locked(match, load_state(match), now)
    raise ServiceError("flag_fell", "Time ran out before this action arrived: the flag fell.")


def _engine_action(action: str, seat: int, state: MatchState, play: str | None,
                   dice: MatchDice, level: int | None = None) -> Action:
    if action == "roll":
        if state.phase is not Phase.TURN_START:
            raise ServiceError("illegal_action", "You can roll only at the start of your turn.")
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


def _locked_match(match_id: int) -> Match:
    """The match, locked, with what its state needs (table, seats, players) in one query."""
    match = statements.locked_match(match_id)
    if match is None:
        raise ServiceError("not_found", f"There is no match {match_id}.")
    if match.is_finished:
        raise ServiceError("match_over", "This match is over.")
    return match


def _check_version(match: Match, expected_version: int) -> None:
    if expected_version != match.version:
        raise ServiceError(
            "stale_version",
            f"The match has moved on (version {match.version}, you acted on "
            f"{expected_version}); reload the state and try again.",
        )


def _apply_and_advance(match: Match, state: MatchState, action: Action, actor_id: int | None,
                       now: datetime, *, logged: dict[str, Any] | None = None,
                       earlier: list[Event] | None = None) -> tuple[list[Event], MatchState]:
    """Apply ``action`` then everything the server does by itself, save and broadcast; return
    the events and the final state. Caller holds the lock.

    ``logged`` adds to the action's event payload what the engine does not know (why, when):
    each event is written once, with its final payload. ``earlier`` are events already logged
    in this transaction, still to be written (before this action's)."""
    try:
        new_state = state.apply(action)
    except EngineError as error:
        raise ServiceError("illegal_action", str(error)) from error
    events = [*(earlier or []), *_log_action(match, state, new_state, action, actor_id, logged)]
    # A player's own roll after their cube decision is the same turn: same clock, same delay.
    same_turn = isinstance(action, Roll) and new_state.phase is Phase.MOVE
    final = _advance(match, new_state, events, now, same_turn=same_turn)
    return events, final




def match_advance_locked(match: Match, now: datetime) -> None:
    """Let the server do what it does by itself now (the first roll, once the client seeds
    are in: :mod:`matches.dice_seeds`), then save and broadcast. Caller holds the lock."""
    _advance(match, load_state(match), [], now)


def _advance(match: Match, state: MatchState, events: list[Event], now: datetime, *,
             same_turn: bool = False) -> MatchState:
    """Do what the server does by itself, then save and broadcast; return the final state.
    Caller holds the lock.

    The broadcast carries the new public state, computed here once for every board of the
    table (see :func:`matches.selectors.live_update`).

    Opening rolls, a roll when the player on roll has no cube decision (cube off, owned by
    the opponent, Crawford, at its limit), and the next game after a game ends. A roll with
    no legal play passes inside the engine.
    """
    dice = MatchDice(match)
    while True:
        if state.resign_offer is not None:
            break  # the resigning player's opponent answers first
        if state.phase is Phase.OPENING_ROLL:
            if awaiting_client_seeds(match):
                break  # the first roll waits for the players' client seeds
            action: Action = OpeningRoll(*dice.roll_opening())
        elif state.phase is Phase.TURN_START and not state.may_double():
            action = Roll(*dice.roll())
        elif state.phase is Phase.GAME_OVER:
            action = NewGame()
        else:
            break
        before = state
        state = state.apply(action)
        events += _log_action(match, before, state, action, None)
    # The earlier games' events are in their Game rows: the snapshot stays the same size.
    match.snapshot = state.compact().to_dict()
    match.score0, match.score1 = state.score
    match.version += 1
    _restart_clock(match, state, now, same_turn=same_turn)
    finished = state.is_over
    if finished:
        _finish_match(match, state, events, now)
    _save(match, events)
    if finished:
        match_finished.send(sender=Match, match=match)
    broadcast.push_state_on_commit(match.table_id, selectors.live_update(match, state))
    if match.has_bot and not state.is_over:
        from matches.bots import schedule_bot_turn

        schedule_bot_turn(match)
    return state


def _restart_clock(match: Match, state: MatchState, now: datetime, *,
                   same_turn: bool = False) -> None:
    """Run the clock of the player who must act (roll or cube decision, take or drop, play)
    and store their deadline; stop it when nobody must act.

    One delay per turn: with ``same_turn`` (the player rolled after deciding not to double)
    their clock keeps running from the start of the turn. Every hand-over charges the time
    the last player used beyond the delay and gives the next player a fresh delay, at
    ``now``: what the server does by itself in between (rolls, passes, a new game's opening
    roll) costs nobody anything.
    """
    if match.clock is None:
        match.deadline = None
        return
    clock = Clock.from_dict(match.clock)
    acting = state.player_to_act
    stamp = now.timestamp()
    if acting is None or state.is_over:
        clock = clock.stop(stamp)
    elif not (same_turn and clock.running == acting):
        clock = clock.start(acting, stamp)
    match.clock = clock.to_dict()
    deadline = clock.deadline()
    match.deadline = None if deadline is None else datetime.fromtimestamp(deadline, tz=now.tzinfo)




def deadline_passed(match: Match, now: datetime) -> bool:
    return (not match.is_finished and match.clock is not None and match.deadline is not None
            and match.deadline <= now)


def flag_locked(match: Match, state: MatchState, now: datetime) -> bool:
    """Flag the player who must act, whose deadline has passed. Caller holds the lock
    (:func:`matches.clocks.flag_if_expired` and a late :func:`match_act` call it).

    The timeout event records when the flag fell and whether the player had a board open
    (``absent``; ``None`` when presence could not tell), for the grace period.
    """
    loser = state.player_to_act
    if loser is None or match.clock is None:
        return False
    # After a flag the match goes on with that player on delay only.
    match.clock = Clock.from_dict(match.clock).stop(now.timestamp()).flag(loser).to_dict()
    player_id = match.player0_id if loser == 0 else match.player1_id
    absent = presence.absent_at_flag(table_id=match.table_id, player_id=player_id)
    _apply_and_advance(match, state, Timeout(loser), None, now,
                       logged={"flagged_at": now.timestamp(), "absent": absent})
    return True
