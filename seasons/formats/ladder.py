"""Challenge ladder: challenge a few places above you; win and you take the place.

The ladder is an order of players, best first. The rules, one set for every ladder (a ladder
chooses only ``reach``, how many places above a player may be challenged, and the drop for
inactivity):

- A player joins at the bottom; a player who leaves is taken out and those below move up.
- A player may challenge a player at most ``reach`` places above; never below, never
  themselves (:func:`challenge_refusal`).
- If the challenger wins, they take the defender's place and the defender and everyone
  between move down one place. If the defender wins, nothing moves. A challenge refused or
  not played in time is decided by forfeit: the same move as a win for whoever did not fail.
- A player inactive for the ladder's period drops ``places`` places (not below the bottom):
  those they pass move up one.

Every change is an event (:class:`Joined`, :class:`Left`, :class:`Decided`, :class:`Dropped`);
:func:`replay` turns the history back into the order, so the order shown can be checked
against the history at any time.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from tournaments.formats.base import gettext_noop


class LadderError(ValueError):
    """A change the rules refuse; ``code`` says which rule."""

    def __init__(self, code: str, message: str, **params: Any) -> None:
        # A %-template and its values, as tournaments.formats.base.PairingError's.
        super().__init__(message % params)
        self.code = code
        self.template = message
        self.params = params


@dataclass(frozen=True)
class Joined:
    player: Hashable


@dataclass(frozen=True)
class Left:
    player: Hashable


@dataclass(frozen=True)
class Decided:
    """A challenge decided: on the board, or by forfeit (``forfeit``) when one side refused
    or did not play in time."""

    challenger: Hashable
    defender: Hashable
    winner: Hashable
    forfeit: bool = False


@dataclass(frozen=True)
class Dropped:
    """An inactive player moved down ``places`` places (fewer at the bottom)."""

    player: Hashable
    places: int


Event = Joined | Left | Decided | Dropped


def place_of(order: Sequence[Hashable], player: Hashable) -> int:
    """The player's place, 1 for the top; :class:`LadderError` ``not_on_ladder`` if absent."""
    try:
        return order.index(player) + 1
    except ValueError:
        raise LadderError("not_on_ladder", gettext_noop("%(player)r is not on the ladder."),
                          player=player) from None


def challenge_refusal(order: Sequence[Hashable], challenger: Hashable, defender: Hashable,
                      reach: int) -> LadderError | None:
    """Why ``challenger`` may not challenge ``defender`` on this ladder, or None if they may."""
    if challenger == defender:
        return LadderError("challenge_self", gettext_noop("You cannot challenge yourself."))
    try:
        mine, theirs = place_of(order, challenger), place_of(order, defender)
    except LadderError as error:
        return error
    if theirs > mine:
        return LadderError("challenge_below",
                           gettext_noop("You may challenge only players above you."))
    if mine - theirs > reach:
        return LadderError("challenge_out_of_reach",
                           gettext_noop("You may challenge at most %(reach)s places above "
                                        "you."), reach=reach)
    return None


def apply(order: Sequence[Hashable], event: Event) -> tuple[Hashable, ...]:
    """The order after ``event``; :class:`LadderError` if the rules refuse it (the order is
    not changed: a new tuple is returned, never the given one altered)."""
    ladder = list(order)
    if isinstance(event, Joined):
        if event.player in ladder:
            raise LadderError("already_on_ladder",
                              gettext_noop("%(player)r is already on the "
                                           "ladder."), player=event.player)
        ladder.append(event.player)
    elif isinstance(event, Left):
        ladder.pop(place_of(ladder, event.player) - 1)
    elif isinstance(event, Decided):
        if event.winner not in (event.challenger, event.defender):
            raise LadderError("winner_not_a_player",
                              gettext_noop("The winner must be one of the two players."))
        mine, theirs = place_of(ladder, event.challenger), place_of(ladder, event.defender)
        if theirs >= mine:
            raise LadderError("challenge_below",
                              gettext_noop("The defender must stand above the challenger."))
        if event.winner == event.challenger:
            ladder.pop(mine - 1)
            ladder.insert(theirs - 1, event.challenger)
    elif isinstance(event, Dropped):
        if event.places < 0:
            raise LadderError("bad_drop",
                              gettext_noop("A drop is a number of places down, 0 or more."))
        index = place_of(ladder, event.player) - 1
        ladder.pop(index)
        ladder.insert(min(index + event.places, len(ladder)), event.player)
    else:  # pragma: no cover - the union is closed
        raise TypeError(event)
    return tuple(ladder)


def replay(events: Iterable[Event], start: Sequence[Hashable] = ()) -> tuple[Hashable, ...]:
    """The order after every event of the history, from ``start`` (empty: a new ladder)."""
    order = tuple(start)
    for event in events:
        order = apply(order, event)
    return order
