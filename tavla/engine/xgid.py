"""eXtreme Gammon's XGID: a whole decision (board, cube, turn, dice, score) in one line.

The form most players share, e.g. the opening position with 5-2 to play::

    XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:0:0:10

Ten fields separated by colons (the ``XGID=`` prefix is optional; a nine-field XGID without
the maximum cube is read too and written back the same way):

1. the board, 26 characters. Character 0 is the top player's bar, characters 1-24 the
   points 1-24 counted from the *bottom* player's side, character 25 the bottom player's
   bar. ``-`` is an empty point, ``A``..``O`` 1..15 checkers of the bottom player,
   ``a``..``o`` of the top player;
2. the cube value as a power of two (0 is 1, 1 is 2, ...);
3. the cube's place: 0 centred, 1 the bottom player's, -1 the top player's;
4. the player on turn: 1 bottom, -1 top;
5. the dice: ``00`` not rolled yet (the player on turn may double or roll), ``D`` the player
   on turn has doubled and the opponent must take or pass, or two digits 1-6 as rolled
   (``B`` and ``R``, beaver and raccoon, are refused: Tavla plays neither);
6. and 7. the bottom and the top player's scores;
8. in a match, 1 if this is the Crawford game; in a money game, 1 if the Jacoby rule is on
   plus 2 if beavers are;
9. the match length, 0 for money;
10. the highest cube allowed, as a power of two.

In this module seat 0 is the bottom player and seat 1 the top, as gnubg's players 0 and 1;
:meth:`Xgid.match_info` gives the GNU Backgammon Match ID fields of the same decision and
``position`` is seen from the player on turn, as a Position ID is. Errors are
:class:`~tavla.engine.errors.InvalidXgidError` with the field named.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

from tavla.engine.errors import InvalidMatchIdError, InvalidPositionError, InvalidXgidError
from tavla.engine.game import Seat, other
from tavla.engine.match_id import MatchInfo
from tavla.engine.position import CHECKERS, Position

PREFIX: Final = "XGID="
_BOARD_CHARS: Final = re.compile(r"[-A-Oa-o]{26}")
_INTEGER: Final = re.compile(r"-?[0-9]{1,5}")
_FIELDS: Final = ("board", "cube value", "cube position", "turn", "dice", "bottom score",
                  "top score", "Crawford/Jacoby", "match length", "maximum cube")


@dataclass(frozen=True, slots=True)
class Xgid:
    """One XGID's contents. ``position`` is from the side of ``player_on_roll`` (0 bottom,
    1 top); ``dice`` are as written, ``(0, 0)`` before the roll; ``score`` is (bottom, top);
    ``max_cube_log2`` None when the XGID had no tenth field."""

    position: Position
    cube_value: int = 1
    cube_owner: Seat | None = None
    player_on_roll: Seat = 0
    dice: tuple[int, int] = (0, 0)
    double_offered: bool = False
    score: tuple[int, int] = (0, 0)
    crawford: bool = False
    jacoby: bool = False
    beaver: bool = False
    match_length: int = 0
    max_cube_log2: int | None = 10

    @classmethod
    def from_match_info(cls, position: Position, info: MatchInfo) -> Xgid:
        """The XGID of a Position ID's ``position`` (from gnubg's player on roll) and a Match
        ID's ``info``. Raises :class:`InvalidXgidError` for what an XGID cannot say (a
        resignation offered, a game not being played)."""
        if info.resignation:
            raise InvalidXgidError("an XGID cannot say that a resignation is offered")
        if info.double_offered and info.dice != (0, 0):
            raise InvalidXgidError("a double is offered before the dice are rolled")
        return cls(
            position=position, cube_value=info.cube_value, cube_owner=info.cube_owner,
            player_on_roll=info.player_on_roll, dice=info.dice,
            double_offered=info.double_offered, score=info.score, crawford=info.crawford,
            jacoby=info.jacoby, match_length=info.match_length,
        )

    def match_info(self) -> MatchInfo:
        """The same decision as GNU Backgammon Match ID fields (``turn`` is the player who
        must decide: the doubled player while a double is offered)."""
        return MatchInfo(
            cube_value=self.cube_value, cube_owner=self.cube_owner,
            player_on_roll=self.player_on_roll, crawford=self.crawford,
            turn=other(self.player_on_roll) if self.double_offered else self.player_on_roll,
            double_offered=self.double_offered,
            dice=(max(self.dice), min(self.dice)), match_length=self.match_length,
            score=self.score, jacoby=self.jacoby,
        )

    def notation(self) -> str:
        """The XGID, with its ``XGID=`` prefix (what :func:`parse_xgid` reads back)."""
        return encode_xgid(self)


def _sides(xgid: Xgid) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """(bottom, top), each in its own numbering (index 24 the bar)."""
    position = xgid.position
    if xgid.player_on_roll == 0:
        return position.mover, position.opponent
    return position.opponent, position.mover


def encode_xgid(xgid: Xgid) -> str:
    """The XGID text of ``xgid`` (see the module's description of the fields)."""
    bottom, top = _sides(xgid)
    chars = ["-"] * 26
    for point in range(1, 25):
        if bottom[point - 1]:
            chars[point] = chr(ord("A") + bottom[point - 1] - 1)
        elif top[24 - point]:
            chars[point] = chr(ord("a") + top[24 - point] - 1)
    if top[24]:
        chars[0] = chr(ord("a") + top[24] - 1)
    if bottom[24]:
        chars[25] = chr(ord("A") + bottom[24] - 1)
    owner = 0 if xgid.cube_owner is None else (1 if xgid.cube_owner == 0 else -1)
    if xgid.double_offered:
        dice = "D"
    else:
        dice = f"{xgid.dice[0]}{xgid.dice[1]}"
    if xgid.match_length:
        rules = int(xgid.crawford)
    else:
        rules = int(xgid.jacoby) + 2 * int(xgid.beaver)
    fields = ["".join(chars), str(xgid.cube_value.bit_length() - 1), str(owner),
              "1" if xgid.player_on_roll == 0 else "-1", dice, str(xgid.score[0]),
              str(xgid.score[1]), str(rules), str(xgid.match_length)]
    if xgid.max_cube_log2 is not None:
        fields.append(str(xgid.max_cube_log2))
    return PREFIX + ":".join(fields)


def _integer(fields: list[str], index: int, low: int, high: int) -> int:
    text = fields[index]
    if not _INTEGER.fullmatch(text):
        raise InvalidXgidError(f"XGID field {index + 1} ({_FIELDS[index]}) is {text!r}, "
                               "not a whole number")
    value = int(text)
    if not low <= value <= high:
        raise InvalidXgidError(f"XGID field {index + 1} ({_FIELDS[index]}) is {value}: "
                               f"expected {low} to {high}")
    return value


def _board(text: str) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """(bottom, top) counts of the 26-character board field."""
    if len(text) != 26:
        raise InvalidXgidError(
            f"the XGID board {text!r} has {len(text)} characters: expected 26 (the two bars "
            "and 24 points)")
    if not _BOARD_CHARS.fullmatch(text):
        raise InvalidXgidError(
            f"the XGID board {text!r} may hold only '-', A-O (bottom player) and a-o (top "
            "player)")
    bottom, top = [0] * 25, [0] * 25
    if text[0].isupper():
        raise InvalidXgidError("the XGID board's first character is the top player's bar: "
                               "'-' or a lower-case letter")
    if text[25].islower():
        raise InvalidXgidError("the XGID board's last character is the bottom player's bar: "
                               "'-' or an upper-case letter")
    for index, char in enumerate(text):
        if char == "-":
            continue
        if char.isupper():
            bottom[24 if index == 25 else index - 1] += ord(char) - ord("A") + 1
        else:
            top[24 if index == 0 else 24 - index] += ord(char) - ord("a") + 1
    for name, side in (("bottom", bottom), ("top", top)):
        if sum(side) > CHECKERS:
            raise InvalidXgidError(f"the XGID board gives the {name} player {sum(side)} "
                                   f"checkers: at most {CHECKERS}")
    if not any(bottom) and not any(top):
        raise InvalidXgidError("the XGID board holds no checker")
    return tuple(bottom), tuple(top)


def parse_xgid(text: str) -> Xgid:
    """Read an XGID (with or without ``XGID=``; surrounding spaces ignored).

    Raises :class:`InvalidXgidError`, naming the field, for a wrong number of fields, a bad
    board, a cube that is not a power of two up to 2^15, a cube owned while centred at 1, a
    turn other than 1 or -1, dice that are not ``00``, ``D`` or two of 1-6, a score at or
    above the match length, a Crawford game where neither player is one point from the
    match, or a board no game reaches.
    """
    if not isinstance(text, str):
        raise InvalidXgidError(f"an XGID is a string, not {type(text).__name__}")
    body = text.strip()
    if body[:len(PREFIX)].upper() == PREFIX:
        body = body[len(PREFIX):]
    fields = body.split(":")
    if len(fields) not in (9, 10):
        raise InvalidXgidError(
            f"{text!r} is not an XGID: expected 10 fields separated by ':' (the board, "
            f"cube, cube position, turn, dice, two scores, rules, match length and maximum "
            f"cube), got {len(fields)}")
    bottom, top = _board(fields[0])
    cube_log2 = _integer(fields, 1, 0, 15)
    owner_code = _integer(fields, 2, -1, 1)
    turn = _integer(fields, 3, -1, 1)
    if turn == 0:
        raise InvalidXgidError("XGID field 4 (turn) is 0: expected 1 (bottom player) or -1 "
                               "(top player)")
    dice_text = fields[4]
    double_offered = dice_text == "D"
    if dice_text in ("B", "R"):
        raise InvalidXgidError("XGID field 5 (dice) offers a beaver or a raccoon: Tavla "
                               "plays neither")
    if double_offered or dice_text == "00":
        dice = (0, 0)
    elif re.fullmatch(r"[1-6]{2}", dice_text):
        dice = (int(dice_text[0]), int(dice_text[1]))
    else:
        raise InvalidXgidError(f"XGID field 5 (dice) is {dice_text!r}: expected '00' (to "
                               "roll), 'D' (doubled) or two dice 1-6 such as '52'")
    bottom_score = _integer(fields, 5, 0, 0x7FFF)
    top_score = _integer(fields, 6, 0, 0x7FFF)
    rules = _integer(fields, 7, 0, 3)
    length = _integer(fields, 8, 0, 0x7FFF)
    max_cube = _integer(fields, 9, 0, 15) if len(fields) == 10 else None
    if length:
        if rules > 1:
            raise InvalidXgidError(f"XGID field 8 (Crawford) is {rules} in a match: 0 or 1")
        if max(bottom_score, top_score) >= length:
            raise InvalidXgidError(f"XGID scores {bottom_score}-{top_score} do not fit a "
                                   f"{length}-point match: each is below {length}")
        if rules and length - 1 not in (bottom_score, top_score):
            raise InvalidXgidError("XGID field 8 says this is the Crawford game, but neither "
                                   f"player has {length - 1} points")
    owner: Seat | None = None if owner_code == 0 else (0 if owner_code == 1 else 1)
    if owner is not None and cube_log2 == 0:
        raise InvalidXgidError("XGID field 3 (cube position) gives a cube of 1 an owner: a "
                               "cube is owned only once doubled")
    mover: Seat = 0 if turn == 1 else 1
    if double_offered and owner == other(mover):
        raise InvalidXgidError("XGID: the player on turn doubles a cube the opponent owns")
    try:
        position = (Position(bottom, top) if mover == 0 else Position(top, bottom))
    except InvalidPositionError as error:
        raise InvalidXgidError(f"the XGID board is not a position: {error}") from error
    try:
        xgid = Xgid(
            position=position, cube_value=1 << cube_log2, cube_owner=owner,
            player_on_roll=mover, dice=dice, double_offered=double_offered,
            score=(bottom_score, top_score), crawford=bool(length and rules),
            jacoby=bool(not length and rules & 1), beaver=bool(not length and rules & 2),
            match_length=length, max_cube_log2=max_cube,
        )
        xgid.match_info()  # the same checks as a Match ID's
    except InvalidMatchIdError as error:
        raise InvalidXgidError(f"{text!r} is not a valid XGID: {error}") from error
    return xgid
