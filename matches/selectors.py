"""Reads: what a board, a bot or a referee is shown of a table and its match.

This is the one place that builds the state (``docs/protocol.md``): the REST API, the table
socket's connect and ``sync``, and the state the services push after every change all come
from :func:`public_state` plus :func:`for_viewer`. The public part is the same for everyone
and is computed once per change; the viewer's part (their seat, and the legal plays for the
player who must act) is added per board without a database read.
"""

from __future__ import annotations

import time
from typing import Any, Final

from django.db.models import F, Q, QuerySet
from django.utils import timezone

from matches import jsontext
from matches.models import Event, Match, MatchStatus, Player, Table
from matches.rules import RULES
from matches.state import client_seeds_state, full_state, load_state
from tavla.engine.clock import Clock
from tavla.engine.game import GameRecord, Phase
from tavla.engine.match import MatchState
from tavla.engine.match_id import gnubg_ids
from tavla.engine.position import Position

# The version of the protocol in docs/protocol.md; every state says it (see its change log).
PROTOCOL_VERSION: Final = 1

LOBBY_SIZE: Final = 100


def rules_shown(table: Table) -> dict[str, Any]:
    """The rules a table plays, as the lobby and the board show them (``rules`` of a table)."""
    shown: dict[str, Any] = {rule.shown: getattr(table, rule.name)
                             for rule in RULES if rule.shown is not None}
    control = table.time_control()
    clock = None
    if control is not None:
        clock = {"delay": control.delay, "reserve": control.reserve_for(table.match_length),
                 "reserve_per_point": control.reserve_per_point or None,
                 "flag_penalty": table.flag_penalty}
    shown["clock"] = clock
    return shown


def board_dict(board: Position) -> dict[str, Any]:
    """The board from player 0's side: ``points[i]`` is player 0's point ``i + 1``, positive
    for player 0's checkers and negative for player 1's; bar and borne-off counts per player."""
    points = [board.mover[i] - board.opponent[23 - i] for i in range(24)]
    return {
        "points": points,
        "bar": [board.mover[24], board.opponent[24]],
        "off": list(board.borne_off()),
    }


# -- tables -----------------------------------------------------------------------------------


def _seat_dict(player: Player | None) -> dict[str, Any] | None:
    if player is None:
        return None
    return {"id": player.pk, "name": player.display_name, "rating": round(player.rating, 2)}


def table_dict(table: Table, match: Match | None) -> dict[str, Any]:
    """A table: its name, rules, who sits there and the match being shown (if any).
    Needs ``seat0``/``seat1`` loaded (no query then)."""
    return {
        "id": table.pk,
        "name": table.name,
        "is_public": table.is_public,
        "rules": rules_shown(table),
        "seats": [_seat_dict(table.seat0), _seat_dict(table.seat1)],
        "reserved": bool(table.reserved0_id or table.reserved1_id),
        "reserved_for": [p for p in (table.reserved0_id, table.reserved1_id) if p is not None],
        "match_id": match.pk if match is not None else None,
        "playing": match is not None and match.status == MatchStatus.PLAYING,
    }


def read_table(table_id: int) -> tuple[Table, Match | None]:
    """The table with its seats and its current (or last) match with its players, in one
    query (two before a table's first match). Raises ``Table.DoesNotExist``."""
    match = (Match.objects.filter(table_id=table_id)
             .select_related("player0", "player1", "table", "table__seat0", "table__seat1")
             .order_by("-pk").first())
    if match is not None:
        return match.table, match
    return Table.objects.select_related("seat0", "seat1").get(pk=table_id), None


def open_tables() -> QuerySet[Table]:
    """Public tables for the lobby, with who sits there."""
    return Table.objects.filter(is_public=True).select_related("seat0", "seat1")


def lobby_tables() -> list[dict[str, Any]]:
    """The newest public tables with their rules, seats and match in progress (if any)."""
    tables = list(open_tables().order_by("-created_at")[:LOBBY_SIZE])
    playing = {
        match.table_id: match
        for match in Match.objects.filter(table__in=[t.pk for t in tables],
                                          status=MatchStatus.PLAYING)
        .only("pk", "table_id", "status", "score0", "score1")
    }
    rows = []
    for table in tables:
        match = playing.get(table.pk)
        row = table_dict(table, match)
        row["score"] = [match.score0, match.score1] if match is not None else None
        rows.append(row)
    return rows


def playing_match_id(table_id: int) -> int | None:
    """The id of the match in progress at ``table_id``, if any."""
    return (Match.objects.filter(table_id=table_id, status=MatchStatus.PLAYING)
            .order_by("-pk").values_list("pk", flat=True).first())


# -- the state: the public part once per change, the viewer's part per board -----------------


def game_summary(game: GameRecord) -> dict[str, Any]:
    """An earlier game as the state carries it: no events (see :func:`match_history`)."""
    return {"number": game.number, "score_before": list(game.score_before),
            "crawford": game.crawford,
            "result": None if game.result is None else game.result.to_dict()}


