"""An arena through its services: 20 players for its whole time, matches ended by the
services' own forfeit, every pairing checked against the rules, the leaderboard recomputed
independently, and the end: no pairing after the time, matches in play finish and count."""

from __future__ import annotations

import random
from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from matches import services as match_services
from matches.models import Match, MatchStatus, Player
from seasons import services
from seasons.models import Arena, ArenaGame
from seasons.selectors import arena_leaderboard
from seasons.services import ArenaError

pytestmark = pytest.mark.django_db


@pytest.fixture
def arena() -> Arena:
    now = timezone.now()
    return services.arena_create(name="Friday arena", starts_at=now - timedelta(seconds=1),
                                 ends_at=now + timedelta(minutes=10), match_length=1)


def in_play(arena: Arena) -> list[ArenaGame]:
    return list(arena.games.filter(finished_at__isnull=True).select_related("match"))


def free_players(arena: Arena) -> set[int]:
    busy = {p for g in in_play(arena) for p in (g.player_a_id, g.player_b_id)}
    return {e.player_id for e in arena.entries.filter(paused=False)} - busy


def last_opponent(arena: Arena, player: int) -> int | None:
    game = (arena.games.filter(finished_at__isnull=False, winner__isnull=False)
            .filter(player_a=player).union(arena.games.filter(
                finished_at__isnull=False, winner__isnull=False, player_b=player))
            .order_by("-finished_at", "-pk").first())
    if game is None:
        return None
    return game.player_b_id if game.player_a_id == player else game.player_a_id


def test_twenty_players_for_the_arena_time_follow_every_rule(
        arena: Arena, make_player: Callable[..., Player],
        django_capture_on_commit_callbacks: Any) -> None:
    rng = random.Random(26)
    players = [make_player(f"arena{i}") for i in range(20)]
    rematches_with_others_free = []

    def act(action: Callable[[], object]) -> None:
        """Do ``action``; check the pairings it caused against who was free for them."""
        before = {g.pk for g in arena.games.all()}
        free_then = free_players(arena)
        lasts = {p: last_opponent(arena, p) for p in free_then}
        with django_capture_on_commit_callbacks(execute=True):
            action()
        new = arena.games.exclude(pk__in=before)
        freed = free_players(arena) | {p for g in new for p in (g.player_a_id, g.player_b_id)}
        for game in new:
            assert game.match.status == MatchStatus.PLAYING
            a, b = game.player_a_id, game.player_b_id
            if lasts.get(a, last_opponent(arena, a)) == b and len(freed) > 2:
                rematches_with_others_free.append((a, b, sorted(freed)))

    for player in players:
        act(lambda player=player: services.arena_join(arena_id=arena.pk, player=player))
    assert len(in_play(arena)) == 10  # everybody paired at once
    paused = players[3]
    for wave in range(25):
        games = in_play(arena)
        for game in rng.sample(games, k=max(1, len(games) // 2)):
            loser = rng.choice((game.player_a, game.player_b))
            act(lambda game=game, loser=loser: match_services.match_forfeit(
                match_id=game.match_id, loser=loser, reason="arena test"))
        if wave == 8:
            act(lambda: services.arena_pause(arena_id=arena.pk, player=paused, paused=True))
        if wave == 16:
            act(lambda: services.arena_pause(arena_id=arena.pk, player=paused, paused=False))
    assert rematches_with_others_free == []
    assert arena.games.filter(finished_at__isnull=False).count() > 100

    # The leaderboard, recomputed from the matches themselves in the order they ended.
    points = dict.fromkeys((p.pk for p in players), 0)
    streak = dict.fromkeys(points, 0)
    for game in arena.games.filter(finished_at__isnull=False).order_by("finished_at", "pk"):
        winner = game.match.winner_id
        loser = game.player_b_id if winner == game.player_a_id else game.player_a_id
        points[winner] += 4 if streak[winner] >= 2 else 2
        streak[winner] += 1
        streak[loser] = 0
    board = arena_leaderboard(arena)
    assert {row["player_id"]: (row["points"], row["streak"]) for row in board} == {
        p: (points[p], streak[p]) for p in points}
    assert [row["points"] for row in board] == sorted(points.values(), reverse=True)
    finished = arena.games.filter(finished_at__isnull=False).count()
    assert sum(row["wins"] for row in board) == finished

    # The end: nobody is paired after the time; matches in play finish and count; then the
    # arena closes.
    after = arena.ends_at + timedelta(seconds=1)
    assert services.arena_sweep(now=after) == {"paired": 0, "closed": 0}
    still = in_play(arena)
    assert still
    assert services.arena_pair(arena_id=arena.pk, now=after) == []
    with pytest.raises(ArenaError) as late:
        services.arena_join(arena_id=arena.pk, player=make_player("late"), now=after)
    assert late.value.code == "arena_over"
    for game in still:
        match_services.match_forfeit(match_id=game.match_id, loser=game.player_a,
                                     reason="arena test")
    assert not in_play(arena)
    assert services.arena_sweep(now=after) == {"paired": 0, "closed": 1}
    arena.refresh_from_db()
    assert arena.closed_at == after
    assert Match.objects.filter(arena_game__arena=arena, status=MatchStatus.PLAYING).count() == 0


def test_bad_arena_requests_are_refused_and_change_nothing(
        arena: Arena, make_player: Callable[..., Player]) -> None:
    now = timezone.now()
    player = make_player()
    services.arena_join(arena_id=arena.pk, player=player)
    cases = [
        (lambda: services.arena_join(arena_id=arena.pk, player=player), "already_joined"),
        (lambda: services.arena_join(arena_id=arena.pk, player=None), "not_authenticated"),
        (lambda: services.arena_join(arena_id=99999, player=player), "not_found"),
        (lambda: services.arena_pause(arena_id=arena.pk, player=make_player(), paused=True),
         "not_in_arena"),
        (lambda: services.arena_create(name="x", starts_at=now, ends_at=now), "invalid_option"),
        (lambda: services.arena_create(name="x", starts_at=now,
                                       ends_at=now + timedelta(days=1)), "invalid_option"),
        (lambda: services.arena_create(name=" ", starts_at=now,
                                       ends_at=now + timedelta(hours=1)), "invalid_option"),
        (lambda: services.arena_create(name="x", starts_at=now, match_length=0,
                                       ends_at=now + timedelta(hours=1)), "invalid_option"),
        (lambda: services.arena_create(name="x", starts_at=now, ends_at=now + timedelta(hours=1),
                                       colour="red"), "invalid_option"),
    ]
    arenas, entries, games = Arena.objects.count(), arena.entries.count(), ArenaGame.objects.count()
    for call, code in cases:
        with pytest.raises(ArenaError) as refused:
            call()
        assert refused.value.code == code
    assert (Arena.objects.count(), arena.entries.count(), ArenaGame.objects.count()) == (
        arenas, entries, games)


def test_an_arena_not_yet_started_pairs_nobody(make_player: Callable[..., Player],
                                               django_capture_on_commit_callbacks: Any) -> None:
    now = timezone.now()
    later = services.arena_create(name="Later", starts_at=now + timedelta(hours=1),
                                  ends_at=now + timedelta(hours=2))
    with django_capture_on_commit_callbacks(execute=True):
        for _ in range(4):
            services.arena_join(arena_id=later.pk, player=make_player())
    assert later.games.count() == 0
    assert len(services.arena_pair(arena_id=later.pk, now=later.starts_at)) == 2
