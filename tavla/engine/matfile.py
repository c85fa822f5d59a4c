"""Jellyfish ``.mat`` export: a match record GNU Backgammon, eXtreme Gammon and others import.

The layout follows what GNU Backgammon's ``export match mat`` writes::

     7 point match

     Game 1
     Alice : 0                      Bob : 0
      1)                             52: 13/8 24/22
      2) 63: 24/18 13/10             Doubles => 2
      3)  Takes                      64: 24/14
      ...
          Wins 2 points

Each numbered line holds one action of player 0 (left column) and the next of player 1
(right column): a roll, higher die first, and its play (``52: 13/8 24/22``, points counted
from the mover's side, ``25`` is the bar and ``0`` off, ``*`` a hit; a roll with no legal play
is ``66:`` alone), ``Doubles => 4``, ``Takes``, ``Drops``. ``Wins N point(s)`` goes in the winner's
column. A game that ended without a bear-off or a drop is read by gnubg as the loser's
resignation (worth ``N / cube`` rounded up to single, gammon or backgammon).

What the format cannot say: resignation, timeout, forfeit and adjudication all look like a
resignation; tied opening rolls are not shown; tables without gammons or without the Crawford
rule are imported by gnubg with gammons and the Crawford rule on (its score can then differ
from ours); gnubg refuses a double of a dead cube (one that would already win the doubler the
match), which our rules allow. A money session is written as a ``0 point match``.
"""

from __future__ import annotations

import datetime
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from tavla.engine.game import EventKind, GameRecord, Seat
from tavla.engine.match import MatchState
from tavla.engine.notation import resolve_play
from tavla.engine.plays import BAR_POINT, OFF_POINT, Move
from tavla.engine.position import Position

_LEFT_WIDTH: Final = 28
_NAME_WIDTH: Final = 31
_MAX_NAME: Final = 31
_UNSAFE: Final = re.compile(r"[:\x00-\x1f\x7f\"\[\]]+")


@dataclass(slots=True)
class _Line:
    left: str | None = None
    right: str | None = None


def mat_name(name: str) -> str:
    """``name`` made safe for a ``.mat`` score line: no colons, brackets, quotes or control
    characters, single spaces, at most 31 characters, never empty."""
    cleaned = " ".join(_UNSAFE.sub(" ", name).split())[:_MAX_NAME].strip()
    return cleaned or "Player"


def mat_move(move: Move) -> str:
    """One move as ``.mat`` writes it: ``25/22*``, ``13/7``, ``6/0``."""
    source = "25" if move.source == BAR_POINT else str(move.source)
    destination = "0" if move.destination == OFF_POINT else str(move.destination)
    return f"{source}/{destination}{'*' if move.hit else ''}"


def _roll(dice: tuple[int, int]) -> str:
    """A roll as ``.mat`` files write it: the higher die first, ``"62"``."""
    return f"{max(dice)}{min(dice)}"


def _points(points: int) -> str:
    return f"Wins {points} point{'s' if points != 1 else ''}"


def _cells(game: GameRecord) -> list[tuple[Seat, str]]:
    """Each player's cells in order: rolls with their plays, cube actions."""
    board = Position.initial()  # from player 0's side
    cells: list[tuple[Seat, str]] = []
    pending: tuple[Seat, tuple[int, int]] | None = None  # a roll not yet played
    for event in game.events:
        kind = event.kind
        if kind is EventKind.OPENING_ROLL:
            assert event.dice is not None
            die0, die1 = event.dice
            if die0 != die1:
                pending = (0 if die0 > die1 else 1, (max(event.dice), min(event.dice)))
        elif kind is EventKind.ROLL:
            assert event.player is not None and event.dice is not None
            pending = (event.player, event.dice)
        elif kind is EventKind.PLAY:
            assert event.player is not None and event.dice is not None and event.play is not None
            view = board if event.player == 0 else board.swap()
            play = resolve_play(view, event.dice, event.play)
            board = play.position if event.player == 0 else play.position.swap()
            moves = " ".join(mat_move(move) for move in play.moves)
            cells.append((event.player, f"{_roll(event.dice)}: {moves}"))
            pending = None
        elif kind is EventKind.AUTO_PASS:
            assert event.player is not None and event.dice is not None
            cells.append((event.player, f"{_roll(event.dice)}:"))
            pending = None
        elif kind is EventKind.DOUBLE:
            assert event.player is not None
            cells.append((event.player, f" Doubles => {event.value}"))
        elif kind is EventKind.TAKE:
            assert event.player is not None
            cells.append((event.player, " Takes"))
        elif kind is EventKind.DROP:
            assert event.player is not None
            cells.append((event.player, " Drops"))
    if pending is not None:
        # Rolled, then the game ended (a resignation, a flag, a referee) or is still waiting
        # for the play: gnubg reads a roll without a play as the dice being set.
        player, dice = pending
        cells.append((player, f"{_roll(dice)}:"))
    return cells


