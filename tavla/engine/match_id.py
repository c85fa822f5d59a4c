"""GNU Backgammon Match ID: the match state (cube, turn, dice, score) in 12 base64 characters.

The 66 meaningful bits, packed little-endian into nine bytes (gnubg's ``matchid.c``)::

    bits  0-3   log2 of the cube value        bit  12      a double is offered
    bits  4-5   cube owner (3 = centred)      bits 13-14   resignation offered (0 none, 1..3)
    bit   6     player on roll (fMove)        bits 15-17   first die (the higher; 0 = none)
    bit   7     Crawford game                 bits 18-20   second die
    bits  8-10  game state (GameState)        bits 21-35   match length (0 = money)
    bit   11    player to decide (fTurn)      bits 36-50   player 0's score
                                              bits 51-65   player 1's score
    bit   66    1 unless the Jacoby rule is in use

Base64 is taken in groups of three bytes, most significant bit first, without padding.
:func:`gnubg_ids` maps a :class:`~tavla.engine.match.MatchState` to what gnubg shows for the
same moment of play (its ``positionid()`` and ``matchid()``); ``tests/engine/test_match_id``
checks it against gnubg itself.
"""

from __future__ import annotations

import base64
import binascii
import enum
from dataclasses import dataclass

from tavla.engine.errors import InvalidMatchIdError
from tavla.engine.game import EndReason, Phase, Seat, other
from tavla.engine.match import MatchState


class GameState(enum.IntEnum):
    """gnubg's ``gamestate``."""

    NONE = 0
    PLAYING = 1
    OVER = 2
    RESIGNED = 3
    DROPPED = 4


_CENTRED = 3


@dataclass(frozen=True, slots=True)
class MatchInfo:
    """The fields of a Match ID. ``cube_owner`` ``None`` is centred; ``dice`` ``(0, 0)`` is
    not rolled; ``match_length`` 0 is money play; ``player_on_roll`` is gnubg's ``fMove`` and
    ``turn`` its ``fTurn`` (who must decide: the doubled player while a double is offered)."""

    cube_value: int = 1
    cube_owner: Seat | None = None
    player_on_roll: Seat = 0
    crawford: bool = False
    game_state: GameState = GameState.PLAYING
    turn: Seat = 0
    double_offered: bool = False
    resignation: int = 0
    dice: tuple[int, int] = (0, 0)
    match_length: int = 0
    score: tuple[int, int] = (0, 0)
    jacoby: bool = False

    def __post_init__(self) -> None:
        cube = self.cube_value
        if cube < 1 or cube & (cube - 1) or cube > 1 << 15:
            raise InvalidMatchIdError(f"a cube value is a power of two, not {cube!r}")
        if self.cube_owner not in (None, 0, 1):
            raise InvalidMatchIdError(f"a cube owner is 0, 1 or None, not {self.cube_owner!r}")
        if self.player_on_roll not in (0, 1) or self.turn not in (0, 1):
            raise InvalidMatchIdError("the player on roll and the player to decide are 0 or 1")
        if not 0 <= self.resignation <= 3:
            raise InvalidMatchIdError(f"a resignation is 0..3, not {self.resignation!r}")
        if not all(0 <= die <= 6 for die in self.dice) or (0 in self.dice) != (
            self.dice == (0, 0)
        ):
            raise InvalidMatchIdError(f"dice are two of 1..6 or (0, 0), not {self.dice!r}")
        if not 0 <= self.match_length <= 0x7FFF:
            raise InvalidMatchIdError(f"a match length is 0..32767, not {self.match_length!r}")
        if not all(0 <= points <= 0x7FFF for points in self.score):
            raise InvalidMatchIdError(f"scores are 0..32767, not {self.score!r}")
        if self.crawford and not self.match_length:
            raise InvalidMatchIdError("a money session has no Crawford game")


def _set(key: bytearray, start: int, width: int, value: int) -> None:
    for offset in range(width):
        if value >> offset & 1:
            bit = start + offset
            key[bit >> 3] |= 1 << (bit & 7)


def _get(key: bytes, start: int, width: int) -> int:
    value = 0
    for offset in range(width):
        bit = start + offset
        value |= (key[bit >> 3] >> (bit & 7) & 1) << offset
    return value


def encode_match_id(info: MatchInfo) -> str:
    """The 12-character Match ID of ``info``, as gnubg writes it."""
    key = bytearray(9)
    _set(key, 0, 4, info.cube_value.bit_length() - 1)
    _set(key, 4, 2, _CENTRED if info.cube_owner is None else info.cube_owner)
    _set(key, 6, 1, info.player_on_roll)
    _set(key, 7, 1, int(info.crawford))
    _set(key, 8, 3, int(info.game_state))
    _set(key, 11, 1, info.turn)
    _set(key, 12, 1, int(info.double_offered))
    _set(key, 13, 2, info.resignation)
    high, low = max(info.dice), min(info.dice)
    _set(key, 15, 3, high)
    _set(key, 18, 3, low)
    _set(key, 21, 15, info.match_length)
    _set(key, 36, 15, info.score[0])
    _set(key, 51, 15, info.score[1])
    _set(key, 66, 1, int(not info.jacoby))
    return base64.b64encode(bytes(key)).decode("ascii")


