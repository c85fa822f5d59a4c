"""Checker moves and plays, the values a turn is made of, and how they are written.

A :class:`Move` goes from a point to a point in the mover's numbering: 25 is the bar and 0
is off the board. A :class:`Play` is the whole turn: its moves and the position they lead to
(still seen from the mover: the turn has not passed yet). :meth:`Play.notation` writes a
play in standard notation (:mod:`tavla.engine.notation` describes it and reads it back);
:func:`tavla.engine.moves.legal_plays` generates the legal plays of a roll.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from tavla.engine.position import Position

BAR_POINT: Final = 25
OFF_POINT: Final = 0


@dataclass(frozen=True, slots=True)
class Move:
    """One checker moved by one die: ``source`` 25 is the bar, ``destination`` 0 is off.

    ``hit`` is true when the checker landed on a single opponent checker and sent it to the bar.
    """

    source: int
    destination: int
    hit: bool = False

    def notation(self) -> str:
        """This move alone in standard notation, e.g. ``"bar/22*"`` or ``"6/off"``."""
        src = "bar" if self.source == BAR_POINT else str(self.source)
        dst = "off" if self.destination == OFF_POINT else str(self.destination)
        return f"{src}/{dst}{'*' if self.hit else ''}"

    @property
    def pips(self) -> int:
        """Pips this checker travelled (a bear-off with a larger die counts only its point)."""
        return self.source - self.destination


@dataclass(frozen=True, slots=True)
class Play:
    """A legal play: the moves in an order they can be played and the resulting position.

    ``position`` is seen from the mover, before the turn passes (``position.swap()`` is the
    opponent's view). A pass is the empty play with the unchanged position.
    """

    moves: tuple[Move, ...]
    position: Position

    def notation(self) -> str:
        """Standard notation (``"24/18 13/10"``, ``"bar/22*"``, ``"6/off"``, ``"8/5(2)"``).

        The format is described in :mod:`tavla.engine.notation`, whose
        :func:`~tavla.engine.notation.parse_play` reads it back. A pass gives ``""``.
        """
        return format_play(self.moves)

    @property
    def is_pass(self) -> bool:
        """True for the empty play of a roll that cannot be played."""
        return not self.moves


def point_name(point: int) -> str:
    """``"bar"`` for 25, ``"off"`` for 0, the number otherwise."""
    if point == BAR_POINT:
        return "bar"
    if point == OFF_POINT:
        return "off"
    return str(point)


def _point_text(point: int, hit: bool) -> str:
    text = "bar" if point == BAR_POINT else "off" if point == OFF_POINT else str(point)
    return text + "*" if hit else text


def _highest_first(move: Move) -> tuple[int, int]:
    return (-move.source, -move.destination)


def format_play(moves: Sequence[Move]) -> str:
    """The standard notation of a play's moves (see :mod:`tavla.engine.notation`); ``""``
    for none.

    Same order as GNU Backgammon: the moves sorted by source then destination, highest first;
    a move starting where an earlier one ended continues that checker's chain.

    (Written for speed: the server names every legal play of every roll it pushes.)
    """
    if len(moves) == 2:  # most plays: a roll of two different dice, both played
        return _two_moves(*moves)
    if len(moves) == 1:
        (move,) = moves
        return f"{_point_text(move.source, False)}/{_point_text(move.destination, move.hit)}"
    return _chains(moves)


def _two_moves(first: Move, second: Move) -> str:
    """:func:`_chains` of two moves, in half its time."""
    if (second.source, second.destination) > (first.source, first.destination):
        first, second = second, first
    start = _point_text(first.source, False)
    if second.source == first.destination:  # one checker, both dice
        end = _point_text(second.destination, second.hit)
        return f"{start}/{first.destination}*/{end}" if first.hit else f"{start}/{end}"
    if second.source == first.source and second.destination == first.destination:
        return f"{start}/{_point_text(first.destination, first.hit or second.hit)}(2)"
    return (f"{start}/{_point_text(first.destination, first.hit)} "
            f"{_point_text(second.source, False)}/{_point_text(second.destination, second.hit)}")


def _chains(moves: Sequence[Move]) -> str:
    """:func:`format_play` for any number of moves."""
    # One checker's moves: its points in order and, for each point, whether it hit there.
    points: list[list[int]] = []
    hits: list[list[bool]] = []
    # sorted() is stable: of two equal moves the one played first, which hit, stays first.
    for move in sorted(moves, key=_highest_first):
        for index, chain in enumerate(points):
            if chain[-1] == move.source:  # the same checker (or an equivalent one)
                chain.append(move.destination)
                hits[index].append(move.hit)
                break
        else:
            points.append([move.source, move.destination])
            hits.append([False, move.hit])
    # Identical chains are written once, where the first stands, with a count; a point is
    # marked as hit if any of them hit there (gnubg writes 24/23*/22(2)).
    groups: dict[tuple[int, ...], list[bool]] = {}
    counts: dict[tuple[int, ...], int] = {}
    for chain, chain_hits in zip(points, hits, strict=True):
        path = tuple(chain)
        marks = groups.get(path)
        if marks is None:
            groups[path] = chain_hits
            counts[path] = 1
        else:
            groups[path] = [a or b for a, b in zip(marks, chain_hits, strict=True)]
            counts[path] += 1
    parts = []
    for path, marks in groups.items():
        last = len(path) - 1
        # Points on the way are written only where a checker hit.
        text = "/".join(_point_text(path[i], marks[i]) for i in range(last + 1)
                        if i == 0 or i == last or marks[i])
        count = counts[path]
        parts.append(f"{text}({count})" if count > 1 else text)
    return " ".join(parts)
