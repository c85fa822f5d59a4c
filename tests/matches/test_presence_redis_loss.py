"""Presence survives Redis losing its data: real daphne, worker and beat on a private Redis
(a ``redis-server`` of this test's own, on a free port, without persistence), real boards.

A player whose board is open when Redis is flushed, or restarted, and whose flag falls right
after, is never recorded "absent" and never forfeited for it; once the heartbeats have put
the boards back, presence is exact again: an open board's flag is "present", and a player
with no board open still flags "absent" and forfeits after the grace period.
"""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import redis
from django.test import Client
from websockets.sync.client import ClientConnection, connect
from websockets.typing import Origin

from matches import services
from matches.models import LogKind, Match, MatchStatus, Player, Table
from matches.services import presence
from tavla.embedded_redis import ping, redis_server_executable
from tavla.queues import queue_names
from tests.conftest import (
    ARTIFACTS_DIR,
    BASE_DIR,
    CeleryBeatProcess,
    start_celery_beat,
    subprocess_env,
)
from tests.e2e.servers import WebServer, free_port, start_web_server
from tests.processes import stop_process

pytestmark = [pytest.mark.celery, pytest.mark.slow, pytest.mark.django_db(transaction=True)]

HEARTBEAT = 2.0  # TAVLA_PRESENCE_HEARTBEAT for the servers: TTL 6 s, warm-up 3 s
DELAY = 8.0  # per move; after a flag, the flagged player plays on delay only
GRACE = 2.0


