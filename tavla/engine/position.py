"""Positions: immutable values seen from the side of the player on roll.

A :class:`Position` holds two tuples of 25 counts, as GNU Backgammon's ``TanBoard`` does:
index ``i`` (0..23) is the owner's point ``i + 1`` counted from the owner's own side, index
24 is the bar. Checkers not on the board are borne off. ``mover`` is the player on roll;
the opponent's point ``p`` is the mover's point ``25 - p``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from tavla.engine.errors import InvalidPositionError

CHECKERS: Final = 15
BAR: Final = 24  # index of the bar in a side's tuple
POINTS: Final = 24

Side = tuple[int, ...]

_START: Final[Side] = (0, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0)


def _check_side(side: Side, name: str) -> None:
    if len(side) != 25:
        raise InvalidPositionError(f"{name}: expected 25 counts (24 points and the bar)")
    if any(n < 0 for n in side):
        raise InvalidPositionError(f"{name}: a point holds a negative number of checkers")
    if sum(side) > CHECKERS:
        raise InvalidPositionError(f"{name}: more than {CHECKERS} checkers on the board")


@dataclass(frozen=True, slots=True)
class Position:
    """A board position from the point of view of the player on roll (``mover``)."""

    mover: Side
    opponent: Side

    def __post_init__(self) -> None:
        _check_side(self.mover, "player on roll")
        _check_side(self.opponent, "opponent")
        for index in range(POINTS):
            if self.mover[index] and self.opponent[POINTS - 1 - index]:
                raise InvalidPositionError(
                    f"point {index + 1} holds checkers of both players"
                )

    @classmethod
    def initial(cls) -> Position:
        """The starting position: 2 on 24, 5 on 13, 3 on 8, 5 on 6 for each side."""
        return cls(_START, _START)

    def swap(self) -> Position:
        """The same board seen by the other player (the turn passes)."""
        return Position(self.opponent, self.mover)

    def borne_off(self) -> tuple[int, int]:
        """Checkers borne off by (mover, opponent)."""
        return CHECKERS - sum(self.mover), CHECKERS - sum(self.opponent)

    def pip_count(self) -> tuple[int, int]:
        """Pips each side still has to travel, (mover, opponent); a checker on the bar counts 25."""
        return _pips(self.mover), _pips(self.opponent)

    def is_game_over(self) -> bool:
        """True when either side has borne off all fifteen checkers."""
        return not any(self.mover) or not any(self.opponent)

    def __repr__(self) -> str:
        from tavla.engine.gnubg_id import position_id

        return f"Position.from_id({position_id(self)!r})"

    @classmethod
    def from_id(cls, position_id: str) -> Position:
        """Decode a GNU Backgammon Position ID (the player on roll is the mover)."""
        from tavla.engine.gnubg_id import decode_position_id

        return decode_position_id(position_id)

    def to_id(self) -> str:
        """Encode as a GNU Backgammon Position ID."""
        from tavla.engine.gnubg_id import position_id

        return position_id(self)


def _pips(side: Side) -> int:
    return sum((index + 1) * count for index, count in enumerate(side))
