"""The open sockets' places in the shared counts (``matches.live.shared_limits``), renewed.

Each admitted socket holds a lease that ends three presence heartbeats after it was last
renewed. One task per event loop renews every lease of the process in one Redis round trip
each heartbeat (as the boards' presence is renewed, ``matches.services.presence``); when the
process dies the renewals stop and the leases end on their own.
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
import weakref

from asgiref.sync import sync_to_async

from matches.live import shared_limits
from matches.services.presence import heartbeat_interval
from tavla import metrics

logger = logging.getLogger(__name__)


class Leases:
    """The leases of one event loop's sockets, and the task that renews them."""

    _by_loop: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, Leases] = (
        weakref.WeakKeyDictionary())

    def __init__(self) -> None:
        self.leases: dict[str, shared_limits.Lease] = {}
        self.task: asyncio.Task[None] | None = None

    @classmethod
    def of_running_loop(cls) -> Leases:
        loop = asyncio.get_running_loop()
        leases = cls._by_loop.get(loop)
        if leases is None:
            leases = cls._by_loop[loop] = cls()
        return leases

    def add(self, lease: shared_limits.Lease) -> None:
        self.leases[lease.member] = lease
        if self.task is None or self.task.done():
            self.task = asyncio.get_running_loop().create_task(
                self._renew(), name="socket-leases",
                context=contextvars.Context())  # for every socket: no one socket's log ids

    def remove(self, lease: shared_limits.Lease) -> None:
        self.leases.pop(lease.member, None)
        if not self.leases and self.task is not None:
            self.task.cancel()
            self.task = None

    async def _renew(self) -> None:
        while True:
            await asyncio.sleep(heartbeat_interval())
            leases = list(self.leases.values())
            try:
                await sync_to_async(shared_limits.renew, thread_sensitive=False)(leases)
            except Exception:  # noqa: BLE001 - logged; the next heartbeat tries again
                metrics.record_error("limits")
                logger.exception("socket limits: could not renew %d leases", len(leases))
