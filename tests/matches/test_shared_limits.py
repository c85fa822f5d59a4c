"""The shared socket counts in Redis (matches/live/shared_limits.py), on the test worker's real
Redis: atomic admission, every key expiring by itself, leases that end when nobody renews them
(a dead process), penalties that end, and admission when Redis is gone."""

from __future__ import annotations

import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from matches.live import shared_limits
from matches.live.shared_limits import Admission
from tavla.redis_client import redis_client


def _eventually(check: Callable[[], bool], timeout: float = 10) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, "the condition never held"
        time.sleep(0.05)


def test_admission_stops_at_the_limit_even_when_asked_at_once(settings: Any) -> None:
    settings.TAVLA_SOCKET_CONNECT_BURST = 1000
    limits = [("user:1", 5)]
    with ThreadPoolExecutor(max_workers=20) as pool:
        decisions = list(pool.map(lambda _: shared_limits.admit("user:1", limits)[0],
                                  range(40)))
    assert decisions.count(Admission.ADMITTED) == 5
    assert set(decisions) == {Admission.ADMITTED, Admission.TOO_MANY}


def test_every_key_expires_by_itself(settings: Any) -> None:
    _decision, lease = shared_limits.admit("address:192.0.2.5", [("address:192.0.2.5", 10)])
    shared_limits.penalise("user:3")
    keys = list(redis_client().scan_iter(match=f"{shared_limits.PREFIX}*"))
    assert len(keys) == 3  # the socket set, the opening bucket, the penalty
    assert all(0 < redis_client().pttl(key) <= shared_limits.lease_ms() for key in keys
               if b"penalty" not in key)
    assert 0 < redis_client().pttl(shared_limits.penalty_key("user:3")) <= 60_000
    assert lease is not None


def test_a_lease_nobody_renews_ends_and_frees_its_place(settings: Any) -> None:
    settings.TAVLA_PRESENCE_HEARTBEAT = 0.1  # leases of 0.3 s
    limits = [("user:2", 2)]
    held = [shared_limits.admit("user:2", limits)[1] for _ in range(2)]
    assert shared_limits.admit("user:2", limits)[0] is Admission.TOO_MANY
    # Renewed, they hold past their first term ...
    for _ in range(4):
        time.sleep(0.1)
        shared_limits.renew([lease for lease in held if lease is not None])
    assert shared_limits.admit("user:2", limits)[0] is Admission.TOO_MANY
    # ... and without renewals (their process died) they end on their own.
    _eventually(lambda: shared_limits.admit("user:2", limits)[0] is Admission.ADMITTED)


def test_a_released_socket_frees_its_place_at_once() -> None:
    limits = [("token:abc", 1)]
    decision, lease = shared_limits.admit("token:abc", limits)
    assert decision is Admission.ADMITTED and lease is not None
    assert shared_limits.admit("token:abc", limits)[0] is Admission.TOO_MANY
    shared_limits.release(lease)
    assert shared_limits.admit("token:abc", limits)[0] is Admission.ADMITTED


def test_opening_too_fast_and_penalties_are_per_client(settings: Any) -> None:
    settings.TAVLA_SOCKET_CONNECT_BURST, settings.TAVLA_SOCKET_CONNECT_RATE = 2, 0.01
    settings.TAVLA_SOCKET_PENALTY_SECONDS = 0.3
    assert [shared_limits.admit("user:7", [("user:7", 0)])[0] for _ in range(3)] == [
        Admission.ADMITTED, Admission.ADMITTED, Admission.TOO_FAST]
    assert shared_limits.admit("user:8", [("user:8", 0)])[0] is Admission.ADMITTED
    shared_limits.penalise("user:8")
    assert shared_limits.penalised("user:8") and not shared_limits.penalised("user:9")
    assert shared_limits.admit("user:8", [("user:8", 0)])[0] is Admission.PENALISED
    _eventually(lambda: not shared_limits.penalised("user:8"))


def test_without_redis_sockets_are_admitted(settings: Any) -> None:
    settings.REDIS_URL = "redis://127.0.0.1:1/0"  # nothing listens there
    assert shared_limits.admit("user:1", [("user:1", 1)]) == (Admission.ADMITTED, None)
    assert not shared_limits.penalised("user:1")
