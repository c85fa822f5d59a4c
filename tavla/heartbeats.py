"""What a process renews in Redis for its open sockets, renewed together.

Open boards (``matches.services.presence``), open notice sockets (``matches.services.online``)
and the sockets' places in the shared counts (``matches.live.leases``) each live in Redis
only as long as their process keeps renewing them, so that a process that dies takes its
sockets with it. Renewing each socket by itself was 3 % of a web process with a thousand
boards open (``benchmarks/live_load.py``); instead one task per event loop and kind renews
every member of that kind in one call (one Redis round trip) each heartbeat, and runs only
while there is a member.
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
import weakref
from collections.abc import Callable, Hashable
from typing import Any

from asgiref.sync import sync_to_async
from django.conf import settings

logger = logging.getLogger(__name__)


def heartbeat_interval() -> float:
    """Seconds between two renewals (``TAVLA_PRESENCE_HEARTBEAT``)."""
    return float(getattr(settings, "TAVLA_PRESENCE_HEARTBEAT", 10.0))


class Heartbeats:
    """The members of one kind in one event loop, and the task that renews them all.

    ``renew`` takes the list of members and renews them in one round trip (it runs in a
    thread: it may block); when it fails, ``on_error`` is called and the error logged, and
    the next heartbeat tries again: a Redis hiccup never fails a socket.
    """

    _by_loop: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[str, Heartbeats]] = (
        weakref.WeakKeyDictionary())

    def __init__(self, kind: str, renew: Callable[[list[Any]], None],
                 on_error: Callable[[], None] | None = None) -> None:
        self.kind = kind
        self.renew = renew
        self.on_error = on_error
        self.members: dict[Hashable, Any] = {}
        self.task: asyncio.Task[None] | None = None

    @classmethod
    def of_running_loop(cls, kind: str, renew: Callable[[list[Any]], None],
                        on_error: Callable[[], None] | None = None) -> Heartbeats:
        """The running loop's heartbeats of ``kind``, made on first use."""
        kinds = cls._by_loop.setdefault(asyncio.get_running_loop(), {})
        beats = kinds.get(kind)
        if beats is None:
            beats = kinds[kind] = cls(kind, renew, on_error)
        return beats

    def add(self, key: Hashable, member: Any) -> None:
        self.members[key] = member
        if self.task is None or self.task.done():
            self.task = asyncio.get_running_loop().create_task(
                self._beat(), name=f"{self.kind}-heartbeats",
                context=contextvars.Context())  # for every member: no one socket's log ids

    def remove(self, key: Hashable) -> None:
        self.members.pop(key, None)
        if not self.members and self.task is not None:
            self.task.cancel()
            self.task = None

    async def _beat(self) -> None:
        while True:
            await asyncio.sleep(heartbeat_interval())
            members = list(self.members.values())
            try:
                await sync_to_async(self.renew, thread_sensitive=False)(members)
            except Exception:  # noqa: BLE001 - logged; the next heartbeat tries again
                if self.on_error is not None:
                    self.on_error()
                logger.exception("%s: could not renew %d", self.kind, len(members))
