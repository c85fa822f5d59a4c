"""Reads of club seasons' records, as the pages, the API and the sockets show them."""

from __future__ import annotations

from typing import Any

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
