"""Checker moves, plays and legal-play generation.

A :class:`Move` goes from a point to a point in the mover's numbering: 25 is the bar and 0
is off the board. A :class:`Play` is the whole turn: its moves and the position they lead to
(still seen from the mover: the turn has not passed yet).
"""

from __future__ import annotations

from dataclasses import dataclass

from tavla.engine.errors import InvalidDiceError
from tavla.engine.position import BAR, Position

BAR_POINT = 25
OFF_POINT = 0


@dataclass(frozen=True, slots=True)
class Move:
    """One checker moved by one die: ``source`` 25 is the bar, ``destination`` 0 is off."""

    source: int
    destination: int
    hit: bool = False

    def notation(self) -> str:
        src = "bar" if self.source == BAR_POINT else str(self.source)
        dst = "off" if self.destination == OFF_POINT else str(self.destination)
        return f"{src}/{dst}{'*' if self.hit else ''}"


@dataclass(frozen=True, slots=True)
class Play:
    """A legal play: the moves in the order played and the resulting position."""

    moves: tuple[Move, ...]
    position: Position

    def notation(self) -> str:
        """Standard notation, e.g. ``"24/18 13/10"``, ``"bar/22*"``, ``"6/off"``; empty for a pass."""
        return " ".join(move.notation() for move in self.moves)


def check_dice(die1: int, die2: int) -> None:
    """Raise :class:`InvalidDiceError` unless both dice are integers 1..6."""
    for die in (die1, die2):
        if isinstance(die, bool) or not isinstance(die, int) or not 1 <= die <= 6:
            raise InvalidDiceError(f"a die shows 1 to 6, not {die!r}")


def legal_plays(position: Position, die1: int, die2: int) -> tuple[Play, ...]:
    """Every legal play for ``position`` and the roll, each distinct resulting position once.

    Applies maximum dice usage and the higher-die rule. When nothing can be played the
    result is a single empty play leading to the unchanged position.
    Raises :class:`InvalidDiceError` for dice outside 1..6.
    """
    check_dice(die1, die2)
    if die1 == die2:
        orders: tuple[tuple[int, ...], ...] = ((die1,) * 4,)
    else:
        high, low = max(die1, die2), min(die1, die2)
        orders = ((high, low), (low, high))
    found: dict[tuple[tuple[int, ...], tuple[int, ...]], tuple[Move, ...]] = {}
    best = 0
    mover = list(position.mover)
    opponent = list(position.opponent)
    doubles = die1 == die2

    def search(dice: tuple[int, ...], used: int, moves: list[Move], lowest_source: int) -> None:
        nonlocal best
        moved = False
        if used < len(dice):
            die = dice[used]
            for source in _sources(mover, lowest_source if doubles else BAR_POINT):
                move = _try_move(mover, opponent, source, die)
                if move is None:
                    continue
                moved = True
                moves.append(move)
                search(dice, used + 1, moves, source)
                moves.pop()
                _undo_move(mover, opponent, move)
        if not moved and used >= best:
            if used > best:
                best = used
                found.clear()
            key = (tuple(mover), tuple(opponent))
            if key not in found:
                found[key] = tuple(moves)

    for dice in orders:
        search(dice, 0, [], BAR_POINT)

    plays = found.items()
    if best == 1 and not doubles:
        high = max(die1, die2)
        with_high = [(key, moves) for key, moves in plays if _pips_moved(moves[0]) == high
                     or _bears_off_with(moves[0], high)]
        if with_high:
            plays = dict(with_high).items()
    return tuple(Play(moves, Position(*key)) for key, moves in plays)


def _pips_moved(move: Move) -> int:
    return move.source - move.destination


def _bears_off_with(move: Move, die: int) -> bool:
    # A bear-off with a larger die than the distance moved still used that die.
    return move.destination == OFF_POINT and move.source < die


def _sources(mover: list[int], highest: int) -> list[int]:
    """Points (mover numbering) holding a mover checker, highest first, not above ``highest``."""
    if mover[BAR]:
        return [BAR_POINT] if highest >= BAR_POINT else []
    return [p for p in range(min(highest, 24), 0, -1) if mover[p - 1]]


def _try_move(mover: list[int], opponent: list[int], source: int, die: int) -> Move | None:
    """Apply one die to the checker on ``source`` in place; None when the move is illegal."""
    target = source - die
    if target >= 1:
        blockers = opponent[24 - target]
        if blockers >= 2:
            return None
        mover[source - 1] -= 1
        mover[target - 1] += 1
        if blockers == 1:
            opponent[24 - target] = 0
            opponent[BAR] += 1
            return Move(source, target, True)
        return Move(source, target)
    # Bearing off: every checker must be home, and a larger die only from the highest point.
    if any(mover[6:]):
        return None
    if target < 0 and any(mover[source:6]):
        return None
    mover[source - 1] -= 1
    return Move(source, OFF_POINT)


def _undo_move(mover: list[int], opponent: list[int], move: Move) -> None:
    mover[move.source - 1] += 1
    if move.destination != OFF_POINT:
        mover[move.destination - 1] -= 1
        if move.hit:
            opponent[24 - move.destination] = 1
            opponent[BAR] -= 1
