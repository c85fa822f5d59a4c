"""GNU Backgammon Position ID: 80 bits in 14 base64 characters.

For each side in turn, every point from that side's ace point up to its bar contributes one
``1`` bit per checker followed by a ``0``; the bits are packed little-endian into ten bytes
and written in standard base64 without the padding. The player on roll is GNU Backgammon's
``anBoard[1]``, encoded second, so the opponent comes first: the opening position is
``4HPwATDgc/ABMA``. ``tests/engine/test_gnubg_positions.py`` checks both directions against
gnubg itself.

This module codes the checker counts only; :meth:`Position.to_id
<tavla.engine.position.Position.to_id>` and :meth:`Position.from_id
<tavla.engine.position.Position.from_id>` are the entry points, beside their type.
"""

from __future__ import annotations

import base64
import binascii
import re
from typing import Final

from tavla.engine.errors import InvalidPositionIdError

Counts = tuple[int, ...]  # a side's 25 counts, as in Position

ID_LENGTH: Final = 14
_ID_CHARS: Final = re.compile(r"[A-Za-z0-9+/]{14}")


def encode_position_id(mover: Counts, opponent: Counts) -> str:
    """The GNU Backgammon Position ID of these sides (the mover is the player on roll)."""
    value = 0
    bit = 0
    for side in (opponent, mover):
        for count in side:
            if count:
                value |= ((1 << count) - 1) << bit  # ``count`` one bits...
                bit += count
            bit += 1  # ...and a zero
    return base64.b64encode(value.to_bytes(10, "little")).decode("ascii")[:ID_LENGTH]


def decode_position_id(text: str) -> tuple[Counts, Counts]:
    """Decode a Position ID into the sides ``(mover, opponent)``, not yet checked as a position.

    Raises :class:`InvalidPositionIdError` for a wrong length or characters, too few points
    encoded, more than 15 checkers on a point, or no checker of either side on the board.
    """
    if not isinstance(text, str):
        raise InvalidPositionIdError(f"a Position ID is a string, not {type(text).__name__}")
    if len(text) != ID_LENGTH:
        raise InvalidPositionIdError(
            f"{text!r} is not a Position ID: expected {ID_LENGTH} characters, got {len(text)}"
        )
    if not _ID_CHARS.fullmatch(text):
        raise InvalidPositionIdError(
            f"{text!r} is not a Position ID: only letters, digits, '+' and '/' may appear"
        )
    try:
        key = base64.b64decode(text + "==", validate=True)
    except (binascii.Error, ValueError) as error:  # pragma: no cover - the pattern excludes it
        raise InvalidPositionIdError(f"{text!r} is not a Position ID: not base64") from error
    value = int.from_bytes(key, "little")
    sides: list[list[int]] = [[0] * 25, [0] * 25]
    side = point = 0
    for _ in range(80):
        if value & 1:
            sides[side][point] += 1
            if sides[side][point] > 15:
                raise InvalidPositionIdError(
                    f"{text!r} is not a valid position: more than 15 checkers on one point"
                )
        else:
            point += 1
            if point == 25:
                side, point = side + 1, 0
                if side == 2:
                    break
        value >>= 1
    if side != 2:
        raise InvalidPositionIdError(
            f"{text!r} is not a valid position: more than 30 checkers in all"
        )
    if not any(sides[0]) and not any(sides[1]):
        # A game ends when one side has borne off its last checker: no game reaches a board
        # where neither side has one left.
        raise InvalidPositionIdError(
            f"{text!r} is not a reachable position: neither side has a checker on the board"
        )
    return tuple(sides[1]), tuple(sides[0])


def check_canonical(text: str, mover: Counts, opponent: Counts) -> None:
    """Unused bits (after the last point, and the 4 padding bits) must be zero, so that every
    position has exactly one ID, the one GNU Backgammon writes."""
    canonical = encode_position_id(mover, opponent)
    if canonical != text:
        raise InvalidPositionIdError(
            f"{text!r} is not a Position ID GNU Backgammon would write: "
            f"did you mean {canonical!r}?"
        )