def _player_dict(player: Player, seat: int, state: MatchState, clock: Clock | None,
                 now: float) -> dict[str, Any]:
    return {
        "seat": seat,
        "id": player.pk,
        "name": player.display_name,
        "rating": round(player.rating, 2),
        "pips": state.pip_counts()[seat],
        "score": state.score[seat],
        "reserve": None if clock is None else round(clock.remaining(seat, now), 3),
        "auto_roll": player.auto_roll,  # their preference: docs/protocol.md, "Preferences"
    }


def public_state(match: Match, state: MatchState | None = None) -> dict[str, Any]:
    """Everything every board of ``match`` is shown, whoever looks: no viewer's part.

    ``state`` is the engine state of ``match.snapshot`` when the caller already has it.
    Needs ``player0``, ``player1`` and ``table`` with its seats loaded (no query then).
    Earlier games are summaries; the current (or last) game carries its events.
    """
    state = state or load_state(match)
    clock = Clock.from_dict(match.clock) if match.clock is not None else None
    now = timezone.now().timestamp()
    position_id, gnubg_match_id = gnubg_ids(state)
    winner = state.winner
    winner_player = None if winner is None else (match.player0_id, match.player1_id)[winner]
    return {
        "type": "state",
        "protocol": PROTOCOL_VERSION,
        "match_id": match.pk,
        "table_id": match.table_id,
        "version": match.version,
        "status": MatchStatus(match.status).name.lower(),
        "phase": state.phase.value,
        "game_number": state.game_number,
        "match_length": state.rules.match_length,
        "rules": state.rules.to_dict(),
        "crawford": state.crawford,
        "players": [_player_dict(player, seat, state, clock, now)
                    for seat, player in enumerate((match.player0, match.player1))],
        "score": list(state.score),
        "board": board_dict(state.board),
        "player_on_roll": state.player_on_roll,
        "player_to_act": state.player_to_act,
        # {"player": seat, "level": 1..3} while a resignation waits for the opponent's answer
        "resign_offer": None if state.resign_offer is None else state.resign_offer.to_dict(),
        "dice": list(state.dice) if state.dice else None,
        "cube": {"value": state.cube_value, "owner": state.cube_owner,
                 "may_double": state.may_double()},
        "deadline": match.deadline.isoformat() if match.deadline else None,
        "clock": match.clock,
        "position_id": position_id,
        "gnubg_match_id": gnubg_match_id,
        "winner": winner,
        "winner_player_id": winner_player,
        "games": [*(game_summary(game) for game in state.games[:-1]),
                  state.games[-1].to_dict()],
        "dice_commitment": match.dice_commitment,
        "client_seeds": client_seeds_state(match),  # before the first roll (docs/dice.md)
        "rematch_offers": list(match.rematch_offers),  # seats asking for a rematch (over)
        # the seat asking to take back its last play (casual play), until answered
        "takeback": None if match.takeback_seat is None else {"asked_by": match.takeback_seat},
        "never_double": sorted(match.never_double),  # seats the server rolls for this match
        "table": table_dict(match.table, match),
    }


def acting_plays(state: MatchState) -> list[dict[str, Any]] | None:
    """The legal plays of the player who must play now (phase ``move``), else ``None``.

    The engine computed them when the dice were rolled; only that player's boards get them.
    """
    if state.phase is not Phase.MOVE or state.resign_offer is not None:
        return None
    return [
        {
            "notation": play.notation(),
            "moves": [[m.source, m.destination, m.hit] for m in play.moves],
            "position_id": play.position.to_id(),
        }
        for play in state.legal_plays()
    ]


def _viewer_part(head: dict[str, Any], viewer_id: int | None) -> tuple[dict[str, Any], bool]:
    """What ``viewer_id`` adds to a state whose :func:`push_head` is ``head``: their seat
    (only when there is a match) and whether the legal plays are theirs to see."""
    if head["match_id"] is None:
        return {}, False
    seat = None
    if viewer_id is not None and viewer_id in head["player_ids"]:
        seat = head["player_ids"].index(viewer_id)
    acting = seat is not None and seat == head["player_to_act"] and head["rolled"]
    return {"your_seat": seat}, acting


def push_head(public: dict[str, Any]) -> dict[str, Any]:
    """The few fields of ``public`` a board needs to add its viewer's part and to order
    pushes (match and version)."""
    table = public.get("table") or {}
    return {
        "table_id": public.get("table_id", table.get("id")),
        "match_id": public.get("match_id"),
        "version": public.get("version"),
        "status": public.get("status"),
        "player_ids": [p["id"] for p in public.get("players") or ()],
        "player_to_act": public.get("player_to_act"),
        "rolled": public.get("dice") is not None,
        # who sits: a board's chat rooms follow the seats (matches.chat.socket)
        "seat_ids": [seat and seat["id"] for seat in table.get("seats") or ()],
    }


