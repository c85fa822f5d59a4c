"""Clocks enforced the way production enforces them: a real Celery worker process, a real
beat, Redis and the test database (committed rows, so every test here is transactional).

* the deadline task flags an idle player within a second of the deadline;
* a worker killed while it holds a deadline task: the beat sweep flags the match anyway, once;
* a play and the flag task racing at the deadline leave exactly one outcome;
* a player who flagged with no board open forfeits after the grace; coming back saves them.
"""

from __future__ import annotations

import os
import threading
import time
from collections import Counter
from collections.abc import Callable
from typing import Any, TypeVar

import pytest
from django.db import connection
from django.utils import timezone

from matches import clocks, presence, services
from matches.models import Event, GameEnding, LogKind, Match, MatchStatus, Player
from matches.tasks import flag_match
from tests.conftest import CeleryBeatProcess, CeleryWorkerProcess, start_celery_worker

pytestmark = [pytest.mark.celery, pytest.mark.slow, pytest.mark.django_db(transaction=True)]

T = TypeVar("T")


@pytest.fixture(autouse=True)
def _fast_passwords(settings: Any) -> None:
    # Two players per match: the default hasher would spend most of this module's time.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


def wait_for(probe: Callable[[], T | None], *, timeout: float, what: str,
             log: Callable[[], str] | None = None) -> T:
    """Poll ``probe`` until it returns something truthy, for at most ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        value = probe()
        if value:
            return value
        if time.monotonic() > deadline:
            pytest.fail(f"timed out waiting for {what}" + (f"\n{log()}" if log else ""))
        time.sleep(0.02)


def clock_options(*, delay: float, reserve: float, **options: Any) -> dict[str, Any]:
    return {"clock_enabled": True, "clock_delay": delay, "clock_reserve_seconds": reserve,
            "clock_reserve_per_point": 0, **options}


def fresh_presence(match: Match) -> None:
    for player_id in (match.player0_id, match.player1_id):
        presence.forget(table_id=match.table_id, player_id=player_id)


def first_timeout(match: Match) -> Event | None:
    return match.events.filter(kind=LogKind.TIMEOUT).order_by("sequence").first()


def end_quietly(match: Match) -> None:
    """Stop a match that is still being played, so no later flag touches it."""
    try:
        services.match_void(match_id=match.pk, referee=None, reason="test over")
    except services.ServiceError:
        pass  # already over


def test_nobody_connected_the_worker_flags_at_the_deadline_and_scores_the_game(
        celery_worker_process: CeleryWorkerProcess, start_match: Callable[..., Match]) -> None:
    match = start_match(dice=[[3, 1]], match_length=3,
                        **clock_options(delay=0, reserve=2, grace_seconds=60))
    fresh_presence(match)
    deadline = match.deadline
    assert deadline is not None
    timeout = wait_for(lambda: first_timeout(match), timeout=6, what="the flag",
                       log=celery_worker_process.log)
    late = (timeout.created_at - deadline).total_seconds()
    assert 0 <= late < 1.0, f"flagged {late:.3f} s after the deadline"
    assert timeout.payload["action"]["player"] == 0 and timeout.payload["absent"] is True
    game = match.games.get(number=1)
    assert (game.ending, game.winner_id, game.points) == (GameEnding.TIMEOUT, match.player1_id, 1)
    end_quietly(match)
    assert services.match_verify(match_id=match.pk).ok


def test_a_killed_worker_loses_its_deadline_task_and_the_sweep_flags_it_once(
        celery_beat_process: CeleryBeatProcess, celery_worker_process: CeleryWorkerProcess,
        start_match: Callable[..., Match]) -> None:
    from tavla.celery import app

    # The deadline task goes to a queue only the doomed worker reads, so it is the one
    # holding it when it dies; the sweep, from beat, goes to the usual queue.
    queue = f"clock-kill-test-{os.getpid()}"
    default_queue = app.conf.task_default_queue
    doomed = start_celery_worker(celery_worker_process.env, name="doomed", queues=queue)
    successor: CeleryWorkerProcess | None = None
    try:
        app.conf.task_default_queue = queue
        match = start_match(dice=[[3, 1]], match_length=1, **clock_options(delay=0, reserve=3))
        app.conf.task_default_queue = default_queue
        fresh_presence(match)
        deadline = match.deadline
        assert deadline is not None
        wait_for(lambda: "matches.flag_match[" in doomed.log(), timeout=2.5,
                 what="the doomed worker to hold the deadline task", log=doomed.log)
        doomed.process.kill()
        doomed.process.wait()
        assert timezone.now() < deadline, "the worker died too late for this test"
        successor = start_celery_worker(celery_worker_process.env, name="successor",
                                        queues=f"{queue},celery")
        match = wait_for(
            lambda: Match.objects.filter(pk=match.pk, status=MatchStatus.FINISHED).first(),
            timeout=12, what="the sweep to flag the match", log=celery_beat_process.log)
        timeout = first_timeout(match)
        assert timeout is not None and match.winner_id == match.player1_id
        # The sweep runs every 2 s; the successor needs a moment to start.
        late = (timeout.created_at - deadline).total_seconds()
        assert 0 <= late < 8
        # Asking again, through every path, changes nothing.
        assert not flag_match(match.pk, match.version)
        assert clocks.sweep_expired_clocks().flagged == []
        time.sleep(2.5)  # at least one more sweep from beat
        assert match.events.filter(kind=LogKind.TIMEOUT).count() == 1
        assert services.match_verify(match_id=match.pk).ok
    finally:
        app.conf.task_default_queue = default_queue
        doomed.stop()
        if successor is not None:
            successor.stop()


ROUNDS = 8


def _play_at(match: Match, version: int, when: float, results: dict[str, Any],
             barrier: threading.Barrier) -> None:
    """In a thread of its own: play 8/5 6/5 for player 0 at ``when`` (epoch seconds)."""
    try:
        player = match.player0  # opens this thread's connection before the race
        barrier.wait()
        time.sleep(max(0.0, when - time.time()))  # sleeping, not spinning: no GIL hogging
        services.match_act(match_id=match.pk, player=player, action="play",
                           play="8/5 6/5", expected_version=version)
        results["play"] = "accepted"
    except services.ServiceError as error:
        results["play"] = error.code
    finally:
        connection.close()


def _flag_at(match: Match, version: int, when: float, results: dict[str, Any],
             barrier: threading.Barrier) -> None:
    """In a thread of its own: run the deadline task's body at ``when``."""
    try:
        Match.objects.filter(pk=match.pk).exists()  # opens this thread's connection
        barrier.wait()
        time.sleep(max(0.0, when - time.time()))  # sleeping, not spinning: no GIL hogging
        results["flag"] = flag_match(match.pk, version)
    finally:
        connection.close()