def _lines(cells: Sequence[tuple[Seat, str]]) -> list[_Line]:
    lines: list[_Line] = []
    for player, text in cells:
        if player == 0 or not lines or lines[-1].right is not None or lines[-1].left is None:
            lines.append(_Line())
        if player == 0:
            lines[-1].left = text
        else:
            lines[-1].right = text
    return lines


def _format_line(number: int, line: _Line) -> str:
    left = line.left or ""
    # At least two spaces between the columns: gnubg splits a line at a double space.
    width = max(_LEFT_WIDTH, len(left) + 2)
    return f"{number:3d}) {left:<{width}}{line.right or ''}".rstrip()


def export_game(game: GameRecord, names: tuple[str, str]) -> list[str]:
    """The ``.mat`` lines of one game (without a trailing blank line)."""
    name0, name1 = (mat_name(name) for name in names)
    first = f"{name0} : {game.score_before[0]}"
    header = f" {first:<{max(_NAME_WIDTH, len(first) + 1)}}{name1} : {game.score_before[1]}"
    out = [f" Game {game.number}", header]
    lines = _lines(_cells(game))
    result = game.result
    wins_line: str | None = None
    if result is not None:
        wins = _points(result.points)
        if result.winner == 1 and lines and lines[-1].left is not None and lines[-1].right is None:
            lines[-1].right = wins
        elif result.winner == 1:
            wins_line = " " * 34 + wins
        else:
            wins_line = " " * 6 + wins
    out.extend(_format_line(number, line) for number, line in enumerate(lines, start=1))
    if wins_line is not None:
        out.append(wins_line)
    return out


def export_mat(
    state: MatchState,
    names: tuple[str, str] = ("Player 0", "Player 1"),
    *,
    site: str = "Tavla",
    event: str | None = None,
    date: datetime.date | None = None,
    round_name: str | None = None,
) -> str:
    """The match so far as a Jellyfish ``.mat`` text (finished or running).

    ``names`` are player 0's and player 1's (player 0 is the left column). A game that has
    not started (nothing rolled yet) is left out. ``event``, ``round_name`` and ``date``
    become the ``Event``, ``Round`` and ``EventDate`` headers BMAB submissions ask for.
    """
    rules = state.rules
    quoted = [mat_name(name) for name in names]
    header = [f'; [Site "{mat_name(site)}"]']
    if event:
        header.append(f'; [Event "{mat_name(event)}"]')
    if round_name:
        header.append(f'; [Round "{mat_name(round_name)}"]')
    header += [f'; [Player 1 "{quoted[0]}"]', f'; [Player 2 "{quoted[1]}"]']
    if date is not None:
        header.append(f'; [EventDate "{date:%Y.%m.%d}"]')
    header += [
        '; [Variation "Backgammon"]',
        f'; [Crawford "{"On" if rules.crawford and rules.match_length else "Off"}"]',
        f'; [CubeLimit "{rules.max_cube if rules.cube else 1}"]',
        "",
        f" {rules.match_length or 0} point match",
        "",
    ]
    out = header
    for game in state.games:
        if game.result is None and not _cells(game):
            continue
        out.extend(export_game(game, (names[0], names[1])))
        out.append("")
    return "\n".join(out) + "\n"

