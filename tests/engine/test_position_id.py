"""GNU Backgammon Position IDs: known values and rejection of malformed input.

The live comparison with gnubg (encoding and side order, over 3,000 positions) is in
``test_gnubg_positions.py``; the checked-in reference positions in ``data/`` were encoded by
gnubg itself.
"""

from __future__ import annotations

import pytest

from tavla.engine import InvalidPositionIdError, Position


def test_opening_position() -> None:
    assert Position.initial().to_id() == "4HPwATDgc/ABMA"
    assert Position.from_id("4HPwATDgc/ABMA") == Position.initial()
    assert repr(Position.initial()) == "Position.from_id('4HPwATDgc/ABMA')"


def test_the_player_on_roll_is_encoded_second() -> None:
    # gnubg: after the opening 3-1 played 8/5 6/5, the opponent is on roll.
    played = Position.from_points({24: 2, 13: 5, 8: 2, 6: 4, 5: 2}, {24: 2, 13: 5, 8: 3, 6: 5})
    assert played.to_id() == "4HPwATCwZ/ABMA"  # before the turn passes (mover = player on roll)
    assert played.swap().to_id() == "sGfwATDgc/ABMA"  # both checked with gnubg.positionid
    # A checker on the bar and a closed home board, confirmed by gnubg's board display.
    closed = Position.from_points({25: 1, 6: 14}, {6: 2, 5: 2, 4: 2, 3: 2, 2: 2, 1: 2, 24: 3})
    assert closed.to_id() == "27YBADjg/wcAQA"


def test_empty_sides() -> None:
    finished = Position.from_points({}, {1: 1})
    assert Position.from_id(finished.to_id()) == finished


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "14 characters"),
        ("4HPwATDgc/ABM", "14 characters"),
        ("4HPwATDgc/ABMAA", "14 characters"),
        ("4HPwATDgc/AB-A", "letters, digits"),
        ("4HPwATDgc/AB A", "letters, digits"),
        ("4HPwATDgc=ABMA", "letters, digits"),
        ("//////////////", "more than"),  # all one bits: far too many checkers
        ("4HPwATDgc/ABMB", "did you mean '4HPwATDgc/ABMA'"),  # padding bits set
    ],
)
def test_malformed_ids(text: str, message: str) -> None:
    with pytest.raises(InvalidPositionIdError, match=message):
        Position.from_id(text)


def test_sixteen_checkers_on_a_side() -> None:
    # 16 one bits on the opponent's ace point, then 49 zero bits.
    value = (1 << 16) - 1
    text = _encode_bits(value)
    with pytest.raises(InvalidPositionIdError, match="more than 15"):
        Position.from_id(text)


def test_both_sides_on_one_point() -> None:
    # opponent: one checker on its point 24 (the mover's 1); mover: one checker on its point 1
    bits = [0] * 80
    at = 23
    bits[at] = 1  # opponent: 23 zeros, then a one on point 24
    at += 1 + 2  # ...the zeros closing points 24 and the bar
    bits[at] = 1  # mover: a one on point 1
    value = sum(bit << i for i, bit in enumerate(bits))
    with pytest.raises(InvalidPositionIdError, match="both players"):
        Position.from_id(_encode_bits(value))


def test_not_a_string() -> None:
    with pytest.raises(InvalidPositionIdError):
        Position.from_id(12345678901234)  # type: ignore[arg-type]


def _encode_bits(value: int) -> str:
    import base64

    return base64.b64encode(value.to_bytes(10, "little")).decode()[:14]
