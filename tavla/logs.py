"""The ids on every log line: the request (or socket, or Celery task) and the match.

``TAVLA_LOG_FORMAT=json`` makes every line one JSON object (python-json-logger) with the
fields ``time``, ``level``, ``logger``, ``message``, ``request_id`` and ``match_id`` (``null``
when there is none), and a traceback as ``exc_info``. The ids live in context variables, so
they follow a request through ``sync_to_async`` threads and a socket through its task:

* ``request_id``: set for each HTTP request and each socket by
  :class:`tavla.site.request_ids.RequestIdMiddleware` (the ``X-Request-ID`` a trusted proxy
  sent, else a new one, returned in the response's ``X-Request-ID``); in a Celery worker, the
  task's id.
* ``match_id``: set by the one door (:func:`matches.services.change.match_change`) while it
  changes a match.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from celery.signals import task_postrun, task_prerun

request_id: ContextVar[str | None] = ContextVar("tavla_request_id", default=None)
match_id: ContextVar[int | None] = ContextVar("tavla_match_id", default=None)


def new_request_id() -> str:
    return uuid.uuid4().hex


class ContextFilter(logging.Filter):
    """Give every record the ids of the context it was logged in."""

    def filter(self, record: logging.LogRecord) -> bool:
        record.request_id = request_id.get()
        record.match_id = match_id.get()
        return True


@contextmanager
def match_context(match: int) -> Iterator[None]:
    """Lines logged inside carry ``match_id``."""
    token = match_id.set(match)
    try:
        yield
    finally:
        match_id.reset(token)


def logging_config(log_format: str, level: str) -> dict[str, Any]:
    """Django's ``LOGGING`` for ``TAVLA_LOG_FORMAT`` (``text`` or ``json``)."""
    if log_format not in ("text", "json"):
        raise ValueError(f"TAVLA_LOG_FORMAT must be 'text' or 'json', not {log_format!r}")
    formatters: dict[str, Any] = {
        "text": {"format": "%(message)s"},  # as Python's default
        "json": {
            "()": "pythonjsonlogger.json.JsonFormatter",
            "fmt": "%(asctime)s %(levelname)s %(name)s %(message)s",
            "rename_fields": {"asctime": "time", "levelname": "level", "name": "logger"},
        },
    }
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "filters": {"ids": {"()": "tavla.logs.ContextFilter"}},
        "formatters": formatters,
        "handlers": {"console": {"class": "logging.StreamHandler", "formatter": log_format,
                                 "filters": ["ids"]}},
        "root": {"handlers": ["console"], "level": level},
        "loggers": {
            # Django's own console handler would print its lines a second time, unformatted.
            "django": {"handlers": [], "level": "INFO", "propagate": True},
            # django-axes logs every login at INFO; failures and lockouts are WARNING.
            "axes": {"level": "WARNING"},
        },
    }


# In a Celery worker the task's id is the request id of what it logs.
_task_tokens: dict[str, Any] = {}


@task_prerun.connect
def _task_started(task_id: str | None = None, **_kwargs: Any) -> None:
    if task_id:
        _task_tokens[task_id] = request_id.set(task_id)


@task_postrun.connect
def _task_finished(task_id: str | None = None, **_kwargs: Any) -> None:
    token = _task_tokens.pop(task_id or "", None)
    if token is not None:
        request_id.reset(token)
