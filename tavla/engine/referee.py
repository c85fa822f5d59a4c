"""A referee's adjudication as the rules see it: which points it may award and what it
records. :class:`~tavla.engine.match.MatchState` applies what these return (to the game in
play, or to the whole match)."""

from __future__ import annotations

from tavla.engine.actions import Adjudicate
from tavla.engine.errors import IllegalActionError
from tavla.engine.game import EndReason, EventKind, GameEvent, GameResult, Seat, WinKind, check_seat


def adjudication(action: Adjudicate) -> tuple[Seat, int | None, GameEvent]:
    """The winner, the points awarded (``None``: the cube's value) and the event recorded.
    Raises :class:`IllegalActionError` for an award of less than one point."""
    winner = check_seat(action.winner, "winner")
    points = action.points
    if points is not None and (isinstance(points, bool) or points < 1):
        raise IllegalActionError(f"an adjudication awards at least 1 point, not {points!r}")
    note = f"{action.scope.value}: {action.reason}" if action.reason else action.scope.value
    return winner, points, GameEvent(EventKind.ADJUDICATE, player=winner, value=points, note=note)


def game_awarded(winner: Seat, points: int | None, cube_value: int) -> GameResult:
    """The result of a game the referee awards: ``points``, or the cube's value."""
    return GameResult(winner=winner, points=cube_value if points is None else points,
                      kind=WinKind.SINGLE, reason=EndReason.ADJUDICATION, cube_value=cube_value)
