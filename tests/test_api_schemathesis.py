"""Property-based run of the whole REST API from its own OpenAPI schema (schemathesis).

A few generated requests per operation, valid and invalid ones, authenticated with a player's
token, against the
real WSGI application and database: no request may get a server error, and every status
code the API answers must be one its schema documents.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, Phase, given
from hypothesis import settings as hypothesis_settings
from hypothesis.errors import Unsatisfiable
from schemathesis import GenerationMode
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import status_code_conformance

pytestmark = [pytest.mark.slow, pytest.mark.django_db]


@pytest.fixture
def api_schema(db: None) -> Iterator[Any]:
    """The schema, served by the WSGI application. Like Django's test client, keep the
    handler from closing the test's database connection after each request."""
    from django.core.signals import request_finished, request_started
    from django.db import close_old_connections

    from tavla.site.wsgi import application

    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    try:
        yield schemathesis.openapi.from_wsgi("/api/schema/", application)
    finally:
        request_started.connect(close_old_connections)
        request_finished.connect(close_old_connections)


@pytest.fixture
def token(db: None, settings: Any) -> str:
    """A player with a match in progress and a token; rates high enough for the run."""
    from django.contrib.auth.models import User
    from rest_framework.authtoken.models import Token

    from matches import services

    settings.TAVLA_API_RATES = {"anonymous": "100000/min", "user": "100000/min",
                                "token": "100000/min"}
    settings.TAVLA_CLIENT_SEED_SECONDS = 30
    players = [services.player_for_user(User.objects.create_user(name, password="pw-" + name))
               for name in ("fuzz-a", "fuzz-b")]
    table = services.table_create(name="Fuzzed table", match_length=3)
    for player in players:
        services.table_sit(table_id=table.pk, player=player)
    services.table_create(name="Empty table")
    return Token.objects.create(user=players[0].user).key


# schemathesis' own pytest plugin does not run on this pytest; its Python API does the same:
# one hypothesis run per operation of the schema.
def test_no_request_gets_a_server_error_or_an_undocumented_status(api_schema: Any,
                                                                  token: str) -> None:
    operations = [result.ok() for result in api_schema.get_all_operations()]
    assert len(operations) >= 15
    failures: list[str] = []
    for operation, mode in itertools.product(operations, GenerationMode):

        @given(case=operation.as_strategy(generation_mode=mode))
        @hypothesis_settings(max_examples=4, deadline=None, derandomize=True, database=None,
                             phases=[Phase.explicit, Phase.generate],
                             suppress_health_check=list(HealthCheck))
        def run(case: Any) -> None:
            case.call_and_validate(headers={"Authorization": f"Token {token}"},
                                   checks=[not_a_server_error, status_code_conformance])

        try:
            run()
        except Unsatisfiable:
            assert mode is GenerationMode.NEGATIVE  # nothing invalid to send: no parameters
        except (Exception, BaseExceptionGroup) as error:  # noqa: BLE001 - report all, then fail
            failures.append(f"{operation.method.upper()} {operation.path} ({mode.value}): "
                            f"{_summary(error)}")
    assert not failures, "\n".join(failures)


def _summary(error: BaseException) -> str:
    lines = [line.strip() for line in str(error).splitlines() if line.strip()]
    for sub in getattr(error, "exceptions", ()):
        lines += [line.strip() for line in str(sub).splitlines() if line.strip()][:3]
    return " | ".join(lines[:8])
