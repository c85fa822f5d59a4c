"""Arenas and ladders of gnubg bots played by a real Celery bot worker with real gnubg.

Nothing is scripted: every move is the bot worker's (``matches.bot_turn``), every result the
match's own. The checks recompute what the site shows from the stored matches, by rules
restated here or by the pure formats (:mod:`seasons.formats`):

- Arena: 7 bots, 1-point matches. Every arena match ends; each player's points, wins,
  matches and streak recomputed from the matches agree with the leaderboard; no pairing ever
  put a player with their last opponent while another player was free.
- Ladder: 5 bots and two people who never play, through sweeps a simulated day apart. Every
  change follows the rules (the formats' :func:`~seasons.formats.ladder.challenge_refusal`
  and :func:`~seasons.formats.ladder.apply`), every bot challenge is the bots' rule's, and
  the history replays to the final order.

Waits are for conditions (with a generous bound that only fails a stuck run); no timing is
asserted. Modest on purpose: a few bots, 1-point matches, no pause between moves.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from datetime import datetime, timedelta
from typing import Any

import pytest
from django.contrib.auth.models import Permission
from django.db.models import Q
from django.utils import timezone

from matches.models import MatchStatus, Player
from seasons import selectors, services
from seasons.formats import ladder as ladder_rules
from seasons.models import (
    PENDING,
    Arena,
    ArenaGame,
    ChallengeStatus,
    Ladder,
    LadderChallenge,
    LadderEvent,
)
from seasons.services.ladder import event_of, order_of
from tests.conftest import CeleryWorkerProcess, start_celery_worker, subprocess_env

pytestmark = [pytest.mark.slow, pytest.mark.celery, pytest.mark.django_db(transaction=True)]

#: Only a stuck run reaches this (a 1-point bot match takes seconds).
PATIENCE = 600.0


@pytest.fixture
def bot_worker(settings: Any) -> Iterator[CeleryWorkerProcess]:
    """A worker of the bot queue (and the analysis queue, which every finished match feeds),
    with no pause before a bot's move."""
    settings.TAVLA_BOT_PAUSE = (0.0, 0.0)
    worker = start_celery_worker(subprocess_env(TAVLA_BOT_PAUSE="0,0"), name="season-bots",
                                 queues="bots,analysis")
    try:
        yield worker
    finally:
        worker.stop()


@pytest.fixture
def director(make_player: Callable[..., Player]) -> Player:
    player = make_player()
    player.user.user_permissions.add(Permission.objects.get(codename="add_arena"),
                                     Permission.objects.get(codename="add_ladder"))
    return Player.objects.get(pk=player.pk)


def wait_for(condition: Callable[[], bool], worker: CeleryWorkerProcess, what: str) -> None:
    deadline = time.monotonic() + PATIENCE
    while not condition():
        if time.monotonic() > deadline:
            pytest.fail(f"{what}: not in {PATIENCE} s\n{worker.log()[-4000:]}")
        time.sleep(0.2)


# -- arena ---------------------------------------------------------------------------------


