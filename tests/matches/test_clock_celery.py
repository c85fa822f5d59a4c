"""Clocks enforced the way production enforces them: a real Celery worker process, a real
beat, Redis and the test database (committed rows, so every test here is transactional).

* the sweep flags an idle player within a second of the deadline; a move enqueues nothing;
* clock work runs on its own workers: a long backlog of other work does not delay a flag;
* clock workers killed for a while: when one is back, every overdue flag falls at once (each
  exactly once) and the queued sweeps drain; meanwhile /healthz says 503;
* a play and the flag racing at the deadline leave exactly one outcome;
* a player who flagged with no board open forfeits after the grace; coming back saves them.
"""

from __future__ import annotations

import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

import pytest
from django.db import connection
from django.utils import timezone

from matches import services
from matches.models import Event, GameEnding, LogKind, Match, MatchStatus, Player
from matches.services import clocks, presence
from tavla.celery import app
from tavla.queues import CLOCK_QUEUE, DEFAULT_QUEUE, queue_depth, queue_names
from tests.conftest import CeleryBeatProcess, CeleryWorkerProcess, start_celery_worker
from tests.matches.conftest import forget_presence

pytestmark = [pytest.mark.celery, pytest.mark.slow, pytest.mark.django_db(transaction=True)]

T = TypeVar("T")


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
        forget_presence(table_id=match.table_id, player_id=player_id)


def first_timeout(match: Match) -> Event | None:
    return match.events.filter(kind=LogKind.TIMEOUT).order_by("sequence").first()


def end_quietly(match: Match) -> None:
    """Stop a match that is still being played, so no later flag touches it."""
    try:
        services.match_void(match_id=match.pk, referee=None, reason="test over")
    except services.ServiceError:
        pass  # already over


def test_nobody_connected_the_sweep_flags_at_the_deadline_and_scores_the_game(
        celery_beat_process: CeleryBeatProcess, start_match: Callable[..., Match]) -> None:
    match = start_match(dice=[[3, 1]], match_length=3,
                        **clock_options(delay=0, reserve=2, grace_seconds=60))
    fresh_presence(match)
    deadline = match.deadline
    assert deadline is not None
    timeout = wait_for(lambda: first_timeout(match), timeout=6, what="the flag",
                       log=celery_beat_process.log)
    late = (timeout.created_at - deadline).total_seconds()
    # A sweep every 0.5 s: a bound wide enough for a loaded CI machine that still tells a
    # sweeping clock from one that waits for a player (the speed itself is
    # benchmarks/flag_latency.py's).
    assert 0 <= late < 3.0, f"flagged {late:.3f} s after the deadline"
    assert timeout.payload["action"]["player"] == 0 and timeout.payload["absent"] is True
    game = match.games.get(number=1)
    assert (game.ending, game.winner_id, game.points) == (GameEnding.TIMEOUT, match.player1_id, 1)
    end_quietly(match)
    assert services.match_verify(match_id=match.pk).ok


def test_a_move_enqueues_no_task(celery_worker_process: CeleryWorkerProcess,
                                 start_match: Callable[..., Match]) -> None:
    # Clock enforcement is the sweep over the deadline index: no queue grows with play.
    before = {name: queue_depth(name) for name in queue_names()}
    match = start_match(dice=[[3, 1], [6, 4]], match_length=3, cube_enabled=False,
                        **clock_options(delay=5, reserve=60))
    services.match_act(match_id=match.pk, player=match.player0, action="play",
                       play="8/5 6/5", expected_version=match.version)
    assert {name: queue_depth(name) for name in queue_names()} == before
    end_quietly(match)


@pytest.fixture
def clock_pool(celery_worker_process: CeleryWorkerProcess,
               celery_clock_worker: CeleryWorkerProcess) -> Iterator[ClockPool]:
    """The clock queue read only by workers this test starts: the session's clock worker
    stops reading it (Celery's ``cancel_consumer``) until the test ends."""
    session = [celery_clock_worker.hostname]
    app.control.cancel_consumer(CLOCK_QUEUE, destination=session, reply=True, timeout=5)
    pool = ClockPool(celery_worker_process.env)
    try:
        yield pool
    finally:
        pool.stop()
        app.control.add_consumer(CLOCK_QUEUE, destination=session, reply=True, timeout=5)


