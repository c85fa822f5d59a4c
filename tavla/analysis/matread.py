"""Read a Jellyfish ``.mat`` match record (ours, GNU Backgammon's, other programs') into
plain values the analysis walks: for each game the score before it and every action with
the position it was taken in.

The layout is described in :mod:`tavla.engine.matfile`. Reading is lenient about spacing
(which column an action is in is told by where it starts) and strict about content: every
play is checked by the rules engine, and anything that cannot be read raises
:class:`MatFileError` naming the line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Final

from tavla.engine import Position, legal_plays, parse_play
from tavla.engine.errors import EngineError
from tavla.engine.matdice import (
    GAME_LINE,
    MATCH_LINE,
    NUMBERED,
    RIGHT_COLUMN,
    SCORE_LINE,
    UnreadableAction,
    line_actions,
)

_HEADER: Final = re.compile(r'^;\s*\[(\w[\w ]*?)\s+"(.*)"\]\s*$')


class MatFileError(ValueError):
    """The text is not a readable ``.mat`` record; ``line`` is the 1-based line number."""

    def __init__(self, line: int, message: str) -> None:
        super().__init__(f"line {line}: {message}")
        self.line = line
        self.message = message


@dataclass(frozen=True, slots=True)
class Turn:
    """One action of a game.

    ``kind`` is ``play`` (``dice`` rolled, ``before`` the mover's view of the board before
    it, ``after`` after the play and before the turn passes, ``play`` its notation),
    ``roll`` (rolled, then the game ended before the play), ``double`` (``cube`` is the new
    value), ``take``, ``drop`` or ``wins`` (``points``).
    ``line`` is where the action was read.
    """

    player: int
    kind: str
    line: int
    dice: tuple[int, int] | None = None
    before: Position | None = None
    after: Position | None = None
    play: str = ""
    cube: int = 0
    points: int = 0


@dataclass(slots=True)
class GameRecord:
    number: int
    score: tuple[int, int]
    turns: list[Turn] = field(default_factory=list)
    line: int = 0  # the "Game N" line
    score_line: int = 0


@dataclass(slots=True)
class MatRecord:
    """A whole ``.mat`` file: ``match_length`` 0 is a money session."""

    match_length: int
    names: tuple[str, str]
    crawford: bool
    games: list[GameRecord]
    #: The text the record was read from ("" when built otherwise): gnubg's own analysis
    #: (:mod:`tavla.analysis.native`) imports it.
    text: str = ""


#: The longest match Tavla's rules allow (``tavla.engine.rules.Rules``).
MAX_MATCH_LENGTH: Final = 0x7FFF
#: The highest cube a record can reach (Tavla's and gnubg's limit).
MAX_CUBE: Final = 64


def _actions(text: str, number: int) -> list[tuple[int, re.Match[str]]]:
    """The actions on one line with the column each starts at."""
    try:
        return line_actions(text)
    except UnreadableAction as error:
        raise MatFileError(number, f"cannot read {error.token!r}") from None


def read_mat(text: str) -> MatRecord:
    """Parse and check a ``.mat`` record. Raises :class:`MatFileError` naming the line."""
    lines = text.splitlines()
    headers: dict[str, str] = {}
    match_length: int | None = None
    games: list[GameRecord] = []
    names = ("Player 0", "Player 1")
    game: GameRecord | None = None
    board = Position.initial()  # player 0's view
    expecting_score = False
    for number, raw in enumerate(lines, start=1):
        line = raw.replace("\t", "    ")
        if not line.strip():
            continue
        header = _HEADER.match(line)
        if header:
            headers[header.group(1).strip().lower()] = header.group(2)
            continue
        if line.lstrip().startswith(";"):
            continue
        if match_length is None:
            found = MATCH_LINE.match(line)
            if found is None:
                raise MatFileError(number, "expected 'N point match' before the games")
            match_length = int(found.group(1))
            if match_length > MAX_MATCH_LENGTH:
                raise MatFileError(number, f"a match is at most {MAX_MATCH_LENGTH} points, "
                                           f"not {found.group(1)}")
            continue
        game_line = GAME_LINE.match(line)
        if game_line:
            game = GameRecord(int(game_line.group(1)), (0, 0), line=number)
            games.append(game)
            board = Position.initial()
            expecting_score = True
            continue
        if game is None:
            raise MatFileError(number, "expected 'Game 1'")
        if expecting_score:
            score = SCORE_LINE.match(line)
            if score is None:
                raise MatFileError(number, "expected the score line 'Name : 0   Name : 0'")
            names = (score.group(1).strip(), score.group(3).strip())
            game.score = (int(score.group(2)), int(score.group(4)))
            game.score_line = number
            expecting_score = False
            continue
        numbered = NUMBERED.match(line)
        body_start = numbered.end() if numbered else 0
        actions = _actions(line[body_start:], number)
        if not actions:
            continue
        if len(actions) > 2:
            raise MatFileError(number, "more than two actions on one line")
        for index, (column, action) in enumerate(actions):
            if len(actions) == 2:
                player = index
            else:
                player = 1 if column >= RIGHT_COLUMN else 0
            board = _add_turn(game, board, player, action, number)
    if match_length is None:
        raise MatFileError(max(1, len(lines)), "no 'N point match' line")
    crawford = headers.get("crawford", "on").lower() != "off"
    record = MatRecord(match_length, names, crawford and match_length > 0, games, text)
    _check(record, max(1, len(lines)))
    return record


def _check(record: MatRecord, last_line: int) -> None:
    """Refuse what no match can produce: no game, games out of order or empty, a score the
    games before it do not give, a cube that does not double, a game worth more than three
    times its cube. Raises :class:`MatFileError` naming the line."""
    if not record.games:
        raise MatFileError(last_line, "no game in the record")
    length = record.match_length
    expected: tuple[int, int] | None = None
    for index, game in enumerate(record.games):
        if game.number != index + 1:
            raise MatFileError(game.line, f"expected 'Game {index + 1}', not "
                                          f"'Game {game.number}': games are numbered in order")
        if length and max(game.score) >= length:
            raise MatFileError(game.score_line, f"a score of {max(game.score)} in a "
                                                f"{length} point match: the match was over")
        if expected is not None and game.score != expected:
            raise MatFileError(game.score_line, f"the score after game {index} is "
                                                f"{expected[0]}-{expected[1]}, not "
                                                f"{game.score[0]}-{game.score[1]}")
        if not game.turns:
            raise MatFileError(game.line, f"game {game.number} has no action")
        expected = _score_after(game, length)


def _score_after(game: GameRecord, length: int) -> tuple[int, int] | None:
    """The score after ``game`` from its ``Wins`` line, checking its cube on the way; None
    for a game that did not end (only the last one may not)."""
    cube = 1
    for turn in game.turns:
        if turn.kind == "double":
            if turn.cube != 2 * cube or turn.cube > MAX_CUBE:
                raise MatFileError(turn.line, f"the cube is at {cube}: a double turns it to "
                                              f"{2 * cube}, not {turn.cube}")
        elif turn.kind == "take":
            cube *= 2
        elif turn.kind == "wins":
            # A game is worth at most a backgammon at the cube; a match awarded to a player
            # (a forfeit, a flag that loses the match, a referee) scores what they needed;
            # a referee may award a money game up to a backgammon at the highest cube.
            most = 3 * cube
            if length:
                most = max(most, length - game.score[turn.player])
            else:
                most = max(most, 3 * MAX_CUBE)
            if not 1 <= turn.points <= most:
                raise MatFileError(turn.line, f"this game is worth 1 to {most} points, not "
                                              f"{turn.points}")
            score = list(game.score)
            score[turn.player] += turn.points
            return score[0], score[1]
    return None


def _add_turn(game: GameRecord, board: Position, player: int, action: re.Match[str],
              number: int) -> Position:
    """Append the action to ``game``; return the board (player 0's view) after it."""
    if game.turns and game.turns[-1].kind in ("wins", "drop", "roll"):
        if action.group("wins") is None:
            if game.turns[-1].kind == "roll":
                raise MatFileError(number, "a roll without its play must end the game")
            raise MatFileError(number, "the game is already over")
    if action.group("roll"):
        roll = action.group("roll")
        dice = (int(roll[0]), int(roll[1]))
        view = board if player == 0 else board.swap()
        moves = " ".join(action.group("moves").split())
        if not moves and not legal_plays(view, *dice)[0].is_pass:
            # Rolled, then the game ended before the play (a resignation, a flag, a
            # referee): gnubg writes the dice alone. Nothing was decided.
            game.turns.append(Turn(player, "roll", number, dice=dice, before=view))
            return board
        try:
            play = parse_play(view, dice[0], dice[1], moves or "pass")
        except EngineError as error:
            raise MatFileError(
                number, f"player {player + 1}'s {roll}: {moves or '(no move)'}: {error}"
            ) from error
        game.turns.append(Turn(player, "play", number, dice=dice, before=view,
                               after=play.position, play=play.notation()))
        return play.position if player == 0 else play.position.swap()
    if action.group("double"):
        game.turns.append(Turn(player, "double", number, cube=int(action.group("value"))))
    elif action.group("take"):
        game.turns.append(Turn(player, "take", number))
    elif action.group("drop"):
        game.turns.append(Turn(player, "drop", number))
    else:
        game.turns.append(Turn(player, "wins", number, points=int(action.group("points"))))
    return board
