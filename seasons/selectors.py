"""Reads of club seasons' records, as the pages, the API and the sockets show them."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from django.db.models import Count, Min, Q
from django.utils import timezone
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from matches.models import Player
from seasons.formats.arena import leaderboard
from seasons.formats.ladder import challenge_refusal
from seasons.models import (
    PENDING,
    Arena,
    ChallengeStatus,
    Ladder,
    LadderEvent,
    LadderEventKind,
    League,
    LeagueSeason,
)
from seasons.services.arena import finished_results
from seasons.services.league import division_list, season_players
from tournaments import selectors as tournament_selectors
from tournaments.models import Tournament, TournamentStatus


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


# -- ladders -------------------------------------------------------------------------------


def ladder_rows() -> list[dict[str, Any]]:
    """Every ladder with how many stand on it."""
    ladders = Ladder.objects.annotate(players=Count("entries")).order_by("name", "pk")[:200]
    return [{"ladder": ladder, "players": ladder.players}  # type: ignore[attr-defined]
            for ladder in ladders]


def _history_words(event: LadderEvent, names: dict[int, str]) -> str:
    player = names.get(event.player_id, "?")
    if event.kind == LadderEventKind.JOINED:
        return gettext("%(player)s joined at the bottom.") % {"player": player}
    if event.kind == LadderEventKind.LEFT:
        return gettext("%(player)s left the ladder.") % {"player": player}
    if event.kind == LadderEventKind.DROPPED:
        return gettext("%(player)s dropped %(places)s places for inactivity.") % {
            "player": player, "places": event.places}
    words = {"challenger": player, "defender": names.get(event.defender_id or 0, "?"),
             "winner": names.get(event.winner_id or 0, "?")}
    if event.forfeit:
        return gettext("%(challenger)s challenged %(defender)s: %(winner)s won by forfeit.") % words
    return gettext("%(challenger)s challenged %(defender)s: %(winner)s won.") % words


def ladder_context(ladder: Ladder, user: Any) -> dict[str, Any]:
    """What the ladder page shows ``user``: the order (with a challenge button next to each
    player they may challenge), the challenges still to be decided (with Accept / Decline
    for the defender) and the history, newest first."""
    entries = list(ladder.entries.select_related("player").order_by("place"))
    names = {e.player_id: e.player.display_name for e in entries}
    pending = list(ladder.challenges.filter(status__in=PENDING)
                   .select_related("challenger", "defender", "match").order_by("created_at"))
    busy = {p for c in pending for p in (c.challenger_id, c.defender_id)}
    me = None
    if getattr(user, "is_authenticated", False):
        me = Player.objects.filter(user=user).first()
    mine = me is not None and me.pk in names
    order = tuple(e.player_id for e in entries)
    rows = []
    for entry in entries:
        may = (mine and me is not None and me.pk not in busy and entry.player_id not in busy
               and challenge_refusal(order, me.pk, entry.player_id, ladder.reach) is None)
        rows.append({"place": entry.place, "player_id": entry.player_id,
                     "name": entry.player.display_name, "busy": entry.player_id in busy,
                     "may_challenge": may})
    events = list(ladder.events.order_by("-sequence")[:100])
    for event in events:
        for pk in (event.player_id, event.defender_id, event.winner_id):
            if pk and pk not in names:
                names[pk] = Player.objects.filter(pk=pk).values_list(
                    "display_name", flat=True).first() or "?"
    history = [{"sequence": e.sequence, "at": e.at, "text": _history_words(e, names)}
               for e in events]
    challenges = [{"challenge": c, "mine_to_answer": me is not None and c.defender_id == me.pk
                   and c.status == ChallengeStatus.OPEN,
                   "table_id": c.match.table_id if c.match is not None else None}
                  for c in pending]
    return {"ladder": ladder, "rows": rows, "challenges": challenges, "history": history,
            "me": me, "on_ladder": mine}


# -- leagues -------------------------------------------------------------------------------


def league_rows() -> list[dict[str, Any]]:
    """Every league with its seasons, newest first, each with its divisions (tournaments)."""
    rows = []
    for league in League.objects.order_by("name", "pk")[:100]:
        seasons = []
        for season in league.seasons.select_related("event").order_by("-number"):
            seasons.append({"season": season, "divisions": list(
                season.event.divisions.order_by("division_order", "pk"))})
        rows.append({"league": league, "seasons": seasons})
    return rows


def _round_deadline(division: Tournament) -> dict[str, Any] | None:
    """The division's current round and its deadline: a paired player who has not sat down
    by then loses by forfeit (the tournaments' no-show rule, ``no_show_minutes``)."""
    if division.status != TournamentStatus.RUNNING or not division.current_round:
        return None
    called = division.rounds.filter(bracket="main", number=division.current_round).first()
    if called is None:
        return None
    start = called.starts_at or called.pairings.aggregate(first=Min("paired_at"))["first"]
    if start is None or not division.no_show_minutes:
        return {"number": called.number, "deadline": None}
    return {"number": called.number,
            "deadline": start + timedelta(minutes=division.no_show_minutes)}


def _season_divisions(season: LeagueSeason, player: Player | None) -> list[dict[str, Any]]:
    rows = []
    for order, division in enumerate(division_list(season), start=1):
        lines = tournament_selectors.standings(division)
        rows.append({"order": order, "division": division, "standings": lines,
                     "round": _round_deadline(division),
                     "mine": player is not None
                     and any(line["player_id"] == player.pk for line in lines)})
    return rows


def league_context(league: League, user: Any) -> dict[str, Any]:
    """What a league's page shows ``user``: its settings, the current season's divisions
    with their standings (the round robin's tiebreaks) and round deadlines, the user's own
    division, the past seasons with each division's winner, and the enrolled players."""
    player = None
    if getattr(user, "is_authenticated", False):
        player = Player.objects.filter(user=user).first()
    seasons = list(league.seasons.select_related("event").order_by("-number"))
    current = seasons[0] if seasons else None
    divisions = _season_divisions(current, player) if current is not None else []
    past = []
    for season in seasons[1:]:
        past.append({"season": season, "divisions": [
            {"division": d, "winner": next(iter(tournament_selectors.standings(d)), None)}
            for d in division_list(season)]})
    everyone = list(league.members.select_related("player")
                    .order_by("-player__rating", "pk"))
    members = [m for m in everyone if m.left_at is None]
    playing = season_players(current) if current is not None else set()
    return {"league": league, "current": current, "divisions": divisions,
            "my_division": next((d for d in divisions if d["mine"]), None),
            "season_finished": bool(divisions) and all(
                d["division"].status == TournamentStatus.FINISHED for d in divisions),
            "past": past, "members": members,
            "withdrawn": [m for m in everyone if m.left_at is not None],
            "waiting": [m for m in members if m.player_id not in playing]}
