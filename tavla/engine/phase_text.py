"""What a match is waiting for, in words: the reason a refused action gives. The state asks
(:class:`~tavla.engine.match.MatchState`); this module knows it only by its fields (those of
a snapshot, and who must act), so it needs no import of the state's module."""

from __future__ import annotations

from typing import Protocol

from tavla.engine.game import Phase, Seat, other
from tavla.engine.snapshot import StateFields


class PhaseFields(StateFields, Protocol):
    """The snapshot's fields, and who must act (a property of the state)."""

    @property
    def player_to_act(self) -> Seat | None: ...


def describe_phase(state: PhaseFields) -> str:
    """E.g. ``"player 1 is to play 6-5"``."""
    offer = state.resign_offer
    if offer is not None:
        return (
            f"player {offer.player} offered to resign a {offer.kind.value}: player "
            f"{other(offer.player)} must accept or refuse"
        )
    if state.phase is Phase.OPENING_ROLL:
        return f"game {state.game_number} is waiting for its opening roll"
    if state.phase is Phase.TURN_START:
        return f"player {state.player_on_roll} is to double or roll"
    if state.phase is Phase.CUBE_OFFERED:
        return f"player {state.player_to_act} must take or drop the cube"
    if state.phase is Phase.MOVE:
        dice = "" if state.dice is None else f"{state.dice[0]}-{state.dice[1]}"
        return f"player {state.player_on_roll} is to play {dice}"
    if state.phase is Phase.GAME_OVER:
        return f"game {state.game_number} is over"
    return "the match is over"
