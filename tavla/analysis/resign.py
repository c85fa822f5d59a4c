"""Resignations as GNU Backgammon 1.07's analysis judges them, and where they are in a game.

gnubg (``AnalyzeMove``, ``MOVE_RESIGN``) evaluates the position for the resigner, as if on
roll, at the analysis's cube depth and compares two numbers in normalised equity (see
:func:`tavla.analysis.evaluator.resignation_equities`): the position's *cubeless* utility
(winning, gammon and backgammon chances priced at the score; the cube's value is left out)
and what the resignation gives away (-1 for a single game, less the opponent's gammon and
backgammon prices for a gammon or a backgammon). A resignation worth less to the resigner
than playing on is a wrong resignation, by the difference; accepting one worth more to the
resigner than the position is a wrong accept, by the difference. Refusing is not judged by
gnubg (it records no refused offer); Tavla judges it by the same two numbers: refusing an
offer worth more to the refuser than the position loses the difference.

A ``.mat`` cannot say who resigned or when: a match's own events can
(:func:`from_events`). A bare ``.mat`` is read as gnubg's ``import mat`` reads it
(:func:`inferred`): a game won without a bear-off or a drop ends with the loser's resignation
of ``points / cube`` (rounded up, at most a backgammon), accepted.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Final

from tavla.analysis.matread import GameRecord
from tavla.engine.game import EventKind, GameEvent

#: The resignation levels' words, as a decision stores them (``resign single`` ...).
LEVEL_WORDS: Final = {1: "single", 2: "gammon", 3: "backgammon"}
#: Every word a resignation decision stores in ``chosen`` and ``best`` (a page translates
#: them: ``matches/analysis_words.py``).
DECISION_WORDS: Final = (*(f"resign {word}" for word in LEVEL_WORDS.values()),
                         "play on", "accept", "reject")
#: The events that are actions of the ``.mat`` record (:mod:`tavla.engine.matfile`).
_MAT_ACTIONS: Final = frozenset({EventKind.PLAY, EventKind.AUTO_PASS, EventKind.DOUBLE,
                                  EventKind.TAKE, EventKind.DROP})
#: How an offer was answered: accepted, refused, or nobody answered (a table where a
#: resignation ends the game at once, or a flag or a referee ended it first).
ANSWERS: Final = ("accept", "reject", "")


@dataclass(frozen=True, slots=True)
class Resignation:
    """One resignation offer of a game: made by ``player`` before the game's action
    ``before`` (its index among the ``.mat`` record's actions of the game; the number of
    actions taken before it), of ``level`` (1..3) times the cube, answered ``answer``."""

    before: int
    player: int
    level: int
    answer: str

    def __post_init__(self) -> None:
        if self.level not in LEVEL_WORDS:
            raise ValueError(f"a resignation is of level 1, 2 or 3, not {self.level!r}")
        if self.answer not in ANSWERS:
            raise ValueError(f"a resignation is answered 'accept', 'reject' or '', "
                             f"not {self.answer!r}")
        if self.player not in (0, 1) or self.before < 0:
            raise ValueError(f"no such resignation: player {self.player}, "
                             f"before action {self.before}")


def from_events(events: Iterable[GameEvent]) -> list[Resignation]:
    """The resignations of one game of a match, from its events: each offer with its
    answer; on a table where a resignation ends the game at once, the resignation (a single
    game, answered by nobody)."""
    out: list[Resignation] = []
    actions = 0
    pending: tuple[int, int, int] | None = None  # (before, player, level) of an open offer
    for event in events:
        kind = event.kind
        if kind in _MAT_ACTIONS:
            actions += 1
        elif kind is EventKind.RESIGN_OFFER:
            assert event.player is not None
            pending = (actions, event.player, event.value or 1)
        elif kind in (EventKind.RESIGN, EventKind.RESIGN_REJECT) and pending is not None:
            before, player, level = pending
            out.append(Resignation(before, player, level,
                                   "accept" if kind is EventKind.RESIGN else "reject"))
            pending = None
        elif kind is EventKind.RESIGN:
            assert event.player is not None
            out.append(Resignation(actions, event.player, event.value or 1, ""))
    if pending is not None:
        # Offered, then a flag, a forfeit or a referee ended the game: nobody answered.
        out.append(Resignation(*pending, ""))
    return out


def inferred(game: GameRecord) -> list[Resignation]:
    """The resignation gnubg's ``import mat`` reads in ``game``: a game won without a
    bear-off or a drop was resigned by the loser, ``points / cube`` rounded up (a single
    game to a backgammon), and accepted."""
    turns = game.turns
    if not turns or turns[-1].kind != "wins":
        return []
    cube = 1
    for turn in turns:
        if turn.kind == "take":
            cube *= 2
    last = turns[-2] if len(turns) > 1 else None
    if last is not None and last.kind == "drop":
        return []
    if (last is not None and last.kind == "play" and last.after is not None
            and not any(last.after.mover)):
        return []  # borne off
    wins = turns[-1]
    level = min(3, max(1, -(-wins.points // cube)))
    return [Resignation(len(turns) - 1, 1 - wins.player, level, "accept")]
