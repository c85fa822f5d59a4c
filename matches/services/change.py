"""The one door for every change to a match.

Every change — a player's action, the cube and resignations, a flag, a forfeit, a client
seed, a rematch offer, the end of a money session, an adjudication, a void — is made inside
:func:`match_change`, and nowhere else:

* the match row is locked once (``SELECT … FOR UPDATE``) with what its state needs;
* the caller changes it through the :class:`MatchChange` it is handed: engine actions
  (:meth:`MatchChange.apply`, the engine judges), log entries the engine does not know
  (:meth:`MatchChange.log`), or plain fields (:meth:`MatchChange.touch`);
* when the block ends without an error and something changed, the server does what it
  does by itself (rolls, the next game), the clock hands over, a finished match is scored
  (:func:`matches.services.finish._finish_match`), the version goes up by exactly one, the
  log and the snapshot are written together, and exactly one state is pushed to the table's
  boards after commit;
* an error raised inside the block rolls all of it back: nothing is written, nothing pushed.

Like lila's round actor (``handle`` → ``publish``), this is a mechanism, not a habit:
``tests/matches/test_one_door.py`` fails if any other module locks a ``Match`` for update,
saves one or writes its ``version``, and drives every kind of change through both doors
(REST and the socket) checking one push at the previous version plus one.

New matches are made here too (:func:`match_create`), at version 1, pushed once.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from typing import Any

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from matches import selectors
from matches.engine_words import refusal_words
from matches.errors import ServiceError
from matches.models import Event, LogKind, Match
from matches.services import broadcast, correspondence, statements
from matches.services.finish import _finish_match
from matches.services.log import _event, _log_action
from matches.signals import match_changed, match_finished
from matches.state import MatchDice, awaiting_client_seeds, load_state
from tavla.engine import EngineError
from tavla.engine.actions import Action, NewGame, OpeningRoll, Roll
from tavla.engine.clock import Clock
from tavla.engine.game import Phase
from tavla.engine.match import MatchState
from tavla.logs import match_context

# The matches this thread is changing: a change opened inside another change of the same
# match would take the lock it already holds and write a second version; it fails loudly.
_open = threading.local()


class MatchChange:
    """One change to one locked match, as :func:`match_change` hands it to its caller.

    ``match`` is the locked row (with table, seats and players); ``now`` the time the lock
    was taken (or the caller's); ``state`` the engine state, as changed so far; ``events``
    the log entries this change will write.
    """

    def __init__(self, match: Match, now: datetime) -> None:
        self.match = match
        self.now = now
        self.events: list[Event] = []
        self._state: MatchState | None = None
        self._changed = False
        self._advance = False
        self._same_turn = False
        self._voided = False

    @property
    def state(self) -> MatchState:
        if self._state is None:
            self._state = load_state(self.match)
        return self._state

    @property
    def changed(self) -> bool:
        return self._changed

    def apply(self, action: Action, actor_id: int | None, *,
              logged: dict[str, Any] | None = None) -> MatchState:
        """Let the engine judge ``action`` and log it (``logged`` adds what the engine does
        not know: why, when). Raises :class:`ServiceError` ``illegal_action`` with the
        engine's reason; the state is unchanged then."""
        before = self.state
        try:
            after = before.apply(action)
        except EngineError as error:
            # The engine's sentence is English; the reader gets the reason in their words.
            raise ServiceError("illegal_action",
                               refusal_words(before, action, error)) from error
        self.events += _log_action(self.match, before, after, action, actor_id, logged)
        # A takeback is asked for the state as it was: any action moves on and withdraws it.
        self.match.takeback_seat = None
        # A player's own roll after their cube decision is the same turn: same clock.
        self._same_turn = isinstance(action, Roll) and after.phase is Phase.MOVE
        self._state = after
        self._changed = self._advance = True
        return after

    def log(self, kind: str, payload: dict[str, Any], actor_id: int | None) -> None:
        """Log an entry the engine does not judge (a void)."""
        self.events.append(_event(self.match, kind, payload, self.state.game_number, actor_id))
        self._changed = True

    def touch(self) -> None:
        """Say that the caller changed the match's own fields (a client seed, rematch
        offers): the change gets its version and its push like any other."""
        self._changed = True

    def advance(self) -> None:
        """Let the server do what it does by itself now (the first roll once the client
        seeds are in), with the clock handed over."""
        self._changed = self._advance = True

    def restore(self, state: MatchState, kind: str, payload: dict[str, Any],
                actor_id: int | None) -> None:
        """Put the match back to an earlier ``state`` of its current game (an accepted
        takeback, :mod:`matches.services.takeback`), logged as ``kind`` with ``payload``
        (which names the event restored to, so the log replays); the clock goes to whoever
        must act then."""
        self.log(kind, payload, actor_id)
        self._state = state
        self._advance = True

    def extend_clock(self, seconds: float) -> None:
        """Move the running clock's deadline by ``seconds`` (a correspondence player's
        vacation, :mod:`matches.services.vacation`); pushed like any change."""
        if self.match.clock is None:
            return
        clock = Clock.from_dict(self.match.clock).extend(seconds)
        self.match.clock = clock.to_dict()
        _store_deadline(self.match, clock, self.now)
        self._changed = True

    def void(self, reason: str, actor_id: int | None) -> None:
        """End the match without a result (logged with ``reason``)."""
        self.log(LogKind.VOID, {"reason": reason}, actor_id)
        self._voided = True

    # -- the end of the change: called by match_change only ------------------------------

    def _commit(self) -> None:
        match = self.match
        state = self.state
        if self._advance:
            state = self._state = _server_actions(match, state, self.events)
            match.snapshot = state.compact().to_dict()
            match.score0, match.score1 = state.score
            _restart_clock(match, state, self.now, same_turn=self._same_turn)
        match.version += 1
        finished = self._voided or (state.is_over and not match.is_finished)
        if finished:
            _finish_match(match, state, self.events, self.now, voided=self._voided)
        if match.is_finished:
            match.to_act = None  # nobody's turn: off the "your turn" page
        statements.write_action(match, self.events)
        match_changed.send(sender=Match, match=match, state=state)
        if finished:
            match_finished.send(sender=Match, match=match)
        broadcast.push_state_on_commit(match.table_id, selectors.live_update(match, state))


@contextmanager
def match_change(match_id: int, *, table_id: int | None = None, finished: bool = False,
                 skip_locked: bool = False, now: datetime | None = None
                 ) -> Iterator[MatchChange]:
    """Lock ``match_id`` and hand its change to the block; see the module's docstring.

    Raises :class:`ServiceError`: ``not_found`` (no such match, or, with ``skip_locked``,
    ``match_busy`` when another transaction holds it), ``no_match`` (``table_id`` given and
    the match is not played there), ``match_over`` (the match is finished, unless
    ``finished`` allows it: rematch offers, verification). Errors raised in the block
    propagate and undo the change. ``now`` is for tests; it defaults to the time the lock
    is held. A change of a match opened inside a change of the same match raises
    ``RuntimeError``.
    """
    changing: set[int] = _open.__dict__.setdefault("ids", set())
    if match_id in changing:
        raise RuntimeError(f"match {match_id} is already being changed in this thread: "
                           "one change per match at a time")
    changing.add(match_id)
    try:
        with match_context(match_id), transaction.atomic():
            match = _lock(match_id, skip_locked=skip_locked)
            if table_id is not None and match.table_id != table_id:
                raise ServiceError("no_match",
                                   _("Match %(match_id)s is not played at this table.")
                                   % {"match_id": match_id})
            if match.is_finished and not finished:
                raise ServiceError("match_over", _("This match is over."))
            change = MatchChange(match, now or timezone.now())
            yield change
            if change.changed:
                change._commit()
    finally:
        changing.discard(match_id)


def refuse_saves_outside(sender: Any, *, instance: Match, **_kwargs: Any) -> None:
    """``pre_save`` of :class:`Match` (connected in ``MatchesConfig.ready``): a match is
    created and written here only. ``save()`` anywhere else — an admin form, a shell, a new
    path — raises instead of writing a version nobody pushed."""
    ids: set[int] = _open.__dict__.get("ids", set())
    if instance.pk not in ids and not _open.__dict__.get("creating", False):
        raise RuntimeError(f"match {instance.pk} may change only through the one door, "
                           "matches.services.change.match_change")


def _lock(match_id: int, *, skip_locked: bool) -> Match:
    if skip_locked:
        # The clock sweep: a match someone else holds is theirs to decide (a late move
        # flags under its own lock); the next sweep looks again. Rare: the ORM's query.
        # SQLite has no row locks at all (its writers queue for the database).
        found = (Match.objects.select_for_update(skip_locked=True, of=("self",))
                 .select_related("table", "table__seat0", "table__seat1", "player0", "player1")
                 .filter(pk=match_id).first())
        if found is None:
            if Match.objects.filter(pk=match_id).exists():
                raise ServiceError("match_busy", _("Another change of this match is under way."))
            raise ServiceError("not_found",
                               _("There is no match %(match_id)s.") % {"match_id": match_id})
        return found
    match = statements.locked_match(match_id)
    if match is None:
        raise ServiceError("not_found",
                           _("There is no match %(match_id)s.") % {"match_id": match_id})
    return match


def match_create(*, create: dict[str, Any], state: MatchState, start: dict[str, Any],
                 now: datetime, before_start: Any = None) -> Match:
    """Create a match from the model fields ``create`` with its engine ``state`` and its
    ``start`` event's payload, then let the server make its first moves, at version 1,
    pushed once after commit. ``before_start(match)`` may set fields (client seeds, the
    clock) before the first moves. Caller holds the table's row lock."""
    _open.creating = True
    try:
        match = Match.objects.create(snapshot=state.to_dict(), **create)
    finally:
        _open.creating = False
    if before_start is not None:
        before_start(match)
    change = MatchChange(match, now)
    change._state = state
    change.events.append(_event(match, LogKind.START, start, 0))
    change.advance()
    change._commit()
    return match


def _server_actions(match: Match, state: MatchState, events: list[Event]) -> MatchState:
    """What the server does by itself: opening rolls, a roll when the player on roll has
    no cube decision (cube off, owned by the opponent, Crawford, at its limit), and the
    next game after a game ends. A roll with no legal play passes inside the engine."""
    dice = MatchDice(match)
    while True:
        if state.resign_offer is not None:
            break  # the resigning player's opponent answers first
        if state.phase is Phase.OPENING_ROLL:
            if awaiting_client_seeds(match):
                break  # the first roll waits for the players' client seeds
            action: Action = OpeningRoll(*dice.roll_opening())
        elif state.phase is Phase.TURN_START and (not state.may_double()
                                                   or rolls_for(match, state)):
            action = Roll(*dice.roll())
        elif state.phase is Phase.GAME_OVER:
            action = NewGame()
        else:
            break
        before = state
        state = state.apply(action)
        events += _log_action(match, before, state, action, None)
    return state


def rolls_for(match: Match, state: MatchState) -> bool:
    """Whether the server rolls for the player on roll although they may double: they
    chose "never double" for this match, or their preference ``auto_roll`` is on and a
    double cannot help them (a single win at the current cube value already wins them the
    match, so doubling only gives the opponent a cube to use). No query: the players come
    with the locked match."""
    seat = state.player_on_roll
    if seat is None:
        return False
    if seat in match.never_double:
        return True
    player = match.player0 if seat == 0 else match.player1
    needed = state.points_needed(seat)
    return bool(player.auto_roll and needed is not None and state.cube_value >= needed)


def _restart_clock(match: Match, state: MatchState, now: datetime, *,
                   same_turn: bool = False) -> None:
    """Run the clock of the player who must act (roll or cube decision, take or drop, play)
    and store their deadline; stop it when nobody must act. Record who must act and since
    when (``to_act``, ``turn_since``: the "your turn" page), and in a correspondence match
    begin their turn (:mod:`matches.services.correspondence`: a vacation, the mail).

    One delay per turn: with ``same_turn`` (the player rolled after deciding not to double)
    their clock keeps running from the start of the turn. Every hand-over charges the time
    the last player used beyond the delay and gives the next player a fresh delay, at
    ``now``: what the server does by itself in between (rolls, passes, a new game's opening
    roll) costs nobody anything.
    """
    acting = None if state.is_over else state.player_to_act
    before = match.to_act_id
    player = None if acting is None else match.players()[acting]
    new_turn = player is not None and not (same_turn and before == player.pk)
    match.to_act = player
    if player is None:
        match.turn_since = None
    elif new_turn:
        match.turn_since = now
    if match.clock is None:
        match.deadline = None
        return
    clock = Clock.from_dict(match.clock)
    stamp = now.timestamp()
    if acting is None:
        clock = clock.stop(stamp)
    elif not (same_turn and clock.running == acting):
        clock = clock.start(acting, stamp)
        if match.table.correspondence_days and player is not None:
            # A player on vacation begins their turn with it (the vacation's rest added).
            clock = clock.extend(correspondence.vacation_extension(player.pk, now))
    if new_turn and player is not None and match.table.correspondence_days:
        _correspondence_turn(match, player, now)
    match.clock = clock.to_dict()
    _store_deadline(match, clock, now)


def _correspondence_turn(match: Match, player: Any, now: datetime) -> None:
    """A correspondence turn begins for ``player``: their one mail for it, after commit
    (a bot reads no mail)."""
    if not player.is_bot:
        correspondence.notify_on_commit(match.pk, player.pk, now)


def _store_deadline(match: Match, clock: Clock, now: datetime) -> None:
    deadline = clock.deadline()
    match.deadline = None if deadline is None else datetime.fromtimestamp(deadline, tz=now.tzinfo)
