"""Several calls started at the same moment, each on its own thread and database connection
(committed data: ``django_db(transaction=True)``), for the tests of bounds that two requests
must not both pass."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from django.db import connections


def at_once(call: Callable[[], Any], times: int) -> list[Any]:
    """Run ``call`` ``times`` times at once; what each returned, or the exception it raised."""
    barrier = threading.Barrier(times)
    results: list[Any] = [None] * times

    def run(index: int) -> None:
        try:
            barrier.wait(timeout=10)
            results[index] = call()
        except Exception as error:  # noqa: BLE001 - the caller's assertions report it
            results[index] = error
        finally:
            connections.close_all()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(times)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert not any(thread.is_alive() for thread in threads)
    return results
