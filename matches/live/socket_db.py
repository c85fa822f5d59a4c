"""The sockets' door to the database: a pool of ``DB_THREADS`` threads.

Channels' ``database_sync_to_async`` runs every call of a process on one thread by default
(thread-sensitive), so one board's slow read made every other board of the process wait.
Here commands and reads of different boards run side by side, and what a call pushes to the
boards is handed back to the socket's loop, not waited for (:mod:`matches.services.broadcast`).

Each call takes a database connection and gives it back when it ends (Channels closes old
connections around every call): on PostgreSQL a web process's connections come from
Django's pool, whose size (``TAVLA_DB_POOL_SIZE`` in :mod:`tavla.settings`) leaves room for
these threads, Channels' own thread and a few HTTP requests at once."""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from channels.db import database_sync_to_async

from matches.services import broadcast

DB_THREADS = 4
_db_pool = ThreadPoolExecutor(max_workers=DB_THREADS, thread_name_prefix="tavla-db")


def db(function: Any) -> Any:
    """``database_sync_to_async(function)`` on this module's pool."""
    in_thread = database_sync_to_async(function, thread_sensitive=False, executor=_db_pool)

    async def call(*args: Any, **kwargs: Any) -> Any:
        broadcast.pushing_from(asyncio.get_running_loop())
        return await in_thread(*args, **kwargs)

    return call