def test_a_play_at_the_deadline_and_the_flag_task_give_exactly_one_outcome(
        celery_worker_process: CeleryWorkerProcess, start_match: Callable[..., Match],
        make_player: Callable[..., Player]) -> None:
    outcomes: Counter[str] = Counter()
    players = (make_player(), make_player())
    for round_number in range(ROUNDS):
        match = start_match(dice=[[3, 1], [4, 2]], match_length=1, players=players,
                            **clock_options(delay=0, reserve=0.3))
        deadline = match.deadline
        assert deadline is not None
        # The play is sent from 10 ms before to 7.5 ms after the deadline; the flag task at it.
        play_at = deadline.timestamp() + (round_number % 8 - 4) * 0.0025
        version = match.version
        results: dict[str, Any] = {}
        barrier = threading.Barrier(2)
        threads = [
            threading.Thread(target=_play_at, args=(match, version, play_at, results, barrier)),
            threading.Thread(target=_flag_at, args=(match, version, deadline.timestamp(),
                                                    results, barrier)),
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=30)
        match.refresh_from_db()
        kinds = list(match.events.order_by("sequence").values_list("kind", flat=True))
        played, flags = LogKind.PLAY in kinds, kinds.count(LogKind.TIMEOUT)
        assert played != (flags == 1) and flags <= 1, (results, kinds)
        if played:
            assert results == {"play": "accepted", "flag": False}, kinds
            outcomes["played"] += 1
        else:
            # The session worker's own deadline task races too: it may have flagged first.
            assert results["play"] in ("flag_fell", "stale_version", "match_over"), results
            assert match.status == MatchStatus.FINISHED and match.winner_id == match.player1_id
            outcomes["flagged"] += 1
        end_quietly(match)
        assert services.match_verify(match_id=match.pk).ok
    assert sum(outcomes.values()) == ROUNDS, outcomes


def test_disconnected_past_the_grace_the_sweep_forfeits_the_match(
        celery_beat_process: CeleryBeatProcess, start_match: Callable[..., Match]) -> None:
    match = start_match(dice=[[3, 1]], match_length=9,
                        **clock_options(delay=1, reserve=1, grace_seconds=1))
    fresh_presence(match)  # nobody has a board open
    match = wait_for(
        lambda: Match.objects.filter(pk=match.pk, status=MatchStatus.FORFEITED).first(),
        timeout=12, what="the forfeit", log=celery_beat_process.log)
    assert match.winner_id == match.player1_id
    flag = first_timeout(match)
    forfeit = match.events.get(kind=LogKind.FORFEIT)
    assert flag is not None and flag.payload["absent"] is True
    assert forfeit.payload["reason"] == clocks.GRACE_FORFEIT_REASON
    assert forfeit.payload["action"]["player"] == 0
    waited = (forfeit.created_at - flag.created_at).total_seconds()
    assert 1 <= waited < 1 + 2 + 1.5  # the grace, then the next sweep
    assert services.match_verify(match_id=match.pk).ok


def test_back_within_the_grace_the_match_goes_on(
        celery_beat_process: CeleryBeatProcess, start_match: Callable[..., Match]) -> None:
    match = start_match(dice=[[3, 1]], match_length=9,
                        **clock_options(delay=1, reserve=1, grace_seconds=1))
    fresh_presence(match)
    # The opponent watches throughout; player 0 has no board open when the flag falls.
    presence.connected(table_id=match.table_id, player_id=match.player1_id, channel_name="p1")
    try:
        flag = wait_for(lambda: first_timeout(match), timeout=6, what="the flag")
        assert flag.payload["absent"] is True
        presence.connected(table_id=match.table_id, player_id=match.player0_id,
                           channel_name="p0")
        # Past the grace, and at least one sweep after it.
        time.sleep(max(0.0, flag.payload["flagged_at"] + 1 + 2.5 - time.time()))
        assert not match.events.filter(kind=LogKind.FORFEIT).exists()
        match.refresh_from_db()
        assert match.status == MatchStatus.PLAYING
    finally:
        end_quietly(match)
        fresh_presence(match)
