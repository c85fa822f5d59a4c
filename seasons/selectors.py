"""Reads of club seasons' records, as the pages, the API and the sockets show them."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.db.models import Count, Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from matches.models import Player
from seasons.formats.arena import leaderboard
from seasons.models import Arena
from seasons.services.arena import finished_results


def arena_leaderboard(arena: Arena) -> list[dict[str, Any]]:
    """The arena's players best first: rank, name, points, wins, matches, streak, the points
    match by match, and whether they are paused or playing now."""
    entries = list(arena.entries.order_by("joined_at", "pk").values_list("player_id", "paused"))
    names = dict(Player.objects.filter(pk__in=[p for p, _ in entries])
                 .values_list("pk", "display_name"))
    paused = dict(entries)
    playing: set[int] = set()
    for a, b in arena.games.filter(finished_at__isnull=True).values_list("player_a", "player_b"):
        playing.update((a, b))
    board = leaderboard([player for player, _ in entries], finished_results(arena))
    return [{"rank": rank, "player_id": score.player, "name": names[score.player],
             "points": score.points, "wins": score.wins, "played": score.played,
             "streak": score.streak, "on_fire": score.on_fire, "sheet": list(score.sheet),
             "paused": paused[score.player], "playing": score.player in playing}
            for rank, score in enumerate(board, start=1)]


def arena_state(arena: Arena, now: datetime) -> str:
    """``upcoming``, ``running``, ``finishing`` (time up, matches still in play) or
    ``finished``."""
    if arena.closed_at is not None:
        return "finished"
    if now < arena.starts_at:
        return "upcoming"
    return "running" if now < arena.ends_at else "finishing"


STATE_WORDS = {"upcoming": _("starts soon"), "running": _("running"),
               "finishing": _("time is up: the last matches are finishing"),
               "finished": _("finished")}


def arena_rows(now: datetime) -> list[dict[str, Any]]:
    """Every arena, newest first, with its state and how many play."""
    arenas = Arena.objects.annotate(players=Count("entries")).order_by("-starts_at")[:200]
    return [{"arena": arena, "players": arena.players,  # type: ignore[attr-defined]
             "state": STATE_WORDS[arena_state(arena, now)]} for arena in arenas]


def current_table_id(arena: Arena, player: Player) -> int | None:
    """The table of ``player``'s match in play in the arena, if any."""
    game = arena.games.filter(finished_at__isnull=True).filter(
        Q(player_a=player) | Q(player_b=player)).select_related("match").first()
    return game.match.table_id if game is not None else None


def arena_context(arena: Arena, user: Any) -> dict[str, Any]:
    """What the arena page shows ``user``: the state, the leaderboard, and their own entry
    and current match."""
    now = timezone.now()
    board = arena_leaderboard(arena)
    me = None
    if getattr(user, "is_authenticated", False):
        player = Player.objects.filter(user=user).first()
        if player is not None:
            entry = arena.entries.filter(player=player).first()
            if entry is not None:
                row = next(r for r in board if r["player_id"] == player.pk)
                me = {"entry": entry, "row": row,
                      "table_id": current_table_id(arena, player)}
    state = arena_state(arena, now)
    return {"arena": arena, "state": state, "state_words": STATE_WORDS[state],
            "board": board, "me": me, "may_join": state in ("upcoming", "running")}
