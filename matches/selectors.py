"""Reads: what a board, a bot or a referee is shown of a match.

One function builds the state that the REST API and the WebSocket both send, so the two
can never disagree. Only the player who must act is sent the legal plays.
"""

from __future__ import annotations

from typing import Any

from django.db.models import Q, QuerySet
from django.utils import timezone

from matches.models import Event, Match, MatchStatus, Player, Table
from matches.state import load_state
from tavla.engine.clock import Clock
from tavla.engine.match import MatchState
from tavla.engine.match_id import gnubg_ids
from tavla.engine.position import Position


def board_dict(board: Position) -> dict[str, Any]:
    """The board from player 0's side: ``points[i]`` is player 0's point ``i + 1``, positive
    for player 0's checkers and negative for player 1's; bar and borne-off counts per player."""
    points = [board.mover[i] - board.opponent[23 - i] for i in range(24)]
    return {
        "points": points,
        "bar": [board.mover[24], board.opponent[24]],
        "off": list(board.borne_off()),
    }


def _player_dict(match: Match, seat: int, state: MatchState, now: float) -> dict[str, Any]:
    player: Player = match.player0 if seat == 0 else match.player1
    data: dict[str, Any] = {
        "seat": seat,
        "id": player.pk,
        "name": player.display_name,
        "rating": round(player.rating, 2),
        "pips": state.pip_counts()[seat],
        "score": state.score[seat],
        "reserve": None,
    }
    if match.clock is not None:
        data["reserve"] = round(Clock.from_dict(match.clock).remaining(seat, now), 3)
    return data


def match_state(match: Match, viewer: Player | None = None) -> dict[str, Any]:
    """The full public state of ``match``; legal plays only for the viewer who must act."""
    state = load_state(match)
    now = timezone.now().timestamp()
    acting = state.player_to_act
    viewer_seat = match.seat_of(viewer) if viewer is not None else None
    position_id, match_id = gnubg_ids(state)
    data: dict[str, Any] = {
        "type": "state",
        "match_id": match.pk,
        "table_id": match.table_id,
        "version": match.version,
        "status": MatchStatus(match.status).name.lower(),
        "phase": state.phase.value,
        "game_number": state.game_number,
        "match_length": state.rules.match_length,
        "rules": state.rules.to_dict(),
        "crawford": state.crawford,
        "players": [_player_dict(match, seat, state, now) for seat in (0, 1)],
        "score": list(state.score),
        "board": board_dict(state.board),
        "player_on_roll": state.player_on_roll,
        "player_to_act": acting,
        "dice": list(state.dice) if state.dice else None,
        "cube": {"value": state.cube_value, "owner": state.cube_owner,
                 "may_double": state.may_double()},
        "deadline": match.deadline.isoformat() if match.deadline else None,
        "clock": match.clock,
        "position_id": position_id,
        "gnubg_match_id": match_id,
        "your_seat": viewer_seat,
        "winner": None if state.winner is None else state.winner,
        "games": [g.to_dict() for g in state.games],
        "dice_commitment": match.dice_commitment,
        "rematch_offers": list(match.rematch_offers),  # seats asking for a rematch (over)
        "legal_plays": None,
    }
    if viewer_seat is not None and viewer_seat == acting and state.dice is not None:
        data["legal_plays"] = [
            {
                "notation": play.notation(),
                "moves": [[m.source, m.destination, m.hit] for m in play.moves],
                "position_id": play.position.to_id(),
            }
            for play in state.legal_plays()
        ]
    return data


def visible_matches(viewer: Player | None) -> QuerySet[Match]:
    """Matches a viewer may read: public tables' matches, and their own."""
    queryset = Match.objects.select_related("player0", "player1", "table", "winner")
    if viewer is None:
        return queryset.filter(table__is_public=True)
    return queryset.filter(Q(table__is_public=True) | Q(player0=viewer) | Q(player1=viewer))


def open_tables() -> QuerySet[Table]:
    """Public tables for the lobby, with who sits there."""
    return Table.objects.filter(is_public=True).select_related("seat0", "seat1")


def match_events(match: Match) -> QuerySet[Event]:
    return match.events.order_by("sequence").select_related("actor")
