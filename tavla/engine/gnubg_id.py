"""GNU Backgammon Position ID: 80 bits in 14 base64 characters.

For each side in turn, every point from that side's ace point up to its bar contributes one
``1`` bit per checker followed by a ``0``; bits are packed little-endian into ten bytes.
The player on roll is GNU Backgammon's ``anBoard[1]``, encoded second.
"""

from __future__ import annotations

import base64
import binascii

from tavla.engine.errors import InvalidPositionError, InvalidPositionIdError
from tavla.engine.position import Position, Side


def position_id(position: Position) -> str:
    """The GNU Backgammon Position ID of ``position`` (the mover is the player on roll)."""
    key = bytearray(10)
    bit = 0
    for side in (position.opponent, position.mover):
        for count in side:
            for _ in range(count):
                key[bit >> 3] |= 1 << (bit & 7)
                bit += 1
            bit += 1
    return base64.b64encode(bytes(key)).decode("ascii")[:14]


def decode_position_id(text: str) -> Position:
    """Decode a Position ID; raises :class:`InvalidPositionIdError` for anything malformed."""
    if not isinstance(text, str) or len(text) != 14:
        raise InvalidPositionIdError(f"{text!r} is not a Position ID: expected 14 characters")
    try:
        key = base64.b64decode(text + "==", validate=True)
    except (binascii.Error, ValueError) as error:
        raise InvalidPositionIdError(f"{text!r} is not a Position ID: not base64") from error
    sides: list[list[int]] = [[0] * 25, [0] * 25]
    side, point = 0, 0
    for bit in range(80):
        if side == 2:
            break
        if key[bit >> 3] >> (bit & 7) & 1:
            sides[side][point] += 1
        else:
            point += 1
            if point == 25:
                side, point = side + 1, 0
    if side != 2:
        raise InvalidPositionIdError(f"{text!r} is not a Position ID: too few points encoded")
    opponent: Side = tuple(sides[0])
    mover: Side = tuple(sides[1])
    try:
        return Position(mover, opponent)
    except InvalidPositionError as error:
        raise InvalidPositionIdError(f"{text!r} is not a valid position: {error}") from error
