"""Positions: construction, validation, views and counts."""

from __future__ import annotations

import pytest

from tavla.engine import InvalidPositionError, Position

START = (0, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0)


def test_initial_position() -> None:
    position = Position.initial()
    assert position.mover == START
    assert position.opponent == START
    assert position == Position(START, START)
    assert position.pip_count() == (167, 167)
    assert position.borne_off() == (0, 0)
    assert not position.is_game_over()


def test_from_points_uses_each_sides_own_numbering() -> None:
    opening = {24: 2, 13: 5, 8: 3, 6: 5}
    assert Position.from_points(opening, opening) == Position.initial()
    position = Position.from_points({25: 1, 3: 2}, {1: 1})
    assert position.mover[24] == 1
    assert position.mover[2] == 2
    assert position.opponent[0] == 1
    assert position.borne_off() == (12, 14)


def test_swap_is_the_other_players_view() -> None:
    position = Position.from_points({25: 1, 3: 2}, {20: 4})
    swapped = position.swap()
    assert swapped.mover == position.opponent
    assert swapped.opponent == position.mover
    assert swapped.swap() == position
    assert swapped.pip_count() == tuple(reversed(position.pip_count()))


def test_pip_count_counts_the_bar_as_25() -> None:
    position = Position.from_points({25: 1, 6: 2, 1: 1}, {13: 2})
    assert position.pip_count() == (25 + 12 + 1, 26)


def test_game_over_when_a_side_has_borne_off_everything() -> None:
    assert Position.from_points({}, {6: 1}).is_game_over()
    assert Position.from_points({1: 1}, {}).is_game_over()
    assert Position.from_points({}, {6: 1}).borne_off() == (15, 14)


def test_lists_are_stored_as_tuples() -> None:
    position = Position(list(START), list(START))  # type: ignore[arg-type]
    assert position == Position.initial()
    assert isinstance(position.mover, tuple)
    assert hash(position) == hash(Position.initial())


def test_positions_are_immutable() -> None:
    position = Position.initial()
    with pytest.raises(AttributeError):
        position.mover = START  # type: ignore[misc]


@pytest.mark.parametrize(
    ("mover", "opponent", "message"),
    [
        (START[:24], START, "25 counts"),
        (START, START + (0,), "25 counts"),
        ((-1,) + START[1:], START, "negative"),
        ((16,) + (0,) * 24, START, "more than 15"),
        ((1.5,) + (0,) * 24, START, "integers"),
        ((True,) + (0,) * 24, START, "integers"),
        # the mover's point 1 is the opponent's point 24, where the opponent has two
        ((1,) + (0,) * 24, START, "point 1 .* both players"),
    ],
)
def test_invalid_positions(mover: tuple[int, ...], opponent: tuple[int, ...],
                           message: str) -> None:
    with pytest.raises(InvalidPositionError, match=message):
        Position(mover, opponent)


def test_from_points_rejects_points_outside_the_board() -> None:
    with pytest.raises(InvalidPositionError, match="not a point"):
        Position.from_points({0: 1}, {})
    with pytest.raises(InvalidPositionError, match="not a point"):
        Position.from_points({}, {26: 1})


def test_invalid_position_error_is_a_value_error() -> None:
    with pytest.raises(ValueError):
        Position(START[:3], START)
