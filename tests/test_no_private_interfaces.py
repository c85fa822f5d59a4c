"""No code of the project reaches into Django's, Twisted's, daphne's or kombu's private parts.

Each of these was used once (issue 22): Django's SQL compiler to build the action path's
statements, Twisted's transport buffers to write frames early, a swapped daphne module
attribute to replace its HTTP factory, and the Redis list under kombu's queue. They tie the
project to one release of each; the public interfaces do the same work. ``Model._meta`` is
public (documented) and allowed."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

BASE_DIR = Path(__file__).resolve().parent.parent
PACKAGES = ("tavla", "matches", "tournaments", "benchmarks")

FORBIDDEN: dict[str, str] = {
    # Django's compiler and queryset internals.
    r"\bklass_info\b": "Django's compiler internals",
    r"\bget_related_populators\b": "Django's queryset internals",
    r"\bget_converters\b": "Django's compiler internals",
    r"\bget_compiler\(": "Django's compiler",
    r"\bdjango\.db\.models\.sql\b": "Django's SQL internals",
    r"\b_tavla_loaded\b": "state kept on a model instance",
    r"\bstatements\._": "the adapter's private names",
    # Twisted's transport internals.
    r"\b(transport|self\.transport)\._\w+": "Twisted's transport internals",
    r"\b_tempDataBuffer\b|\b_writeDisconnected\b|\bdataBuffer\b": "Twisted's write buffer",
    # Replacing a name inside a library module.
    r"^\s*(daphne|twisted|kombu|celery|django|channels|autobahn)(\.\w+)+\s*=[^=]":
        "a library module's attribute replaced",
    # kombu's Redis list under a queue.
    r"\.llen\(": "the Redis list under a kombu queue",
    r"\bkombu\.transport\.redis\b": "kombu's Redis transport internals",
    # Django REST framework's declared-field table (get_fields is the public hook).
    r"\b_declared_fields\b": "DRF's serializer internals",
}


def _sources() -> list[Path]:
    return sorted(path for package in PACKAGES for path in (BASE_DIR / package).rglob("*.py")
                  if "migrations" not in path.parts)


def _findings(text: str) -> list[str]:
    found = []
    for number, line in enumerate(text.splitlines(), 1):
        for pattern, what in FORBIDDEN.items():
            if re.search(pattern, line):
                found.append(f"{number}: {what}: {line.strip()}")
    return found


def test_the_search_covers_the_project() -> None:
    names = {path.relative_to(BASE_DIR).as_posix() for path in _sources()}
    assert {"matches/services/statements.py", "tavla/site/daphne_protocol.py",
            "tavla/site/health.py", "benchmarks/flag_latency.py"} <= names


@pytest.mark.parametrize("line", [
    "klass_info = compiler.klass_info",
    "from django.db.models.query import get_related_populators",
    "for position, (found, expression) in compiler.get_converters(columns).items():",
    "sql, params = queryset.query.get_compiler(connection=connection).as_sql()",
    "match._tavla_loaded = values",
    "and not transport._tempDataBuffer",
    "idle = transport._writeDisconnected",
    "    daphne.server.HTTPFactory = TavlaHTTPFactory",
    "depth = int(redis_client().llen(CLOCK_QUEUE))",
    'PlayerAnalysisSerializer._declared_fields["errors"] = serializers.IntegerField()',
])
def test_each_use_of_today_is_caught(line: str) -> None:
    assert _findings(line)


@pytest.mark.parametrize("line", [
    "meta = Match._meta",
    "fields = list(model._meta.concrete_fields)",
    "WebSocketFactory.protocol = TavlaWebSocketProtocol",
    "peer = self.transport.getPeer()",
    "declared = channel.queue_declare(queue=self.queue)",
])
def test_public_interfaces_pass(line: str) -> None:
    assert not _findings(line)


def test_no_private_interface_of_a_framework_is_used() -> None:
    found = [f"{path.relative_to(BASE_DIR)}:{finding}" for path in _sources()
             for finding in _findings(path.read_text(encoding="utf-8"))]
    assert found == []
