"""A :class:`~tavla.engine.match.MatchState` as plain JSON (the service's stored snapshot)
and back, with the consistency check that guards against a damaged one.

This module knows the state only by its fields (:class:`StateFields`), so it needs no import
of :mod:`tavla.engine.match`, which uses it: the engine has no import circle."""

from __future__ import annotations

from typing import Any, Final, Protocol

from tavla.engine.errors import EngineError
from tavla.engine.game import JSON, EndReason, GameRecord, Phase, Seat, check_seat
from tavla.engine.moves import check_dice
from tavla.engine.position import Position
from tavla.engine.rules import LEVEL_KINDS, ResignOffer, Rules

SNAPSHOT_VERSION: Final = 1


class StateFields(Protocol):
    """What a snapshot holds of a match state (the fields of ``MatchState``)."""

    @property
    def rules(self) -> Rules: ...
    @property
    def phase(self) -> Phase: ...
    @property
    def score(self) -> tuple[int, int]: ...
    @property
    def game_number(self) -> int: ...
    @property
    def crawford(self) -> bool: ...
    @property
    def post_crawford(self) -> bool: ...
    @property
    def board(self) -> Position: ...
    @property
    def player_on_roll(self) -> Seat | None: ...
    @property
    def dice(self) -> tuple[int, int] | None: ...
    @property
    def cube_value(self) -> int: ...
    @property
    def cube_owner(self) -> Seat | None: ...
    @property
    def games(self) -> tuple[GameRecord, ...]: ...
    @property
    def winner(self) -> Seat | None: ...
    @property
    def end_reason(self) -> EndReason | None: ...
    @property
    def resign_offer(self) -> ResignOffer | None: ...


def state_to_dict(state: StateFields) -> JSON:
    """The whole state as plain JSON types; :func:`state_from_dict` reads it back exactly."""
    return {
        "version": SNAPSHOT_VERSION,
        "rules": state.rules.to_dict(),
        "phase": state.phase.value,
        "score": list(state.score),
        "game_number": state.game_number,
        "crawford": state.crawford,
        "post_crawford": state.post_crawford,
        "board": [list(state.board.mover), list(state.board.opponent)],
        "player_on_roll": state.player_on_roll,
        "dice": None if state.dice is None else list(state.dice),
        "cube_value": state.cube_value,
        "cube_owner": state.cube_owner,
        "games": [game.to_dict() for game in state.games],
        "winner": state.winner,
        "end_reason": None if state.end_reason is None else state.end_reason.value,
        "resign_offer": None if state.resign_offer is None else state.resign_offer.to_dict(),
    }


def fields_from_dict(data: JSON) -> dict[str, Any]:
    """The fields of a :func:`state_to_dict` snapshot, as keyword arguments for the state's
    constructor; raises :class:`EngineError` if it is malformed (then check the state built
    from them with :func:`check_consistency`)."""
    try:
        if data.get("version") != SNAPSHOT_VERSION:
            raise EngineError(f"unknown snapshot version {data.get('version')!r}")
        board = data["board"]
        dice = data["dice"]
        score = data["score"]
        offer = data.get("resign_offer")
        return dict(
            rules=Rules.from_dict(data["rules"]),
            phase=Phase(data["phase"]),
            score=(int(score[0]), int(score[1])),
            game_number=int(data["game_number"]),
            crawford=bool(data["crawford"]),
            post_crawford=bool(data["post_crawford"]),
            board=Position(tuple(board[0]), tuple(board[1])),
            player_on_roll=_optional_player(data["player_on_roll"]),
            dice=None if dice is None else (int(dice[0]), int(dice[1])),
            cube_value=int(data["cube_value"]),
            cube_owner=_optional_player(data["cube_owner"]),
            games=tuple(GameRecord.from_dict(game) for game in data["games"]),
            winner=_optional_player(data.get("winner")),
            end_reason=None if data.get("end_reason") is None
            else EndReason(data["end_reason"]),
            resign_offer=None if offer is None
            else ResignOffer(check_seat(offer["player"]), int(offer["level"])),
        )
    except EngineError:
        raise
    except (KeyError, TypeError, ValueError, IndexError) as error:
        raise EngineError(f"malformed match snapshot: {error}") from error


def check_consistency(state: StateFields) -> None:
    """Raise :class:`EngineError` for a state no sequence of actions can reach in these
    fields (a guard against a damaged snapshot, not a full proof)."""
    problems = []
    cube = state.cube_value
    if cube < 1 or cube & (cube - 1) or cube > state.rules.max_cube:
        problems.append(f"cube value {cube}")
    if state.dice is not None:
        check_dice(*state.dice)
    if state.phase.in_game and (state.dice is None) == (state.phase is Phase.MOVE):
        problems.append(f"dice {state.dice} in phase {state.phase.value}")
    if state.phase.in_game and (state.player_on_roll is None) != (
        state.phase is Phase.OPENING_ROLL
    ):
        problems.append(f"player on roll {state.player_on_roll} in phase {state.phase.value}")
    if not state.games or state.games[-1].number != state.game_number:
        problems.append(f"game {state.game_number} is not the last game recorded")
    elif (state.games[-1].result is None) == state.phase.is_over:
        problems.append(f"the last game's result does not fit phase {state.phase.value}")
    if min(state.score) < 0:
        problems.append(f"score {state.score}")
    offer = state.resign_offer
    if offer is not None and (
        offer.level not in LEVEL_KINDS
        or not state.phase.in_game
        or state.rules.resignation != "offer"
        or (offer.level > 1 and not state.rules.gammons)
    ):
        problems.append(f"resignation offer {offer.to_dict()} in phase {state.phase.value}")
    if problems:
        raise EngineError("inconsistent match snapshot: " + "; ".join(problems))



def _optional_player(value: Any) -> Seat | None:
    return None if value is None else check_seat(value)
