"""Calls started at the same moment, each on its own thread and database connection
(committed data: ``django_db(transaction=True)``), for the tests of what two requests must not
both do: pass a bound, apply one action twice."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from django.db import connections


def race(*calls: Callable[[], Any]) -> list[Any]:
    """Run ``calls`` in threads released together; what each returned, or the exception it
    raised (the caller's assertions report it)."""
    barrier = threading.Barrier(len(calls))
    results: list[Any] = [None] * len(calls)

    def run(index: int, call: Callable[[], Any]) -> None:
        try:
            barrier.wait(timeout=10)
            results[index] = call()
        except Exception as error:  # noqa: BLE001 - the caller's assertions report it
            results[index] = error
        finally:
            connections.close_all()

    threads = [threading.Thread(target=run, args=(i, call)) for i, call in enumerate(calls)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert not any(thread.is_alive() for thread in threads)
    return results


def at_once(call: Callable[[], Any], times: int) -> list[Any]:
    """``call`` run ``times`` times at once (:func:`race`)."""
    return race(*[call] * times)
