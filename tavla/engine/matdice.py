"""The dice of a Jellyfish ``.mat`` match record, game by game, for checking against a dice
audit (``python -m tavla.engine verify-dice AUDIT.json --mat FILE.mat``).

Only what the dice need is read: the ``N point match`` line, each ``Game N`` with its score
line, and on every following line the actions in the layout :mod:`tavla.engine.matfile`
writes (a roll ``52: 13/8 24/22``, a roll alone ``66:``, ``Doubles => 2``, ``Takes``,
``Drops``, ``Wins N points``). Plays are not checked against the rules here: a record whose
dice agree with the audit but whose plays are wrong is a matter for the log's own replay.

A ``.mat`` writes each roll higher die first and leaves out tied opening rolls, so what it
can confirm is, per game, the unordered pair of every roll after the ties, in order, and who
moved first.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Final

from tavla.engine.errors import EngineError

# The lines of a ``.mat`` record as every reader of one sees them: this module, and the
# analysis's reader (tavla.analysis.matread), which reads the plays too.

#: An action alone on its line that starts at or after this column (counted after the line
#: number) is player 1's: the right-hand column starts at column 29 in what we write.
RIGHT_COLUMN: Final = 20

MATCH_LINE: Final = re.compile(r"^\s*(\d+)\s+point\s+match\s*$", re.IGNORECASE)
GAME_LINE: Final = re.compile(r"^\s*Game\s+(\d+)\s*$", re.IGNORECASE)
SCORE_LINE: Final = re.compile(r"^\s*(.+?)\s*:\s*(\d+)\s+(.+?)\s*:\s*(\d+)\s*$")
NUMBERED: Final = re.compile(r"^\s*\d+\)")
ACTION: Final = re.compile(
    r"(?P<roll>[1-6]{2}):(?P<moves>(?:[ \t]+(?:bar|\d+)/(?:off|\d+)\*?(?:\(\d\))?)*)"
    r"|(?P<double>(?:Doubles|Redoubles)\s*=>\s*(?P<value>\d+))"
    r"|(?P<take>Takes|Accepts)"
    r"|(?P<drop>Drops|Passes|Rejects)"
    r"|(?P<wins>Wins\s+(?P<points>\d+)\s+points?(?:\s+and\s+the\s+match)?)",
    re.IGNORECASE,
)


class UnreadableAction(ValueError):
    """A token on an action line that is no action; ``token`` is the text from there to the
    next space."""

    def __init__(self, token: str) -> None:
        super().__init__(f"cannot read {token!r}")
        self.token = token


def line_actions(text: str) -> list[tuple[int, re.Match[str]]]:
    """The actions on one line (after its number), each with the column it starts at.
    Raises :class:`UnreadableAction`."""
    found: list[tuple[int, re.Match[str]]] = []
    position = 0
    stripped = text.rstrip()
    while position < len(stripped):
        if stripped[position].isspace():
            position += 1
            continue
        action = ACTION.match(stripped, position)
        if action is None:
            raise UnreadableAction(stripped[position:].split()[0])
        found.append((position, action))
        position = action.end()
    return found


class MatDiceError(EngineError):
    """A text that is not a ``.mat`` record this reader can take the dice from; ``line`` is
    the 1-based line number."""

    def __init__(self, line: int, message: str) -> None:
        super().__init__(f"line {line}: {message}")
        self.line = line


@dataclass(frozen=True, slots=True)
class MatRoll:
    """One roll as the record shows it: the mover (0: left column, 1: right), the two dice
    higher first, and the line it is on."""

    player: int
    dice: tuple[int, int]
    line: int


@dataclass(slots=True)
class MatGame:
    """One game of the record: its number (``Game N``), the line it starts on, its rolls."""

    number: int
    line: int
    rolls: list[MatRoll] = field(default_factory=list)


def _actions(text: str, number: int) -> list[tuple[int, re.Match[str]]]:
    try:
        return line_actions(text)
    except UnreadableAction as error:
        # repr escapes control characters; a long token is cut short.
        raise MatDiceError(number, f"cannot read {repr(error.token)[:40]}") from None


def mat_dice(text: str) -> list[MatGame]:
    """Every game of the ``.mat`` record ``text`` with its rolls in the order they were made.

    Raises :class:`MatDiceError` (naming the line) for a text that is not such a record.
    """
    games: list[MatGame] = []
    seen_match_line = False
    expecting_score = False
    lines = text.splitlines()
    for number, raw in enumerate(lines, start=1):
        line = raw.replace("\t", "    ")
        if not line.strip() or line.lstrip().startswith(";"):
            continue
        if not seen_match_line:
            if MATCH_LINE.match(line) is None:
                raise MatDiceError(number, "expected 'N point match' before the games")
            seen_match_line = True
            continue
        game_line = GAME_LINE.match(line)
        if game_line:
            games.append(MatGame(int(game_line.group(1)), number))
            expecting_score = True
            continue
        if not games:
            raise MatDiceError(number, "expected 'Game 1'")
        if expecting_score:
            if SCORE_LINE.match(line) is None:
                raise MatDiceError(number, "expected the score line 'Name : 0   Name : 0'")
            expecting_score = False
            continue
        numbered = NUMBERED.match(line)
        actions = _actions(line[numbered.end() if numbered else 0:], number)
        if len(actions) > 2:
            raise MatDiceError(number, "more than two actions on one line")
        for index, (column, action) in enumerate(actions):
            roll = action.group("roll")
            if roll is None:
                continue
            if len(actions) == 2:
                player = index
            else:
                player = 1 if column >= RIGHT_COLUMN else 0
            high, low = sorted((int(roll[0]), int(roll[1])), reverse=True)
            games[-1].rolls.append(MatRoll(player, (high, low), number))
    if not seen_match_line:
        raise MatDiceError(max(1, len(lines)), "no 'N point match' line")
    return games