class ClockPool:
    """Clock workers started (and killed) by one test."""

    def __init__(self, env: dict[str, str]) -> None:
        self.env = env
        self.workers: list[CeleryWorkerProcess] = []

    def start(self) -> CeleryWorkerProcess:
        worker = start_celery_worker(self.env, name=f"clocks{len(self.workers)}",
                                     queues=CLOCK_QUEUE)
        self.workers.append(worker)
        return worker

    def stop(self) -> None:
        for worker in self.workers:
            worker.stop()


def clock_queue_depth() -> int:

    return queue_depth(CLOCK_QUEUE)


def test_clock_work_never_waits_behind_other_work(
        celery_beat_process: CeleryBeatProcess, clock_pool: ClockPool,
        start_match: Callable[..., Match]) -> None:
    from tournaments.tasks import forfeit_no_shows

    clock_pool.start()
    matches = [start_match(dice=[[3, 1]], match_length=1,
                           **clock_options(delay=0, reserve=1.5 + 0.25 * i)) for i in range(4)]
    # A backlog of other work on the default queue, far longer than the test.
    for _ in range(4000):
        forfeit_no_shows.delay()
    for match in matches:
        fresh_presence(match)
    flags = [wait_for(lambda m=match: first_timeout(m), timeout=10, what="a flag",
                      log=celery_beat_process.log) for match in matches]
    for match, flag in zip(matches, flags, strict=True):
        assert match.deadline is not None
        late = (flag.created_at - match.deadline).total_seconds()
        # The proof is the backlog still queued below; this bound only keeps "late" sane.
        assert 0 <= late < 5.0, f"flagged {late:.3f} s late behind other work"
    assert queue_depth(DEFAULT_QUEUE) > 0, "the other work drained: no backlog"
    with app.connection_for_write() as connection:
        connection.default_channel.queue_purge(DEFAULT_QUEUE)


def test_after_a_clock_worker_outage_every_overdue_flag_falls_at_once_and_the_queue_drains(
        celery_beat_process: CeleryBeatProcess, clock_pool: ClockPool,
        start_match: Callable[..., Match], client: Any) -> None:
    doomed = clock_pool.start()
    doomed.process.kill()
    doomed.process.wait()
    # Deadlines that fall while no clock worker runs (beat keeps sending sweeps).
    matches = [start_match(dice=[[3, 1]], match_length=1,
                           **clock_options(delay=0, reserve=1 + 0.2 * i)) for i in range(8)]
    for match in matches:
        fresh_presence(match)
    deadlines = [match.deadline.timestamp() for match in matches if match.deadline]
    # Until every deadline has passed and the first is overdue enough for /healthz to fail.
    from tavla.site.health import MAX_OVERDUE_SECONDS

    time.sleep(max(4.0, max(deadlines) + 1 - time.time(),
                   min(deadlines) + MAX_OVERDUE_SECONDS + 1 - time.time()))
    assert not Event.objects.filter(match__in=matches, kind=LogKind.TIMEOUT).exists()
    backlog = clock_queue_depth()
    assert backlog >= 8, f"beat kept sending sweeps: {backlog} queued"
    health = client.get("/healthz")
    assert health.status_code == 503
    assert health.json()["clock"]["queue_depth"] >= 8
    assert health.json()["clock"]["overdue_seconds"] > 1
    clock_pool.start()
    back = timezone.now()
    flags = [wait_for(lambda m=match: first_timeout(m), timeout=10, what="a flag after the outage")
             for match in matches]
    for flag in flags:
        # At once: well before the flags' own 10 s wait (benchmarks/flag_latency.py times it).
        assert (flag.created_at - back).total_seconds() < 8
    wait_for(lambda: clock_queue_depth() <= 2, timeout=5, what="the clock queue to drain")
    for match in matches:
        match.refresh_from_db()
        assert match.status == MatchStatus.FINISHED and match.winner_id == match.player1_id
        assert match.events.filter(kind=LogKind.TIMEOUT).count() == 1
        assert services.match_verify(match_id=match.pk).ok
    assert clocks.sweep_expired_clocks().flagged == []


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
        results["flag"] = clocks.flag_if_expired(match_id=match.pk)
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
            # Beat's sweep (when running) races too: it may have flagged first.
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