def test_an_arena_of_bots_pairs_scores_and_closes_by_the_rules(
        bot_worker: CeleryWorkerProcess, director: Player) -> None:
    now = timezone.now()
    arena = services.arena_create(name="Bot arena", starts_at=now - timedelta(seconds=1),
                                  ends_at=now + timedelta(hours=1), match_length=1,
                                  creator=director)
    # Seven: someone always waits, so each match's end frees three players, two of whom
    # just met — the no-rematch rule decides every pairing after the first.
    services.arena_add_bots(arena_id=arena.pk, strength="beginner", count=4, actor=director)
    services.arena_add_bots(arena_id=arena.pk, strength="intermediate", count=3,
                            actor=director)
    bots = set(arena.entries.values_list("player_id", flat=True))
    assert len(bots) == 7
    # Pairing after pairing, on the bot worker alone (each finished match pairs again).
    wait_for(lambda: arena.games.filter(finished_at__isnull=False).count() >= 9, bot_worker,
             "nine arena matches finished")
    # The arena's time is up: its end is moved to now (the clock jumping to the end), so no
    # more pairing; the matches in play finish and count, then the sweep closes it.
    Arena.objects.filter(pk=arena.pk).update(ends_at=timezone.now())

    def closed() -> bool:
        services.arena_sweep()
        return Arena.objects.filter(pk=arena.pk, closed_at__isnull=False).exists()

    wait_for(closed, bot_worker, "the arena closed")

    games = list(arena.games.select_related("match").order_by("finished_at", "pk"))
    for game in games:  # every arena match ended, on the board, with its match's winner
        assert game.finished_at is not None and game.match.is_finished
        assert game.match.status == MatchStatus.FINISHED
        assert game.winner_id == game.match.winner_id
        assert game.winner_id in (game.player_a_id, game.player_b_id)
    assert {p for g in games for p in (g.player_a_id, g.player_b_id)} == bots

    # Points and streaks, recomputed from the matches by the arena's table: 2 a win, 4 a win
    # after two wins in a row; the streak is the wins in a row at the end.
    points = dict.fromkeys(bots, 0)
    wins = dict.fromkeys(bots, 0)
    played = dict.fromkeys(bots, 0)
    streak = dict.fromkeys(bots, 0)
    for game in games:
        winner = game.winner_id
        assert winner is not None
        loser = game.player_b_id if winner == game.player_a_id else game.player_a_id
        points[winner] += 4 if streak[winner] >= 2 else 2
        wins[winner] += 1
        streak[winner] += 1
        streak[loser] = 0
        played[winner] += 1
        played[loser] += 1
    board = selectors.arena_leaderboard(Arena.objects.get(pk=arena.pk))
    assert {row["player_id"]: (row["points"], row["wins"], row["played"], row["streak"])
            for row in board} == {p: (points[p], wins[p], played[p], streak[p]) for p in bots}
    keys = [(-row["points"], -row["wins"]) for row in board]
    assert keys == sorted(keys)

    # No pairing of last opponents while another player was free. A pairing's games share
    # their time; free then: in the arena and not in a match that was still being played.
    assert_no_avoidable_rematch(list(arena.games.order_by("created_at", "pk")), bots)


def assert_no_avoidable_rematch(games: list[ArenaGame], players: set[int]) -> None:
    batches: dict[datetime, list[ArenaGame]] = {}
    for game in games:
        batches.setdefault(game.created_at, []).append(game)
    tested = 0  # pairings where two free players had just met and a third was free
    for at, batch in batches.items():
        busy = {p for g in games if g.created_at < at
                and (g.finished_at is None or g.finished_at > at)
                for p in (g.player_a_id, g.player_b_id)}
        free = players - busy
        last: dict[int, int] = {}
        for g in sorted((g for g in games if g.finished_at is not None and g.finished_at <= at),
                        key=lambda g: (g.finished_at, g.pk)):
            last[g.player_a_id], last[g.player_b_id] = g.player_b_id, g.player_a_id
        if len(free) > 2 and any(last.get(p) in free for p in free):
            tested += 1
        for game in batch:
            a, b = game.player_a_id, game.player_b_id
            assert a in free and b in free, f"game {game.pk} paired a busy player"
            if last.get(a) == b or last.get(b) == a:
                assert free == {a, b}, (
                    f"game {game.pk} paired last opponents {a} and {b} while {free} were free")
    assert tested >= 3  # the rule was put to work, not met by chance


# -- ladder --------------------------------------------------------------------------------

REACH, ACCEPT_DAYS, PLAY_DAYS, IDLE_DAYS, DROP = 2, 2, 3, 4, 1
SWEEPS = 7


def test_a_ladder_of_bots_changes_by_the_rules_and_replays_to_its_order(
        bot_worker: CeleryWorkerProcess, director: Player,
        make_player: Callable[..., Player]) -> None:
    start = timezone.now()
    ladder = services.ladder_create(name="Bot ladder", reach=REACH, accept_days=ACCEPT_DAYS,
                                    play_days=PLAY_DAYS, inactivity_days=IDLE_DAYS,
                                    drop_places=DROP, match_length=1, creator=director)
    # A person who never answers on top, five bots, and a person at the bottom who
    # challenges a bot once and never moves.
    top, bottom = make_player(), make_player()
    services.ladder_join(ladder_id=ladder.pk, player=top, now=start)
    bots = [entry.player_id for entry in services.ladder_add_bots(
        ladder_id=ladder.pk, strength="beginner", count=5, actor=director, now=start)]
    services.ladder_join(ladder_id=ladder.pk, player=bottom, now=start)
    mine = services.ladder_challenge(ladder_id=ladder.pk, challenger=bottom,
                                     defender_id=bots[-1], now=start)
    assert mine.status == ChallengeStatus.ACCEPTED and mine.match is not None  # at once

    def bot_matches_decided() -> bool:
        return not LadderChallenge.objects.filter(
            ladder=ladder, status=ChallengeStatus.ACCEPTED, challenger_id__in=bots,
            defender_id__in=bots).exists()

    for day in range(1, SWEEPS + 1):
        # Simulated time: a day per sweep, always ahead of the worker's real clock.
        now = start + timedelta(days=day)
        wait_for(bot_matches_decided, bot_worker, f"the bots' matches before day {day}")
        before = ladder.events.order_by("-sequence").values_list("sequence",
                                                                 flat=True).first() or 0
        services.ladder_sweep(now=now)
        assert_bots_challenged_by_their_rule(Ladder.objects.get(pk=ladder.pk), before, now,
                                             set(bots))
    wait_for(bot_matches_decided, bot_worker, "the bots' last matches")

    ladder = Ladder.objects.get(pk=ladder.pk)
    assert services.ladder_check(ladder) == []
    replayed = assert_history_follows_the_rules(ladder)
    assert replayed == order_of(ladder)
    # What the run went through: bots' matches on the board, a person's silence and a
    # person's unfinished match decided by forfeit.
    challenges = LadderChallenge.objects.filter(ladder=ladder)
    assert challenges.filter(status=ChallengeStatus.DECIDED, forfeit=False).count() >= 3
    assert challenges.filter(status=ChallengeStatus.EXPIRED, defender=top).exists()
    mine.refresh_from_db()
    assert mine.status == ChallengeStatus.DECIDED and mine.forfeit