@dataclass
class PrivateRedis:
    port: int
    directory: Path
    process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        self.process = subprocess.Popen(
            [redis_server_executable(), "--port", str(self.port), "--bind", "127.0.0.1",
             "--save", "", "--appendonly", "no", "--dir", str(self.directory)],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 10
        while not ping(self.port):
            assert time.monotonic() < deadline, "the private redis-server did not start"
            time.sleep(0.05)

    def stop(self) -> None:
        if self.process is not None:
            stop_process(self.process, timeout=5)

    def client(self) -> redis.Redis:
        return redis.Redis(host="127.0.0.1", port=self.port)


@pytest.fixture
def private_redis(tmp_path: Path) -> Iterator[PrivateRedis]:
    server = PrivateRedis(port=free_port(), directory=tmp_path)
    server.start()
    try:
        yield server
    finally:
        server.stop()


@dataclass
class Site:
    web: WebServer
    worker: subprocess.Popen[bytes]
    beat: CeleryBeatProcess


def start_worker(env: dict[str, str]) -> subprocess.Popen[bytes]:
    """A worker on every queue; waited for by its log (it answers pings on its own Redis,
    not on the one this test process talks to)."""
    ARTIFACTS_DIR.mkdir(exist_ok=True)
    log_path = ARTIFACTS_DIR / f"celery-presence-{free_port()}.log"
    with log_path.open("wb") as log:
        process = subprocess.Popen(
            [sys.executable, "-m", "celery", "-A", "tavla", "worker", "--pool=solo",
             "--loglevel=INFO", "--without-mingle", "--without-gossip",
             "-Q", ",".join(queue_names()),
             "-n", f"presence-{free_port()}@%h"],
            cwd=BASE_DIR, env=env, stdin=subprocess.DEVNULL, stdout=log,
            stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 60
    while " ready." not in log_path.read_text(errors="replace"):
        assert process.poll() is None, log_path.read_text(errors="replace")
        assert time.monotonic() < deadline, log_path.read_text(errors="replace")
        time.sleep(0.1)
    return process


@pytest.fixture
def site(private_redis: PrivateRedis, transactional_db: None) -> Iterator[Site]:
    # One solo worker reads every queue here: no gnubg analysis to delay its sweeps.
    env = subprocess_env(REDIS_URL=private_redis.url, TAVLA_SCRIPTED_DICE="1",
                         TAVLA_PRESENCE_HEARTBEAT=str(HEARTBEAT),
                         TAVLA_ANALYSE_FINISHED_MATCHES="0")
    with ExitStack() as stack:
        web = start_web_server(env, name="presence")
        stack.callback(web.stop)
        worker = start_worker(env)
        stack.callback(stop_process, worker)
        beat = start_celery_beat(env)
        stack.callback(beat.stop)
        yield Site(web=web, worker=worker, beat=beat)


def open_board(stack: ExitStack, web: WebServer, table_id: int,
               player: Player) -> ClientConnection:
    """The player's board of the table, open until the stack closes."""
    client = Client()
    client.force_login(player.user)
    socket = stack.enter_context(connect(
        f"{web.ws_url}/ws/tables/{table_id}/", origin=Origin(web.url),
        additional_headers={"Cookie": f"sessionid={client.cookies['sessionid'].value}"},
        open_timeout=10))
    socket.recv(timeout=10)  # its state: the board is open
    return socket


def clock_options(*, delay: float, reserve: float) -> dict[str, Any]:
    return {"match_length": 9, "clock_enabled": True, "clock_delay": delay,
            "clock_reserve_seconds": reserve, "clock_reserve_per_point": 0,
            "grace_seconds": GRACE}


def clocked(start_match: Callable[..., Match], *, deadline_at: float) -> Match:
    """A 9-point match whose player 0 (on roll) flags at ``deadline_at`` (epoch s)."""
    reserve = deadline_at - time.time() - DELAY
    assert reserve > 0.2, "the test set up too slowly"
    return start_match(dice=[[3, 1]], **clock_options(delay=DELAY, reserve=reserve))


def first_flag(match: Match) -> dict[str, Any] | None:
    event = match.events.filter(kind=LogKind.TIMEOUT).order_by("sequence").first()
    return None if event is None else dict(event.payload)


def wait_until(stamp: float) -> None:
    time.sleep(max(0.0, stamp - time.time()))


def just_refreshed(redis_server: PrivateRedis, table_id: int, player_id: int) -> None:
    """Return right after the heartbeat of the player's board: the next one is a whole
    interval away."""
    key = f"tavla:presence:{table_id}:{player_id}"
    client = redis_server.client()
    before = client.zrange(key, 0, -1, withscores=True)
    deadline = time.monotonic() + 3 * HEARTBEAT
    while client.zrange(key, 0, -1, withscores=True) == before:
        assert time.monotonic() < deadline, "the board's heartbeat stopped"
        time.sleep(0.01)


def lose_presence(how: str, redis_server: PrivateRedis) -> None:
    if how == "flush":
        redis_server.client().flushall()
    else:  # a restart without persistence: everything in it is gone
        redis_server.stop()
        redis_server.start()


@pytest.mark.parametrize("how", ["flush", "restart"])
def test_losing_redis_under_open_boards_costs_no_connected_player_anything(
        how: str, site: Site, private_redis: PrivateRedis, make_player: Callable[..., Player],
        start_match: Callable[..., Match], settings: Any) -> None:
    # Read the servers' presence from here, as they do.
    settings.REDIS_URL, settings.TAVLA_PRESENCE_HEARTBEAT = private_redis.url, HEARTBEAT
    start = time.time()
    # "later" flags once the heartbeats have put the boards back; "away" has no board open
    # and must still flag absent and forfeit (so this test can fail).
    later = clocked(start_match, deadline_at=start + DELAY + 7)
    away = clocked(start_match, deadline_at=start + DELAY + 7)
    # "soon": its player 0 sits with the board open; the match starts right after the loss
    # and flags 0.3 s later, well before that board's next heartbeat. (With no delay, it
    # flags again on every turn; player 1 has no board, and may well forfeit.)
    alice, bob = make_player(), make_player()
    table = services.table_create(name="soon", **clock_options(delay=0, reserve=0.3))
    Table.objects.filter(pk=table.pk).update(scripted_dice=[[3, 1]])
    services.table_sit(table_id=table.pk, player=alice)
    with ExitStack() as boards:
        open_board(boards, site.web, table.pk, alice)
        open_board(boards, site.web, later.table_id, later.player0)
        wait_until(start + 2 * HEARTBEAT)
        assert presence.is_complete()
        assert presence.is_connected(table_id=table.pk, player_id=alice.pk)
        just_refreshed(private_redis, table.pk, alice.pk)
        lose_presence(how, private_redis)
        lost_at = time.time()
        assert not presence.is_connected(table_id=table.pk, player_id=alice.pk)
        services.table_sit(table_id=table.pk, player=bob)
        soon = Match.objects.get(table_id=table.pk)
        assert soon.deadline is not None
        assert soon.deadline.timestamp() - lost_at < 0.5
        # Every flag has fallen, the grace has passed, and a sweep after it.
        wait_until(start + DELAY + 7 + GRACE + 2)
        soon_flag, later_flag, away_flag = (first_flag(m) for m in (soon, later, away))
        assert soon_flag is not None and later_flag is not None and away_flag is not None, \
            site.beat.log()
        if how == "flush":  # after a restart the worker takes a moment to reconnect
            assert soon_flag["flagged_at"] - lost_at < HEARTBEAT, "flagged after a heartbeat"
        assert soon_flag["absent"] is not True, soon_flag  # unknown right after the loss
        assert later_flag["absent"] is False, later_flag  # the heartbeat put the board back
        assert away_flag["absent"] is True, away_flag
        for match in (soon, later):  # nothing against player 0, whose board is open
            events = match.events.filter(kind__in=[LogKind.TIMEOUT, LogKind.FORFEIT],
                                         payload__action__player=0)
            assert not events.filter(kind=LogKind.FORFEIT).exists()
            assert not events.filter(payload__absent=True).exists()
        later.refresh_from_db()
        assert later.status == MatchStatus.PLAYING
        away.refresh_from_db()
        assert away.status == MatchStatus.FORFEITED and away.winner_id == away.player1_id
    for match in (soon, later):
        try:
            services.match_void(match_id=match.pk, referee=None, reason="test over")
        except services.ServiceError:
            pass


def test_a_crashed_web_process_s_boards_count_as_closed_within_the_ttl(
        site: Site, private_redis: PrivateRedis, make_player: Callable[..., Player],
        settings: Any) -> None:
    settings.REDIS_URL, settings.TAVLA_PRESENCE_HEARTBEAT = private_redis.url, HEARTBEAT
    player = make_player()
    table = services.table_create(name="crash")
    services.table_sit(table_id=table.pk, player=player)
    ids = {"table_id": table.pk, "player_id": player.pk}
    with ExitStack() as boards:
        open_board(boards, site.web, table.pk, player)
        time.sleep(1.5 * HEARTBEAT)
        assert presence.is_connected(**ids)  # kept alive past its first interval
        site.web.process.kill()
        killed = time.monotonic()
        while presence.is_connected(**ids):
            assert time.monotonic() - killed < presence.ttl() + 1, "the board never expired"
            time.sleep(0.1)
