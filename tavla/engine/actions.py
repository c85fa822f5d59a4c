"""Actions: the only way a :class:`~tavla.engine.match.MatchState` changes.

Each action is a small frozen dataclass with ``to_dict()``; :func:`action_from_dict` reads one
back, so an event log can store actions as JSON and replay them. The JSON forms::

    {"type": "opening_roll", "dice": [3, 5]}          # (player 0's die, player 1's die)
    {"type": "roll", "dice": [6, 4], "player": null}
    {"type": "double", "player": null}
    {"type": "take", "player": null}
    {"type": "drop", "player": null}
    {"type": "play", "play": "24/18 13/9", "player": null}
    {"type": "resign", "player": 0, "level": 2}       # level: 1 single, 2 gammon, 3 backgammon
    {"type": "accept_resign", "player": null}
    {"type": "reject_resign", "player": null}
    {"type": "timeout", "player": 1}
    {"type": "forfeit", "player": 1}
    {"type": "adjudicate", "winner": 0, "scope": "game", "points": null, "reason": "..."}
    {"type": "new_game"}
    {"type": "end_session"}

``player`` on roll/double/take/drop/play is optional: when given, the action is refused unless
that player is the one to act (a guard against stale clients; the service checks it too).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any

from tavla.engine.errors import EngineError
from tavla.engine.game import JSON, Seat, check_seat
from tavla.engine.plays import Play


class AdjudicationScope(enum.Enum):
    """What a referee's decision ends: the current game, or the whole match."""

    GAME = "game"
    MATCH = "match"


def _dice(value: Any) -> tuple[int, int]:
    if not isinstance(value, (list, tuple)) or len(value) != 2:
        raise EngineError(f"dice are a pair, not {value!r}")
    return int(value[0]), int(value[1])


def _optional_player(data: JSON) -> Seat | None:
    player = data.get("player")
    return None if player is None else check_seat(player)


@dataclass(frozen=True, slots=True)
class OpeningRoll:
    """The server's opening roll: one die per player. A tie is recorded and rolled again."""

    die0: int
    die1: int

    def to_dict(self) -> JSON:
        return {"type": "opening_roll", "dice": [self.die0, self.die1]}


@dataclass(frozen=True, slots=True)
class Roll:
    """The server's roll for the player on roll (declining to double)."""

    die1: int
    die2: int
    player: Seat | None = None

    def to_dict(self) -> JSON:
        return {"type": "roll", "dice": [self.die1, self.die2], "player": self.player}


@dataclass(frozen=True, slots=True)
class Double:
    """The player on roll offers the cube, before rolling."""

    player: Seat | None = None

    def to_dict(self) -> JSON:
        return {"type": "double", "player": self.player}


@dataclass(frozen=True, slots=True)
class Take:
    """The doubled player accepts: the cube doubles and is theirs."""

    player: Seat | None = None

    def to_dict(self) -> JSON:
        return {"type": "take", "player": self.player}


@dataclass(frozen=True, slots=True)
class Drop:
    """The doubled player refuses: the doubler wins the cube value before the double."""

    player: Seat | None = None

    def to_dict(self) -> JSON:
        return {"type": "drop", "player": self.player}


@dataclass(frozen=True, slots=True)
class PlayMove:
    """The player on roll's play: a :class:`Play` from ``legal_plays()`` or its notation."""

    play: Play | str
    player: Seat | None = None

    @property
    def notation(self) -> str:
        return self.play if isinstance(self.play, str) else self.play.notation()

    def to_dict(self) -> JSON:
        return {"type": "play", "play": self.notation, "player": self.player}


@dataclass(frozen=True, slots=True)
class Resign:
    """``player`` resigns the game.

    Under ``Rules.resignation == "single"`` the game ends at once: the opponent wins a single
    game times the cube (``level`` must be ``None`` or 1). Under ``"offer"`` it is an offer to
    lose ``level`` (1 single, 2 gammon, 3 backgammon; ``None`` means 1) times the cube, which
    the opponent accepts or refuses.
    """

    player: Seat
    level: int | None = None

    def to_dict(self) -> JSON:
        data: JSON = {"type": "resign", "player": self.player}
        if self.level is not None:
            data["level"] = self.level
        return data