def decode_match_id(text: str) -> MatchInfo:
    """Decode a Match ID; raises :class:`InvalidMatchIdError` for anything gnubg would not
    write (bad base64, dice out of range or only one die, an owner value of 2, a game state
    above 4, unused bits set). Unlike gnubg it accepts scores above the match length, which
    gnubg itself shows once a match is over. ``dice`` come back higher first."""
    if not isinstance(text, str) or len(text) != 12:
        raise InvalidMatchIdError(f"{text!r} is not a Match ID: expected 12 characters")
    try:
        key = base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError) as error:
        raise InvalidMatchIdError(f"{text!r} is not a Match ID: not base64") from error
    if len(key) != 9:
        raise InvalidMatchIdError(f"{text!r} is not a Match ID: padding is not allowed")
    if _get(key, 67, 5):
        raise InvalidMatchIdError(f"{text!r} is not a Match ID: unused bits are set")
    owner = _get(key, 4, 2)
    if owner == 2:
        raise InvalidMatchIdError(f"{text!r} is not a Match ID: cube owner 2")
    state = _get(key, 8, 3)
    if state > GameState.DROPPED:
        raise InvalidMatchIdError(f"{text!r} is not a Match ID: game state {state}")
    first, second = _get(key, 15, 3), _get(key, 18, 3)
    dice = (max(first, second), min(first, second))  # gnubg writes the higher first
    if any(die > 6 for die in dice):
        raise InvalidMatchIdError(f"{text!r} is not a Match ID: a die shows {max(dice)}")
    try:
        return MatchInfo(
            cube_value=1 << _get(key, 0, 4),
            cube_owner=None if owner == _CENTRED else owner,
            player_on_roll=_get(key, 6, 1),
            crawford=bool(_get(key, 7, 1)),
            game_state=GameState(state),
            turn=_get(key, 11, 1),
            double_offered=bool(_get(key, 12, 1)),
            resignation=_get(key, 13, 2),
            dice=dice,
            match_length=_get(key, 21, 15),
            score=(_get(key, 36, 15), _get(key, 51, 15)),
            jacoby=not _get(key, 66, 1),
        )
    except InvalidMatchIdError as error:
        raise InvalidMatchIdError(f"{text!r} is not a valid Match ID: {error}") from error


def match_info(state: MatchState) -> MatchInfo:
    """The Match ID fields gnubg shows at the same moment of the same match.

    Between games and after the match, gnubg shows the finished game: after a bear-off the
    turn has passed to the loser; after a drop or a resignation (and, here, a timeout,
    forfeit or adjudication, which gnubg records as a resignation) the players and dice stay
    as they were. The score already includes the game and ``crawford`` tells whether the
    *next* game is the Crawford game. Before the opening roll (a state gnubg never shows: it
    rolls at once) the game state is ``NONE``.
    """
    length = state.rules.match_length or 0
    cube_owner = state.cube_owner
    on_roll = state.player_on_roll
    dice = state.dice or (0, 0)
    phase = state.phase
    if phase is Phase.OPENING_ROLL:
        return MatchInfo(
            cube_value=state.cube_value,
            cube_owner=cube_owner,
            player_on_roll=0,
            crawford=state.crawford,
            game_state=GameState.NONE,
            turn=0,
            match_length=length,
            score=state.score,
        )
    if phase.in_game:
        assert on_roll is not None
        offered = phase is Phase.CUBE_OFFERED
        resign = state.resign_offer
        if resign is not None:
            # gnubg: fResigned holds the level and the turn passes to the player who answers.
            return MatchInfo(
                cube_value=state.cube_value,
                cube_owner=cube_owner,
                player_on_roll=on_roll,
                crawford=state.crawford,
                game_state=GameState.PLAYING,
                turn=other(resign.player),
                double_offered=offered,
                resignation=resign.level,
                dice=dice if phase is Phase.MOVE else (0, 0),
                match_length=length,
                score=state.score,
            )
        return MatchInfo(
            cube_value=state.cube_value,
            cube_owner=cube_owner,
            player_on_roll=on_roll,
            crawford=state.crawford,
            game_state=GameState.PLAYING,
            turn=other(on_roll) if offered else on_roll,
            double_offered=offered,
            dice=dice if phase is Phase.MOVE else (0, 0),
            match_length=length,
            score=state.score,
        )
    result = state.game_result
    assert result is not None
    crawford = state.next_game_is_crawford() if phase is Phase.GAME_OVER else False
    loser = other(result.winner)
    if result.reason is EndReason.BEAR_OFF:
        return MatchInfo(
            cube_value=result.cube_value,
            cube_owner=cube_owner,
            player_on_roll=loser,
            crawford=crawford,
            game_state=GameState.OVER,
            turn=loser,
            match_length=length,
            score=state.score,
        )
    if result.reason is EndReason.DROP:
        assert on_roll is not None
        return MatchInfo(
            cube_value=result.cube_value,
            cube_owner=cube_owner,
            player_on_roll=on_roll,
            crawford=crawford,
            game_state=GameState.DROPPED,
            turn=other(on_roll),
            match_length=length,
            score=state.score,
        )
    mover = loser if on_roll is None else on_roll
    return MatchInfo(
        cube_value=result.cube_value,
        cube_owner=cube_owner,
        player_on_roll=mover,
        crawford=crawford,
        game_state=GameState.RESIGNED,
        turn=result.winner,
        resignation=max(1, min(3, result.points // result.cube_value)),
        dice=dice,
        match_length=length,
        score=state.score,
    )


def gnubg_ids(state: MatchState) -> tuple[str, str]:
    """(Position ID, Match ID) as gnubg shows them for ``state``; the Position ID is from the
    side of gnubg's player on roll (``fMove``)."""
    info = match_info(state)
    return state.position_for(info.player_on_roll).to_id(), encode_match_id(info)
