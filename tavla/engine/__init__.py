"""Tavla's rules engine: pure Python, immutable values, no Django.

The rules it implements are stated where they are encoded: movement, entering and bearing
off in :mod:`tavla.engine.moves`, turns, the cube, resignation and scoring in
:mod:`tavla.engine.match` and :mod:`tavla.engine.game`, a table's options in
:mod:`tavla.engine.rules`; ``tests/engine/test_legal_rules.py`` checks them one by one.
Positions are seen from the player on roll, as GNU Backgammon sees them; Position IDs and
Match IDs are GNU Backgammon's.
"""

from tavla.engine.actions import (
    AcceptResign,
    Action,
    Adjudicate,
    AdjudicationScope,
    Double,
    Drop,
    EndSession,
    Forfeit,
    NewGame,
    OpeningRoll,
    PlayMove,
    RejectResign,
    Resign,
    Roll,
    Take,
    Timeout,
    action_from_dict,
)
from tavla.engine.board_text import draw_board
from tavla.engine.dice import (
    DiceExhaustedError,
    DiceSource,
    FairDice,
    ScriptedDice,
    SecureDice,
    recompute_rolls,
    verify,
)
from tavla.engine.errors import (
    EngineError,
    IllegalActionError,
    IllegalPlayError,
    InvalidDiceError,
    InvalidMatchIdError,
    InvalidNotationError,
    InvalidPositionError,
    InvalidPositionIdError,
    InvalidXgidError,
)
from tavla.engine.game import (
    EndReason,
    EventKind,
    GameEvent,
    GameRecord,
    GameResult,
    Phase,
    WinKind,
)
from tavla.engine.match import MatchState
from tavla.engine.match_id import MatchInfo, decode_match_id, encode_match_id, gnubg_ids
from tavla.engine.matfile import export_mat
from tavla.engine.moves import legal_plays
from tavla.engine.notation import parse_play
from tavla.engine.plays import Move, Play
from tavla.engine.position import Position
from tavla.engine.rules import ResignOffer, Rules
from tavla.engine.xgid import Xgid, encode_xgid, parse_xgid

__all__ = [
    "AcceptResign",
    "Action",
    "Adjudicate",
    "AdjudicationScope",
    "DiceExhaustedError",
    "DiceSource",
    "Double",
    "Drop",
    "EndReason",
    "EndSession",
    "EngineError",
    "EventKind",
    "FairDice",
    "Forfeit",
    "GameEvent",
    "GameRecord",
    "GameResult",
    "MatchInfo",
    "MatchState",
    "NewGame",
    "OpeningRoll",
    "Phase",
    "PlayMove",
    "RejectResign",
    "Resign",
    "ResignOffer",
    "Roll",
    "Rules",
    "ScriptedDice",
    "SecureDice",
    "Take",
    "Timeout",
    "WinKind",
    "action_from_dict",
    "decode_match_id",
    "encode_match_id",
    "export_mat",
    "gnubg_ids",
    "recompute_rolls",
    "verify",
    "IllegalActionError",
    "IllegalPlayError",
    "InvalidDiceError",
    "InvalidMatchIdError",
    "InvalidNotationError",
    "InvalidPositionError",
    "InvalidPositionIdError",
    "InvalidXgidError",
    "Move",
    "Play",
    "Position",
    "draw_board",
    "legal_plays",
    "parse_play",
    "Xgid",
    "encode_xgid",
    "parse_xgid",
]
