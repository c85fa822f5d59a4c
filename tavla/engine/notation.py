"""Standard play notation, the way GNU Backgammon writes it, and its parser.

The format :meth:`Play.notation <tavla.engine.plays.Play.notation>` prints (written by
:func:`tavla.engine.plays.format_play`, beside the type):

* a move is ``source/destination`` in the mover's numbering (24 down to 1), with ``bar`` for
  the bar and ``off`` for bearing off: ``24/18``, ``bar/22``, ``6/off``;
* ``*`` follows a point where a blot was hit: ``13/7*``;
* a checker that moves more than once is written once, from where it started to where it
  stopped (``24/13``); a point on the way is shown only if it hit there (``13/10*/8``);
* identical moves are written once with a count: ``8/5(2)``, ``6/2(4)``;
* moves are ordered as GNU Backgammon orders them: by source, highest first, then by
  destination, highest first, before one checker's moves are joined (``13/1 13/7 8/2``);
* a pass (a roll that cannot be played) is the empty string; the CLI prints it as
  ``(no legal play)``.

:func:`parse_play` reads that and unambiguous variants: chains with their intermediate points
(``24/18/13``), the same checker's moves written separately (``24/18 18/13``), counts,
missing ``*``, ``b``/``25`` for the bar and ``o``/``0`` for off, commas between moves, any
letter case. ``""``, ``pass`` and ``(no legal play)`` stand for a pass.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from tavla.engine.errors import IllegalPlayError, InvalidNotationError
from tavla.engine.moves import legal_plays
from tavla.engine.plays import BAR_POINT, OFF_POINT, Play, point_name
from tavla.engine.position import BAR, Position

PASS_TEXT: Final = "(no legal play)"
_PASS_WORDS: Final = frozenset({"", "pass", PASS_TEXT})
_TOKEN: Final = re.compile(r"(?P<path>[^()]+?)(?:\((?P<count>\d+)\))?")
_POINT: Final = re.compile(r"(?P<point>bar|b|off|o|\d{1,2})(?P<hit>\*?)")


@dataclass(frozen=True)
class _Written:
    """What a text says: the mover's counts after it, points landed on, points hit."""

    mover: tuple[int, ...]
    stops: frozenset[int]
    hits: frozenset[int]


def _read_point(text: str, token: str) -> tuple[int, bool]:
    match = _POINT.fullmatch(text)
    if not match:
        raise InvalidNotationError(f"{token!r}: {text!r} is not a point (1-24, bar or off)")
    name = match["point"]
    if name in ("bar", "b"):
        point = BAR_POINT
    elif name in ("off", "o"):
        point = OFF_POINT
    else:
        point = int(name)
        if point > BAR_POINT:
            raise InvalidNotationError(f"{token!r}: there is no point {point}")
    return point, bool(match["hit"])


def _read(text: str, position: Position) -> _Written:
    mover = list(position.mover)
    stops: set[int] = set()
    hits: set[int] = set()
    for token in text.replace(",", " ").split():
        match = _TOKEN.fullmatch(token)
        if not match:
            raise InvalidNotationError(f"{token!r} is not a move like 24/18 or 8/5(2)")
        count = int(match["count"] or 1)
        if not 1 <= count <= 4:
            raise InvalidNotationError(f"{token!r}: a move is repeated 1 to 4 times")
        names = match["path"].split("/")
        if len(names) < 2:
            raise InvalidNotationError(f"{token!r} is not a move like 24/18: it needs a '/'")
        points = [_read_point(name, token) for name in names]
        for index, (point, hit) in enumerate(points):
            if point == BAR_POINT and index:
                raise InvalidNotationError(f"{token!r}: a checker cannot move to the bar")
            if point == OFF_POINT and index != len(points) - 1:
                raise InvalidNotationError(f"{token!r}: a checker borne off moves no further")
            if hit and index == 0:
                raise InvalidNotationError(f"{token!r}: a checker hits where it lands, not before")
            if hit and point == OFF_POINT:
                raise InvalidNotationError(f"{token!r}: nothing can be hit off the board")
            if index and point >= points[index - 1][0]:
                raise InvalidNotationError(
                    f"{token!r}: checkers move from higher to lower points "
                    f"({point_name(points[index - 1][0])} to {point_name(point)} is backwards)"
                )
            if hit:
                hits.add(point)
            if 0 < index < len(points) - 1:
                stops.add(point)
        source, destination = points[0][0], points[-1][0]
        mover[source - 1] -= count
        if destination != OFF_POINT:
            mover[destination - 1] += count
    for index, checkers in enumerate(mover):
        if checkers < 0:
            where = "the bar" if index == BAR else f"point {index + 1}"
            raise IllegalPlayError(
                f"{text!r} moves more checkers from {where} than the player on roll has there"
            )
    return _Written(tuple(mover), frozenset(stops), frozenset(hits))


