"""Presence in Redis: a board lives for a TTL unless refreshed; after Redis lost its data
(no epoch, or an epoch of another server run) presence is unknown, never "absent"."""

from __future__ import annotations

import asyncio
import time

import pytest

from matches.services import presence
from tavla.redis_client import redis_client
from tests.matches.conftest import forget_presence

IDS = {"table_id": 987_654, "player_id": 123_456}


@pytest.fixture(autouse=True)
def _clean() -> None:
    forget_presence(**IDS)


def test_a_board_not_refreshed_expires_after_the_ttl_and_a_refresh_keeps_it() -> None:
    t0 = time.time()
    presence.connected(**IDS, channel_name="b1", now=t0)
    assert presence.is_connected(**IDS, now=t0 + presence.ttl() - 1)
    assert not presence.is_connected(**IDS, now=t0 + presence.ttl() + 0.01)
    presence.refresh(**IDS, channel_name="b1", now=t0 + presence.heartbeat_interval())
    assert presence.is_connected(**IDS, now=t0 + presence.ttl() + 0.01)


def test_the_last_live_board_closing_stamps_since_even_if_another_expired() -> None:
    t0 = time.time()
    presence.connected(**IDS, channel_name="dead", now=t0 - 10 * presence.ttl())
    presence.connected(**IDS, channel_name="b1", now=t0)
    presence.disconnected(**IDS, channel_name="b1", now=t0 + 1)
    assert presence.disconnected_since(**IDS) == t0 + 1
    assert presence.came_back(**IDS, flagged_at=t0) is True
    assert presence.came_back(**IDS, flagged_at=t0 + 2) is False


def test_presence_is_unknown_until_the_store_has_existed_for_the_warm_up() -> None:
    client = redis_client()
    client.delete(presence.EPOCH_KEY)  # as after a flush
    assert not presence.is_complete()
    assert presence.absent_at_flag(**IDS) is None
    assert presence.came_back(**IDS, flagged_at=time.time()) is None
    presence.keep_epoch()
    assert not presence.is_complete()  # boards have not had the time to announce themselves
    assert presence.is_complete(now=time.time() + presence.warm_up())
    client.delete(presence.EPOCH_KEY)
    presence.keep_epoch(now=time.time() - presence.warm_up())
    assert presence.is_complete()
    assert presence.absent_at_flag(**IDS) is True
    presence.connected(**IDS, channel_name="b1")
    assert presence.absent_at_flag(**IDS) is False


def test_an_epoch_of_another_redis_run_is_started_again() -> None:
    # A restart that kept its data (a snapshot) still lost the boards opened since it.
    client = redis_client()
    client.set(presence.EPOCH_KEY, f"{time.time() - 3600!r} some-older-run-id")
    assert not presence.is_complete()
    presence.keep_epoch()
    assert not presence.is_complete()
    assert presence.is_complete(now=time.time() + presence.warm_up())


def test_a_board_s_epoch_mark_gets_the_run_id_and_keeps_its_time() -> None:
    client = redis_client()
    client.delete(presence.EPOCH_KEY)
    t0 = time.time() - 100
    presence.connected(**IDS, channel_name="b1", now=t0)  # a board marks it first
    presence.keep_epoch()
    assert presence.is_complete()
    since, _sep, run_id = client.get(presence.EPOCH_KEY).decode().partition(" ")
    assert float(since) == t0 and run_id == client.info("server")["run_id"]


def test_one_heartbeat_refreshes_every_open_board_of_the_process() -> None:
    other = {"table_id": IDS["table_id"], "player_id": IDS["player_id"] + 1}
    forget_presence(**other)
    t0 = time.time()
    presence.refresh_all([{**IDS, "channel_name": "b1"}, {**other, "channel_name": "b2"}],
                         now=t0)
    for ids in (IDS, other):
        assert presence.is_connected(**ids, now=t0 + presence.ttl() - 1)
        assert not presence.is_connected(**ids, now=t0 + presence.ttl() + 0.01)
    presence.refresh_all([], now=t0)  # no board open: nothing to send
    forget_presence(**other)


async def test_the_process_heartbeat_runs_while_a_board_is_open(settings) -> None:
    """Boards share one refreshing task per event loop: it refreshes them every interval,
    and stops when the last board closes."""
    settings.TAVLA_PRESENCE_HEARTBEAT = 0.2
    boards = [presence.BoardHeartbeat(**IDS, channel_name=f"b{i}") for i in range(2)]
    for board in boards:
        await board.open()
    beats = presence.board_heartbeats()
    task = beats.task
    assert task is not None and len(beats.members) == 2
    redis_client().delete(f"tavla:presence:{IDS['table_id']}:{IDS['player_id']}")  # lost
    await asyncio.sleep(0.5)  # the heartbeat puts both back
    assert redis_client().zcard(f"tavla:presence:{IDS['table_id']}:{IDS['player_id']}") == 2
    await boards[0].close()
    assert beats.task is task and not task.done()
    await boards[1].close()
    await asyncio.sleep(0)
    assert beats.task is None and task.cancelled()