@dataclass(frozen=True, slots=True)
class AcceptResign:
    """The opponent of the resigning player accepts the offer: the game ends at its level."""

    player: Seat | None = None

    def to_dict(self) -> JSON:
        return {"type": "accept_resign", "player": self.player}


@dataclass(frozen=True, slots=True)
class RejectResign:
    """The opponent refuses the offer: the game goes on exactly where it was."""

    player: Seat | None = None

    def to_dict(self) -> JSON:
        return {"type": "reject_resign", "player": self.player}


@dataclass(frozen=True, slots=True)
class Timeout:
    """``player``'s flag fell: the game is lost (single times the cube), or the match when the
    rules say ``flag_loses_match``."""

    player: Seat

    def to_dict(self) -> JSON:
        return {"type": "timeout", "player": self.player}


@dataclass(frozen=True, slots=True)
class Forfeit:
    """``player`` forfeits the match (for example: disconnected past the grace period)."""

    player: Seat

    def to_dict(self) -> JSON:
        return {"type": "forfeit", "player": self.player}


@dataclass(frozen=True, slots=True)
class Adjudicate:
    """A referee's decision: ``winner`` wins the game or the match.

    ``points`` defaults to the cube value for a game; for a match, to what the winner still
    needs (the cube value in a money session). ``reason`` is kept in the record.
    """

    winner: Seat
    scope: AdjudicationScope = AdjudicationScope.GAME
    points: int | None = None
    reason: str = ""

    def to_dict(self) -> JSON:
        return {
            "type": "adjudicate",
            "winner": self.winner,
            "scope": self.scope.value,
            "points": self.points,
            "reason": self.reason,
        }


@dataclass(frozen=True, slots=True)
class NewGame:
    """Start the next game after ``GAME_OVER``."""

    def to_dict(self) -> JSON:
        return {"type": "new_game"}


@dataclass(frozen=True, slots=True)
class EndSession:
    """Close a money session between games (a match ends by score instead)."""

    def to_dict(self) -> JSON:
        return {"type": "end_session"}


Action = (
    OpeningRoll
    | Roll
    | Double
    | Take
    | Drop
    | PlayMove
    | Resign
    | AcceptResign
    | RejectResign
    | Timeout
    | Forfeit
    | Adjudicate
    | NewGame
    | EndSession
)


def action_from_dict(data: JSON) -> Action:
    """Read an action back from its ``to_dict()`` form; raises :class:`EngineError` if unknown."""
    try:
        kind = data["type"]
        if kind == "opening_roll":
            die0, die1 = _dice(data["dice"])
            return OpeningRoll(die0, die1)
        if kind == "roll":
            die1, die2 = _dice(data["dice"])
            return Roll(die1, die2, _optional_player(data))
        if kind == "double":
            return Double(_optional_player(data))
        if kind == "take":
            return Take(_optional_player(data))
        if kind == "drop":
            return Drop(_optional_player(data))
        if kind == "play":
            play = data["play"]
            if not isinstance(play, str):
                raise EngineError(f"a play is stored as notation, not {play!r}")
            return PlayMove(play, _optional_player(data))
        if kind == "resign":
            level = data.get("level")
            if level is not None and (isinstance(level, bool) or not isinstance(level, int)):
                raise EngineError(f"a resignation level is 1, 2 or 3, not {level!r}")
            return Resign(check_seat(data["player"]), level)
        if kind == "accept_resign":
            return AcceptResign(_optional_player(data))
        if kind == "reject_resign":
            return RejectResign(_optional_player(data))
        if kind == "timeout":
            return Timeout(check_seat(data["player"]))
        if kind == "forfeit":
            return Forfeit(check_seat(data["player"]))
        if kind == "adjudicate":
            points = data.get("points")
            return Adjudicate(
                winner=check_seat(data["winner"], "winner"),
                scope=AdjudicationScope(data.get("scope", "game")),
                points=None if points is None else int(points),
                reason=str(data.get("reason", "")),
            )
        if kind == "new_game":
            return NewGame()
        if kind == "end_session":
            return EndSession()
    except (KeyError, TypeError, ValueError) as error:
        if isinstance(error, EngineError):
            raise
        raise EngineError(f"malformed action {data!r}: {error}") from error
    raise EngineError(f"unknown action type {data.get('type')!r}")