def for_viewer(public: dict[str, Any], viewer_id: int | None,
               plays: list[dict[str, Any]] | None) -> dict[str, Any]:
    """``public`` as ``viewer_id`` (``None``: anonymous) is sent it, at this moment: their
    seat, the legal plays if they must play now, and the server's clock. No query."""
    data = dict(public)
    part, acting = _viewer_part(push_head(public), viewer_id)
    if part:
        data.update(part)
        data["legal_plays"] = plays if acting else None
    data["viewer_id"] = viewer_id
    data["server_time"] = time.time()
    return data


def pushed_state(kind: str, public: dict[str, Any],
                 plays: list[dict[str, Any]] | None) -> dict[str, Any]:
    """The group message that carries ``public`` (and the acting player's ``plays``) to
    every board of a table: encoded to JSON here, once, so that no board decodes and encodes
    it again (that was a fifth of a web process's CPU under load). A board turns it into its
    own message with :func:`viewer_text`."""
    return {"type": kind, "head": push_head(public), "state_json": jsontext.dumps(public),
            "plays_json": None if plays is None else jsontext.dumps(plays)}


def viewer_text(pushed: dict[str, Any], viewer_id: int | None) -> str:
    """The JSON text :func:`for_viewer` would give for a :func:`pushed_state` message:
    the public part as it came, and this viewer's part appended. No query, no decoding."""
    part, acting = _viewer_part(pushed["head"], viewer_id)
    extra = [f"{jsontext.dumps(key)}: {jsontext.dumps(value)}" for key, value in part.items()]
    if part:
        extra.append('"legal_plays": ' + ((acting and pushed["plays_json"]) or "null"))
    extra.append(f'"viewer_id": {jsontext.dumps(viewer_id)}')
    extra.append(f'"server_time": {jsontext.dumps(time.time())}')
    public: str = pushed["state_json"]
    return public[:-1] + ", " + ", ".join(extra) + "}"


def live_update(match: Match, state: MatchState) -> dict[str, Any]:
    """The group message a service broadcasts after changing ``match``: the public state,
    once, and the legal plays that only the acting player's boards add."""
    return pushed_state("match.state", public_state(match, state), acting_plays(state))


def table_public_state(table_id: int) -> tuple[dict[str, Any], list[dict[str, Any]] | None]:
    """The public state of a table (its current or last match, or the bare table) and the
    acting player's legal plays, read from the database. Raises ``Table.DoesNotExist``."""
    table, match = read_table(table_id)
    if match is None:
        return {"type": "table", "protocol": PROTOCOL_VERSION, "match_id": None,
                "version": None, "table": table_dict(table, None)}, None
    state = load_state(match)
    return public_state(match, state), acting_plays(state)


def table_state(table_id: int, viewer: Player | None) -> dict[str, Any]:
    """Everything a board at ``table_id`` shows to ``viewer`` (``None``: a spectator), read
    from the database: what the socket sends on connect and ``sync``. Raises
    ``Table.DoesNotExist``."""
    public, plays = table_public_state(table_id)
    return for_viewer(public, None if viewer is None else viewer.pk, plays)


def match_state(match: Match, viewer: Player | None = None) -> dict[str, Any]:
    """The state of ``match`` for ``viewer``, as the REST API serves it (the same as the
    socket's). Needs the players and the table with its seats loaded."""
    state = load_state(match)
    return for_viewer(public_state(match, state), None if viewer is None else viewer.pk,
                      acting_plays(state))


def match_history(match: Match) -> dict[str, Any]:
    """Every game of ``match`` with all its events: ``{"type": "history"}``'s answer."""
    state = full_state(match)
    return {"type": "history", "protocol": PROTOCOL_VERSION, "match_id": match.pk,
            "version": match.version, "games": [game.to_dict() for game in state.games]}


# -- queries ------------------------------------------------------------------------------------


def visible_matches(viewer: Player | None) -> QuerySet[Match]:
    """Matches a viewer may read: public tables' matches, and their own; with everything
    :func:`match_state` needs."""
    queryset = Match.objects.select_related("player0", "player1", "table", "table__seat0",
                                            "table__seat1", "winner")
    if viewer is None:
        return queryset.filter(table__is_public=True)
    return queryset.filter(Q(table__is_public=True) | Q(player0=viewer) | Q(player1=viewer))


def match_events(match: Match) -> QuerySet[Event]:
    return match.events.order_by("sequence").select_related("actor")


# -- your turn (docs/correspondence.md) --------------------------------------------------------


def waiting_for(player: Player) -> QuerySet[Match]:
    """Matches being played where it is ``player``'s turn, the nearest deadline first (the
    ones without a clock last), read by the ``to_act``/``deadline`` index."""
    return (Match.objects.filter(to_act=player, status=MatchStatus.PLAYING)
            .select_related("table", "player0", "player1")
            .order_by(F("deadline").asc(nulls_last=True), "pk"))


def your_turn_count(user_id: int) -> int:
    """How many matches wait for the user with id ``user_id`` (the site header's count):
    one indexed count, joined to the player by its unique user column."""
    return Match.objects.filter(to_act__user_id=user_id, status=MatchStatus.PLAYING).count()
