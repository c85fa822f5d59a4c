"""The values one game is made of: phases, results, scoring and the game record.

The state machine that moves between phases is :class:`tavla.engine.match.MatchState`;
this module holds what it is built from, so each piece can be tested and serialized alone.
Seats are ``0`` and ``1`` (:data:`Seat`).
"""

from __future__ import annotations

import enum
import functools
from dataclasses import dataclass
from typing import Any, Final

from tavla.engine.errors import EngineError
from tavla.engine.position import BAR, Position

# A seat at the table: 0 or 1 (the Django model `matches.Player` is the person in it).
Seat = int
SEATS: Final = (0, 1)

JSON = dict[str, Any]


def other(seat: Seat) -> Seat:
    """The opponent's seat."""
    return 1 - seat


def check_seat(seat: object, what: str = "player") -> Seat:
    """Return ``seat`` if it is 0 or 1; raise :class:`EngineError` otherwise."""
    if isinstance(seat, bool) or seat not in SEATS:
        raise EngineError(f"a {what} is 0 or 1, not {seat!r}")
    assert isinstance(seat, int)
    return seat


class Phase(enum.Enum):
    """Where a match stands; the value is the JSON form.

    * ``OPENING_ROLL`` -- a game is about to start: the server rolls one die per player.
    * ``TURN_START`` -- the player on roll may double (if :meth:`MatchState.may_double`) or roll.
    * ``CUBE_OFFERED`` -- the opponent of the player on roll must take or drop.
    * ``MOVE`` -- the dice are rolled; the player on roll must choose a legal play.
    * ``GAME_OVER`` -- the game is scored; a ``NewGame`` action starts the next one.
    * ``MATCH_OVER`` -- nothing more can happen.
    """

    OPENING_ROLL = "opening_roll"
    TURN_START = "turn_start"
    CUBE_OFFERED = "cube_offered"
    MOVE = "move"
    GAME_OVER = "game_over"
    MATCH_OVER = "match_over"

    @property
    def in_game(self) -> bool:
        """True while a game is being played (opening roll to last move)."""
        return self in _IN_GAME

    @property
    def is_over(self) -> bool:
        """True once the current game is finished (``GAME_OVER`` or ``MATCH_OVER``)."""
        return not self.in_game


_IN_GAME: Final = frozenset({Phase.OPENING_ROLL, Phase.TURN_START, Phase.CUBE_OFFERED, Phase.MOVE})


class WinKind(enum.Enum):
    """How much a win is worth before the cube: 1, 2 or 3 (``multiplier``)."""

    SINGLE = "single"
    GAMMON = "gammon"
    BACKGAMMON = "backgammon"

    @property
    def multiplier(self) -> int:
        return {WinKind.SINGLE: 1, WinKind.GAMMON: 2, WinKind.BACKGAMMON: 3}[self]


class EndReason(enum.Enum):
    """Why a game (or a match) ended."""

    BEAR_OFF = "bear_off"
    DROP = "drop"
    RESIGN = "resign"
    TIMEOUT = "timeout"
    FORFEIT = "forfeit"
    ADJUDICATION = "adjudication"
    SCORE = "score"  # a match: someone reached the match length
    SESSION_ENDED = "session_ended"  # a money session closed by EndSession


def win_kind(position: Position) -> WinKind:
    """What the mover's win is worth in ``position`` (seen from the winner, who has borne off).

    Gammon: the loser has borne off no checker. Backgammon: a gammon where the loser still
    has a checker on the bar or in the winner's home board (the loser's points 19..24).
    """
    loser = position.opponent
    if sum(loser) < 15:
        return WinKind.SINGLE
    if loser[BAR] or any(loser[18:24]):
        return WinKind.BACKGAMMON
    return WinKind.GAMMON


@dataclass(frozen=True, slots=True)
class GameResult:
    """A finished game: who won, how many points, and why.

    ``points`` is what the winner scores (cube and gammons applied); ``cube_value`` is the
    cube at the end of the game (for a drop: the value before the refused double).
    """

    winner: Seat
    points: int
    kind: WinKind
    reason: EndReason
    cube_value: int

    def to_dict(self) -> JSON:
        return {
            "winner": self.winner,
            "points": self.points,
            "kind": self.kind.value,
            "reason": self.reason.value,
            "cube_value": self.cube_value,
        }

    @classmethod
    def from_dict(cls, data: JSON) -> GameResult:
        return cls(
            winner=check_seat(data["winner"], "winner"),
            points=int(data["points"]),
            kind=WinKind(data["kind"]),
            reason=EndReason(data["reason"]),
            cube_value=int(data["cube_value"]),
        )