def _describe(plays: Sequence[Play], limit: int = 12) -> str:
    names = sorted(play.notation() for play in plays)
    shown = ", ".join(names[:limit])
    return shown + (f" and {len(names) - limit} more" if len(names) > limit else "")


def parse_play(position: Position, die1: int, die2: int, text: str) -> Play:
    """The legal play of ``position`` with dice ``die1``-``die2`` that ``text`` describes.

    Raises :class:`InvalidNotationError` when ``text`` cannot be read or could mean two
    different plays, :class:`IllegalPlayError` when it reads as a play that is not legal, and
    :class:`InvalidDiceError` for bad dice.
    """
    if not isinstance(text, str):
        raise InvalidNotationError(f"a play is written as text, not {text!r}")
    return _parse_among(legal_plays(position, die1, die2), position, (die1, die2), text)


def _parse_among(plays: Sequence[Play], position: Position, dice: tuple[int, int],
                 text: str) -> Play:
    """:func:`parse_play` with the roll's legal ``plays`` already generated."""
    roll = f"{dice[0]}-{dice[1]}"
    normalized = " ".join(text.lower().split())
    if normalized in _PASS_WORDS:
        if plays[0].is_pass:
            return plays[0]
        raise IllegalPlayError(
            f"{roll} can be played, so the turn cannot pass: {_describe(plays)}"
        )
    if plays[0].is_pass:
        raise IllegalPlayError(f"{text!r}: nothing can be played with {roll}; the turn passes")
    written = _read(normalized, position)
    candidates = [play for play in plays if play.position.mover == written.mover]
    if not candidates:
        raise IllegalPlayError(
            f"{text!r} is not a legal play with {roll}; legal plays: {_describe(plays)}"
        )
    routed = [
        play for play in candidates
        if written.stops <= {move.destination for move in play.moves}
    ]
    if not routed:
        raise IllegalPlayError(
            f"{text!r}: a checker cannot stop on {_points(written.stops)} with {roll}; "
            f"legal: {_describe(candidates)}"
        )
    hitting = [play for play in routed if written.hits <= _hit_points(play)]
    if not hitting:
        raise IllegalPlayError(
            f"{text!r}: there is no blot to hit on {_points(written.hits)}; "
            f"legal: {_describe(routed)}"
        )
    # With the hits left out, "13/8" means the route that hits least (GNU Backgammon writes
    # "13/10*/8" for the one that hits on 10).
    fewest = min(len(_hit_points(play)) for play in hitting)
    chosen = [play for play in hitting if len(_hit_points(play)) == fewest]
    if len(chosen) > 1:
        raise InvalidNotationError(
            f"{text!r} could be {' or '.join(sorted(p.notation() for p in chosen))}: "
            f"mark the hit with '*'"
        )
    return chosen[0]


def _hit_points(play: Play) -> frozenset[int]:
    return frozenset(move.destination for move in play.moves if move.hit)


def _points(points: frozenset[int]) -> str:
    return ", ".join(point_name(p) for p in sorted(points, reverse=True))


def resolve_play(position: Position, dice: tuple[int, int], play: Play | str) -> Play:
    """The legal play meant by ``play`` (a :class:`Play` or its notation) for ``position``
    (seen from the mover) and ``dice``.

    Raises :class:`InvalidNotationError` for text that cannot be read and
    :class:`IllegalPlayError` for a play that is not legal with this roll.
    """
    return resolve(position, dice, legal_plays(position, *dice), play)


def resolve(
    position: Position, dice: tuple[int, int], plays: tuple[Play, ...], play: Play | str
) -> Play:
    """The one of ``plays`` (the legal plays of ``position`` with ``dice``) that ``play``
    means."""
    if isinstance(play, Play):
        for candidate in plays:
            # One play per resulting position (hits included), so the position identifies it.
            if candidate is play or candidate.position == play.position:
                return candidate
        raise IllegalPlayError(
            f"{play.notation() or 'no move'!r} is not a legal play for {dice[0]}-{dice[1]}"
        )
    if not isinstance(play, str):
        raise InvalidNotationError(f"a play is a Play or its notation, not {play!r}")
    return _parse_among(plays, position, dice, play)
