"""A socket's database work hands its pushes to the socket's loop and goes on; a push that
fails there is logged, and the change it reports stays made."""

from __future__ import annotations

import asyncio
import contextvars
import logging
import threading
import time
from typing import Any

import pytest
from channels.layers import get_channel_layer

from matches.services import broadcast


async def _in_database_thread(function: Any) -> Any:
    """Run ``function`` in another thread with this context, as ``database_sync_to_async``
    does for the consumers."""
    context = contextvars.copy_context()
    return await asyncio.get_running_loop().run_in_executor(None, context.run, function)


@pytest.mark.asyncio
async def test_a_push_from_a_sockets_database_thread_is_sent_by_its_loop(
        monkeypatch: pytest.MonkeyPatch) -> None:
    layer = get_channel_layer()
    channel = await layer.new_channel()
    await layer.group_add("table.test-push", channel)
    real_send = layer.group_send
    sent_on: list[str] = []

    async def slow_send(group: str, message: dict[str, Any]) -> None:
        sent_on.append(threading.current_thread().name)
        await asyncio.sleep(0.5)  # a slow Redis: the database thread must not wait for it
        await real_send(group, message)

    monkeypatch.setattr(layer, "group_send", slow_send)
    try:
        broadcast.pushing_from(asyncio.get_running_loop())

        def push() -> float:
            started = time.perf_counter()
            broadcast.broadcast_now("table.test-push", {"type": "match.state", "n": 1})
            return time.perf_counter() - started

        waited = await _in_database_thread(push)
        message = await asyncio.wait_for(layer.receive(channel), timeout=5)
        assert message == {"type": "match.state", "n": 1}
        assert waited < 0.25, waited
        assert sent_on == [threading.current_thread().name]  # sent by the socket's loop
    finally:
        await layer.group_discard("table.test-push", channel)


@pytest.mark.asyncio
async def test_a_failed_push_is_logged_not_raised(monkeypatch: pytest.MonkeyPatch,
                                                  caplog: pytest.LogCaptureFixture) -> None:
    layer = get_channel_layer()

    async def broken(group: str, message: dict[str, Any]) -> None:
        raise ConnectionError("Redis is away")

    monkeypatch.setattr(layer, "group_send", broken)
    broadcast.pushing_from(asyncio.get_running_loop())
    with caplog.at_level(logging.ERROR, logger="matches.services.broadcast"):
        await _in_database_thread(
            lambda: broadcast.broadcast_now("table.test-push", {"type": "match.state"}))
        for _ in range(50):  # the send runs on this loop, after the thread returned
            if caplog.records:
                break
            await asyncio.sleep(0.01)
    assert any("push to the boards failed" in r.getMessage() for r in caplog.records)
    assert not broadcast._sending