class EventKind(enum.Enum):
    """What a :class:`GameEvent` records; the value is the JSON ``type``."""

    OPENING_ROLL = "opening_roll"  # dice = (player 0's die, player 1's die); ties too
    ROLL = "roll"  # player rolled dice
    PLAY = "play"  # player played `play` (notation) with dice
    AUTO_PASS = "auto_pass"  # player rolled dice and had no legal play: the turn passed
    DOUBLE = "double"  # player doubled to `value`
    TAKE = "take"  # player took; the cube is now `value`, owned by player
    DROP = "drop"  # player dropped
    RESIGN = "resign"  # player resigned (`value`: the level accepted, 1..3, when offered)
    RESIGN_OFFER = "resign_offer"  # player offered to resign at level `value` (1..3)
    RESIGN_REJECT = "resign_reject"  # player refused the opponent's resignation offer
    TIMEOUT = "timeout"  # player's flag fell
    FORFEIT = "forfeit"  # player forfeited the match
    ADJUDICATE = "adjudicate"  # a referee decided for `player` (the winner); `note` why


@dataclass(frozen=True, slots=True)
class GameEvent:
    """One entry of a game record. Fields a kind does not use are ``None``."""

    kind: EventKind
    player: Seat | None = None
    dice: tuple[int, int] | None = None
    play: str | None = None
    value: int | None = None
    note: str | None = None

    def to_dict(self) -> JSON:
        data: JSON = {"type": self.kind.value}
        if self.player is not None:
            data["player"] = self.player
        if self.dice is not None:
            data["dice"] = list(self.dice)
        if self.play is not None:
            data["play"] = self.play
        if self.value is not None:
            data["value"] = self.value
        if self.note is not None:
            data["note"] = self.note
        return data

    @classmethod
    def from_dict(cls, data: JSON) -> GameEvent:
        dice = data.get("dice")
        return _event_of(data["type"], data.get("player"),
                         None if dice is None else (int(dice[0]), int(dice[1])),
                         data.get("play"), data.get("value"), data.get("note"))


# A stored state is read back on every action, and with it every event of the current game
# so far: each is built once and shared (the events are immutable), not built anew each time.
@functools.lru_cache(maxsize=1 << 15)
def _event_of(kind: str, player: Any, dice: tuple[int, int] | None, play: Any, value: Any,
              note: Any) -> GameEvent:
    return GameEvent(EventKind(kind), player, dice, play, value, note)


@dataclass(frozen=True, slots=True)
class GameRecord:
    """The record of one game: its number (from 1), the score and Crawford status it started
    with, every event in order, and the result once it is over."""

    number: int
    score_before: tuple[int, int]
    crawford: bool
    events: tuple[GameEvent, ...] = ()
    result: GameResult | None = None

    def with_event(self, event: GameEvent) -> GameRecord:
        return GameRecord(
            self.number, self.score_before, self.crawford, (*self.events, event), self.result
        )

    def finished(self, result: GameResult, event: GameEvent | None = None) -> GameRecord:
        events = self.events if event is None else (*self.events, event)
        return GameRecord(self.number, self.score_before, self.crawford, events, result)

    def summary(self) -> GameRecord:
        """The record without its events."""
        return GameRecord(self.number, self.score_before, self.crawford, (), self.result)

    def to_dict(self) -> JSON:
        return {
            "number": self.number,
            "score_before": list(self.score_before),
            "crawford": self.crawford,
            "events": [event.to_dict() for event in self.events],
            "result": None if self.result is None else self.result.to_dict(),
        }

    @classmethod
    def from_dict(cls, data: JSON) -> GameRecord:
        score = data["score_before"]
        result = data.get("result")
        return cls(
            number=int(data["number"]),
            score_before=(int(score[0]), int(score[1])),
            crawford=bool(data["crawford"]),
            events=tuple(GameEvent.from_dict(event) for event in data["events"]),
            result=None if result is None else GameResult.from_dict(result),
        )
