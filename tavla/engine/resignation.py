"""Resignation offers (``Rules.resignation == "offer"``): a player offers to lose a single
game, a gammon or a backgammon, and the opponent accepts or refuses (FIBS, gnubg, WBF). On a
``"single"`` table a resignation ends the game at once. Functions of a :class:`MatchState`,
which :meth:`MatchState.apply` calls for :class:`Resign`, :class:`AcceptResign` and
:class:`RejectResign`."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from tavla.engine.actions import AcceptResign, RejectResign, Resign
from tavla.engine.errors import IllegalActionError
from tavla.engine.game import EndReason, EventKind, GameEvent, GameResult, Seat, check_seat, other
from tavla.engine.rules import LEVEL_KINDS, ResignOffer

if TYPE_CHECKING:
    from tavla.engine.match import MatchState


def resign(state: MatchState, action: Resign) -> MatchState:
    """A resignation: at once on a ``"single"`` table, else an offer of ``level``."""
    loser = check_seat(action.player)
    level = action.level
    if level is not None and (isinstance(level, bool) or level not in LEVEL_KINDS):
        raise IllegalActionError(f"a resignation level is 1, 2 or 3, not {level!r}")
    if state.rules.resignation == "single":
        if level not in (None, 1):
            raise IllegalActionError(
                "this table resigns a single game times the cube: no gammon or "
                "backgammon resignation"
            )
        return state._resign(loser, EventKind.RESIGN, EndReason.RESIGN)
    if not state.phase.in_game:
        raise IllegalActionError(f"player {loser} cannot resign now: {state._describe_phase()}")
    level = level or 1
    if level > 1 and not state.rules.gammons:
        raise IllegalActionError(
            "this table plays without gammons: a resignation is a single game"
        )
    offer = ResignOffer(loser, level)
    event = GameEvent(EventKind.RESIGN_OFFER, player=loser, value=level)
    return replace(state, resign_offer=offer, games=state._record(event))


def _pending_offer(state: MatchState, claimed: Seat | None, doing: str) -> ResignOffer:
    offer = state.resign_offer
    if offer is None:
        raise IllegalActionError(
            f"cannot {doing} a resignation: none is offered ({state._describe_phase()})"
        )
    state._check_actor(claimed, f"{doing} the resignation")
    return offer


def accept(state: MatchState, action: AcceptResign) -> MatchState:
    """The opponent accepts the offer: the game ends, ``level`` times the cube."""
    offer = _pending_offer(state, action.player, "accept")
    result = GameResult(
        winner=other(offer.player),
        points=offer.level * state.cube_value,
        kind=offer.kind,
        reason=EndReason.RESIGN,
        cube_value=state.cube_value,
    )
    event = GameEvent(EventKind.RESIGN, player=offer.player, value=offer.level)
    return state._end_game(result, event)


def reject(state: MatchState, action: RejectResign) -> MatchState:
    """The opponent refuses the offer: play goes on as before it."""
    offer = _pending_offer(state, action.player, "refuse")
    event = GameEvent(EventKind.RESIGN_REJECT, player=other(offer.player), value=offer.level)
    return replace(state, resign_offer=None, games=state._record(event))
