"""Tavla's rules engine: pure Python, immutable values, no Django.

See ``RULES.md`` for the rules it implements. Positions are seen from the player on roll, as
GNU Backgammon sees them; Position IDs and Match IDs are GNU Backgammon's.
"""

from tavla.engine.board_text import draw_board
from tavla.engine.errors import (
    EngineError,
    IllegalActionError,
    IllegalPlayError,
    InvalidDiceError,
    InvalidMatchIdError,
    InvalidNotationError,
    InvalidPositionError,
    InvalidPositionIdError,
)
from tavla.engine.moves import Move, Play, legal_plays
from tavla.engine.notation import parse_play
from tavla.engine.position import Position

__all__ = [
    "EngineError",
    "IllegalActionError",
    "IllegalPlayError",
    "InvalidDiceError",
    "InvalidMatchIdError",
    "InvalidNotationError",
    "InvalidPositionError",
    "InvalidPositionIdError",
    "Move",
    "Play",
    "Position",
    "draw_board",
    "legal_plays",
    "parse_play",
]
