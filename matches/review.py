"""A finished match, step by step, for the review page and the referee's replay.

Both pages draw these frames on the same board component (``static/review.js`` with
``static/board/board.js``); the engine replays the log, nothing here writes.
"""

from __future__ import annotations

from typing import Any

from matches import access
from matches.audit import PHASES, ReplayStep, replay_steps
from matches.models import Match, MatchStatus, Player
from matches.selectors import board_dict


def can_review(match: Match, viewer: Player | None, *, invite: str | None = None,
               staff: bool = False) -> bool:
    """Whether ``viewer`` could have watched ``match``: whoever may watch its table now
    (:func:`matches.access.may_watch`: anyone at a public table, a private table's creator,
    reserved players and invitation holders), its two players, and staff."""
    if staff or (viewer is not None and viewer.pk in (match.player0_id, match.player1_id)):
        return True
    return access.may_watch(match.table, viewer, invite)


def _frame(step: ReplayStep, *, with_log: bool) -> dict[str, Any]:
    state = step.state
    games = state.games
    frame: dict[str, Any] = {
        "board": board_dict(state.board),
        "phase": state.phase.value,
        "dice": list(state.dice) if state.dice else None,
        "player_on_roll": state.player_on_roll,
        "player_to_act": state.player_to_act,
        "cube": {"value": state.cube_value, "owner": state.cube_owner},
        "score": list(state.score),
        "pips": list(state.pip_counts()),
        "game_number": state.game_number,
        "crawford": state.crawford,
        # the move list entry this frame shows the board after: [game index, event index]
        "at": [len(games) - 1, len(games[-1].events) - 1] if games else [-1, -1],
    }
    if with_log:  # the referee's replay also shows the log entry itself
        event = step.event
        frame.update(sequence=event.sequence, kind=event.get_kind_display(),
                     description=step.description,
                     phase_text=str(PHASES.get(state.phase.value, state.phase.value)),
                     time=event.created_at.strftime("%Y-%m-%d %H:%M:%S"),
                     actor=str(event.actor) if event.actor_id else None)
    return frame


def review_data(match: Match, *, with_log: bool = False) -> dict[str, Any]:
    """Everything the review component shows of ``match``: the players, the rules, the whole
    move list (``games`` as in the live state) and one frame per step of the log (every event
    for the referee, ``with_log``; the events that changed the game otherwise).

    Raises :class:`~tavla.engine.errors.EngineError` (a ``ValueError``) when the log does not
    replay.
    """
    steps = list(replay_steps(match))
    frames = [_frame(step, with_log=with_log) for step in steps if with_log or step.changed]
    final = steps[-1].state if steps else None
    return {
        "match_id": match.pk,
        "table_id": match.table_id,
        "status": MatchStatus(match.status).name.lower(),
        "players": [{"seat": seat, "id": player.pk, "name": player.display_name}
                    for seat, player in enumerate(match.players())],
        "rules": final.rules.to_dict() if final else {},
        "match_length": final.rules.match_length if final else None,
        "winner": final.winner if final else None,
        "score": list(final.score) if final else [0, 0],
        "games": [game.to_dict() for game in final.games] if final else [],
        "frames": frames,
    }
