"""Positions: immutable values seen from the side of the player on roll.

A :class:`Position` holds two tuples of 25 counts, as GNU Backgammon's ``TanBoard`` does:
index ``i`` (0..23) is the owner's point ``i + 1`` counted from the owner's own side, index
24 is the bar. Checkers not on the board are borne off. ``mover`` is the player on roll;
the opponent's point ``p`` is the mover's point ``25 - p``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Final

from tavla.engine.errors import InvalidPositionError, InvalidPositionIdError
from tavla.engine.gnubg_id import check_canonical, decode_position_id, encode_position_id

CHECKERS: Final = 15
BAR: Final = 24  # index of the bar in a side's tuple
POINTS: Final = 24
HOME_POINTS: Final = 6

Side = tuple[int, ...]

_START: Final[Side] = (0, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0)


def _check_side(side: Side, name: str) -> None:
    if len(side) != 25:
        raise InvalidPositionError(f"{name}: expected 25 counts (24 points and the bar)")
    for count in side:
        if isinstance(count, bool) or not isinstance(count, int):
            raise InvalidPositionError(f"{name}: checker counts are integers, not {count!r}")
        if count < 0:
            raise InvalidPositionError(f"{name}: a point holds a negative number of checkers")
    if sum(side) > CHECKERS:
        raise InvalidPositionError(f"{name}: more than {CHECKERS} checkers on the board")


@dataclass(frozen=True, slots=True)
class Position:
    """A board position from the point of view of the player on roll (``mover``).

    Raises :class:`InvalidPositionError` for a side that is not 25 non-negative integer counts,
    holds more than 15 checkers, or shares a point with the other side.
    """

    mover: Side
    opponent: Side

    def __post_init__(self) -> None:
        # Accept any sequence (a list is handy in tests) but store tuples: hashable, immutable.
        if type(self.mover) is not tuple:
            object.__setattr__(self, "mover", tuple(self.mover))
        if type(self.opponent) is not tuple:
            object.__setattr__(self, "opponent", tuple(self.opponent))
        _check_side(self.mover, "player on roll")
        _check_side(self.opponent, "opponent")
        for index in range(POINTS):
            if self.mover[index] and self.opponent[POINTS - 1 - index]:
                raise InvalidPositionError(
                    f"point {index + 1} of the player on roll holds checkers of both players"
                )

    @classmethod
    def initial(cls) -> Position:
        """The starting position: 2 on 24, 5 on 13, 3 on 8, 5 on 6 for each side."""
        return _INITIAL

    @classmethod
    def from_points(cls, mover: Mapping[int, int], opponent: Mapping[int, int]) -> Position:
        """A position from ``{point: checkers}`` maps, each side in its own numbering.

        Points are 1..24 and 25 is the bar; checkers not listed are borne off. For example the
        opening position is ``Position.from_points({24: 2, 13: 5, 8: 3, 6: 5}, <the same>)``.
        Raises :class:`InvalidPositionError` for a point outside 1..25 or an invalid position.
        """

        def side(points: Mapping[int, int], name: str) -> Side:
            counts = [0] * 25
            for point, checkers in points.items():
                if isinstance(point, bool) or not isinstance(point, int) or not 1 <= point <= 25:
                    raise InvalidPositionError(f"{name}: {point!r} is not a point (1-24, 25 = bar)")
                counts[point - 1] += checkers
            return tuple(counts)

        return cls(side(mover, "player on roll"), side(opponent, "opponent"))

    def swap(self) -> Position:
        """The same board seen by the other player (the turn passes)."""
        return trusted_position(self.opponent, self.mover)

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
        return f"Position.from_id({self.to_id()!r})"

    @classmethod
    def from_id(cls, position_id: str) -> Position:
        """Decode a GNU Backgammon Position ID (the player on roll is the mover).

        Raises :class:`InvalidPositionIdError` for anything that is not a valid ID: malformed,
        more than 15 checkers on a side, both sides on one point, or unused bits set.
        """
        mover, opponent = decode_position_id(position_id)
        try:
            position = cls(mover, opponent)
        except InvalidPositionError as error:
            raise InvalidPositionIdError(
                f"{position_id!r} is not a valid position: {error}") from error
        check_canonical(position_id, mover, opponent)
        return position

    def to_id(self) -> str:
        """Encode as a GNU Backgammon Position ID (14 characters, e.g. ``4HPwATDgc/ABMA``)."""
        return encode_position_id(self.mover, self.opponent)


# Legal-play generation builds thousands of positions per second from positions that are
# already valid, so it skips ``__post_init__``: a frozen slotted dataclass can be filled in
# through the slot descriptors directly, which costs a fraction of the checked constructor.
_new_object = object.__new__
_set_mover: Final[Callable[[Position, Side], None]] = vars(Position)["mover"].__set__
_set_opponent: Final[Callable[[Position, Side], None]] = vars(Position)["opponent"].__set__


def trusted_position(mover: Side, opponent: Side) -> Position:
    """Build a :class:`Position` WITHOUT validation.

    For engine internals only: the caller guarantees two tuples of 25 counts that form a
    valid position (as when a legal move is applied to a valid position).
    """
    position: Position = _new_object(Position)
    _set_mover(position, mover)
    _set_opponent(position, opponent)
    return position


_INITIAL: Final = Position(_START, _START)


def _pips(side: Side) -> int:
    return sum((index + 1) * count for index, count in enumerate(side))