def assert_bots_challenged_by_their_rule(ladder: Ladder, before: int, now: datetime,
                                         bots: set[int]) -> None:
    """The challenges the sweep at ``now`` made are the bots' rule's: top first, each free bot
    challenges the highest free player within reach, on the order the sweep's deadlines and
    drops left (the events up to ``before`` and the sweep's own; the bots' new matches are
    decided only later)."""
    new = {c.pk: c for c in LadderChallenge.objects.filter(ladder=ladder, created_at=now)}
    events = [row for row in ladder.events.order_by("sequence").select_related("challenge")
              if row.sequence <= before or row.challenge_id not in new]
    order = ladder_rules.replay([event_of(row) for row in events])
    busy = {p for c in LadderChallenge.objects.filter(ladder=ladder, created_at__lt=now,
                                                      status__in=PENDING)
            for p in (c.challenger_id, c.defender_id)}
    expected: set[tuple[Any, Any]] = set()
    busy_ids: set[Any] = set(busy)
    for index, player in enumerate(order):
        if player not in bots or player in busy_ids:
            continue
        free_above = [p for p in order[max(0, index - REACH):index] if p not in busy_ids]
        if free_above:
            expected.add((player, free_above[0]))
            busy_ids.update((player, free_above[0]))
    assert {(c.challenger_id, c.defender_id) for c in new.values()} == expected
    for challenge in new.values():
        assert ladder_rules.challenge_refusal(order, challenge.challenger_id,
                                              challenge.defender_id, ladder.reach) is None
        # A bot defender accepted at once; the people here never answer.
        assert (challenge.accepted_at == now) == (challenge.defender_id in bots)


def assert_history_follows_the_rules(ladder: Ladder) -> tuple[Any, ...]:
    """Walk the history with the formats: every challenge decided had its defender above
    the challenger and ended as its match or its forfeit says; every drop is the ladder's,
    of a player with no pending challenge. The order replayed."""
    order: tuple[Any, ...] = ()
    challenges = list(LadderChallenge.objects.filter(ladder=ladder).select_related("match"))
    for row in LadderEvent.objects.filter(ladder=ladder).order_by("sequence"):
        event = event_of(row)
        if isinstance(event, ladder_rules.Decided):
            # Within reach when made (checked sweep by sweep); above the challenger still.
            assert order.index(event.defender) < order.index(event.challenger), row.sequence
            challenge = row.challenge
            assert challenge is not None and challenge.winner_id == event.winner
            if challenge.status in (ChallengeStatus.EXPIRED, ChallengeStatus.DECLINED):
                assert event.forfeit and event.winner == event.challenger
            else:
                match = challenge.match
                assert match is not None and match.winner_id == event.winner
                assert event.forfeit == (match.status == MatchStatus.FORFEITED)
        elif isinstance(event, ladder_rules.Dropped):
            place = order.index(event.player) + 1
            assert event.places == min(ladder.drop_places, len(order) - place)
            assert not any(
                c.created_at < row.at and (c.decided_at is None or c.decided_at > row.at)
                and event.player in (c.challenger_id, c.defender_id) for c in challenges)
        order = ladder_rules.apply(order, event)
    assert not LadderChallenge.objects.filter(ladder=ladder).filter(
        Q(status=ChallengeStatus.ACCEPTED) & Q(match__status=MatchStatus.FINISHED)).exists()
    return order
