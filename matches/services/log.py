"""The match's event log as the services write it (one event per action, numbered from the
match's own counter, written with the match in one transaction) and who it names as the
actor."""

from __future__ import annotations

from typing import Any, Final

from django.utils import timezone

from matches.errors import ServiceError
from matches.models import (
    Event,
    Game,
    GameEnding,
    LogKind,
    Match,
    Player,
)
from matches.services import statements
from tavla.engine.actions import (
    Action,
    PlayMove,
)
from tavla.engine.game import EndReason, EventKind
from tavla.engine.match import MatchState


def _log_action(match: Match, before: MatchState, after: MatchState, action: Action,
                actor_id: int | None, logged: dict[str, Any] | None = None) -> list[Event]:
    payload: dict[str, Any] = {"action": action.to_dict(), **(logged or {})}
    if isinstance(action, PlayMove):
        # Store the canonical notation the engine matched, whatever the client typed.
        game = after.games[len(before.games) - 1]
        played = [e for e in game.events if e.kind is EventKind.PLAY]
        if played and played[-1].play is not None:
            payload["action"]["play"] = played[-1].play
    kind = LogKind(payload["action"]["type"])
    events = [_event(match, kind, payload, before.game_number, actor_id)]
    events += _game_end_events(match, before, after)
    return events


def _actor_id(actor: Any) -> int | None:
    """The user id to log for ``actor`` (a user, or ``None``; anonymous users log none)."""
    if actor is None or not getattr(actor, "is_authenticated", False):
        return None
    return int(actor.pk)


def _event(match: Match, kind: str, payload: dict[str, Any], game_number: int,
           actor_id: int | None = None) -> Event:
    """The next event of ``match``'s log, numbered from the match's own counter (no query);
    written by :func:`_save` with the match, in the same transaction."""
    event = Event(match=match, sequence=match.next_sequence, game_number=game_number,
                  kind=kind, actor_id=actor_id, payload=payload)
    match.next_sequence += 1
    return event


def _save(match: Match, events: list[Event]) -> None:
    """Write the new events (one insert) and the match (one update). Caller holds the lock."""
    statements.write_action(match, events)


_ENDING: Final = {
    EndReason.DROP: GameEnding.DROP,
    EndReason.RESIGN: GameEnding.RESIGN,
    EndReason.TIMEOUT: GameEnding.TIMEOUT,
    EndReason.FORFEIT: GameEnding.FORFEIT,
    EndReason.ADJUDICATION: GameEnding.ADJUDICATED,
}


def _game_end_events(match: Match, before: MatchState, after: MatchState) -> list[Event]:
    """Record the game that ``before → after`` finished, if any (its Game row and event)."""
    index = len(before.games) - 1
    if index >= len(after.games):
        return []
    was, now = before.games[index], after.games[index]
    if was.result is not None or now.result is None:
        return []
    result = now.result
    if result.reason is EndReason.BEAR_OFF:
        ending = GameEnding(result.kind.value)
    else:
        ending = _ENDING.get(result.reason, GameEnding.ADJUDICATED)
    winner = match.player0 if result.winner == 0 else match.player1
    # A game ends once: a plain insert (one query) where update_or_create would read first.
    Game.objects.create(
        match=match, number=now.number, winner=winner, points=result.points,
        cube_value=result.cube_value, ending=ending, finished_at=timezone.now(),
        record=now.to_dict(),
    )
    return [_event(match, LogKind.GAME_END, result.to_dict(), now.number)]

def _require_player(player: Player | None, detail: str) -> Player:
    if player is None:
        raise ServiceError("not_authenticated", detail)
    return player
