"""A position drawn as text, from the side of the player on roll (like GNU Backgammon's board).

``X`` are the checkers of the player on roll, ``O`` the opponent's. The points carry the
player on roll's numbers: 13-24 along the top, 12-1 along the bottom with the home board at
the bottom right. A stack taller than five shows its count in the fifth row. Checkers on the
bar stand in the ``BAR`` column (the opponent's at the top, the mover's at the bottom); pip
counts and borne-off checkers are written beside the board.
"""

from __future__ import annotations

from typing import Final

from tavla.engine.position import BAR, Position

_ROWS: Final = 5
_TOP_POINTS: Final = (range(13, 19), range(19, 25))
_BOTTOM_POINTS: Final = (range(12, 6, -1), range(6, 0, -1))


def _cell(count: int, symbol: str, row: int) -> str:
    """Row ``row`` (0 at the board's edge) of a stack of ``count`` checkers, 3 wide."""
    if count > _ROWS and row == _ROWS - 1:
        return f"{count:^3}"
    return f" {symbol} " if count > row else "   "


def _label(points: tuple[range, range]) -> str:
    # "13-" and "-9-": the last digit stands above or below its checkers' column
    left, right = ("".join(f"{p}-" if p > 9 else f"-{p}-" for p in half) for half in points)
    return f"+{left}-----{right}+"


def draw_board(position: Position) -> str:
    """The board as lines of text, ending without a newline."""

    def stack(point: int) -> tuple[int, str]:
        if position.mover[point - 1]:
            return position.mover[point - 1], "X"
        return position.opponent[24 - point], "O"

    def row(points: tuple[range, range], bar: tuple[int, str], r: int) -> str:
        left, right = ("".join(_cell(*stack(p), r) for p in half) for half in points)
        return f"|{left}|{_cell(*bar, r)}|{right}|"

    pips_mover, pips_opponent = position.pip_count()
    off_mover, off_opponent = position.borne_off()
    notes_top = [f"O  opponent   pips {pips_opponent:3}  borne off {off_opponent:2}"]
    notes_bottom = [f"X  on roll    pips {pips_mover:3}  borne off {off_mover:2}"]
    lines = [f"Position ID: {position.to_id()}", _label(_TOP_POINTS) + "   " + notes_top[0]]
    opponent_bar = (position.opponent[BAR], "O")
    mover_bar = (position.mover[BAR], "X")
    lines += [row(_TOP_POINTS, opponent_bar, r) for r in range(_ROWS)]
    lines.append("|" + " " * 18 + "|BAR|" + " " * 18 + "|")
    lines += [row(_BOTTOM_POINTS, mover_bar, r) for r in reversed(range(_ROWS))]
    lines.append(_label(_BOTTOM_POINTS) + "   " + notes_bottom[0])
    return "\n".join(lines)
