"""Bad input gets a clear error and changes nothing: ids, bodies, unknown API paths.

The socket's malformed frames are in tests/matches/test_socket_limits.py, the engine CLI's bad
batch lines in tests/engine/test_cli_bad_input.py.
"""

from __future__ import annotations

import re

import pytest
from django.contrib.auth.models import User
from django.test import Client

from matches.models import Event, Match, Table

pytestmark = pytest.mark.django_db


@pytest.fixture
def logged_in() -> Client:
    User.objects.create_user("bad-input", password="bad-input-pass-1")
    client = Client()
    assert client.login(username="bad-input", password="bad-input-pass-1")
    return client


def _operations_with_an_id(client: Client) -> list[tuple[str, str]]:
    schema = client.get("/api/schema/", HTTP_ACCEPT="application/json").json()
    found = []
    for path, operations in schema["paths"].items():
        if "{" not in path:
            continue
        for method in operations:
            if method in ("get", "post", "put", "patch", "delete"):
                found.append((method, path))
    return found


@pytest.mark.parametrize("bad_id", ["abc", "1.5", "-1", "%20", "1e3"])
def test_every_api_route_with_an_id_answers_a_non_numeric_id_with_the_json_404(logged_in,
                                                                              bad_id):
    operations = _operations_with_an_id(logged_in)
    assert len(operations) >= 10  # matches, their actions/dice/events/mat, tables, tournaments
    for method, path in operations:
        url = re.sub(r"\{[^}]+\}", bad_id, path)
        response = getattr(logged_in, method)(url, data={}, content_type="application/json")
        assert response.status_code == 404, (method, url, response.content[:200])
        assert response.json()["error"] == "not_found", (method, url)


def test_an_unknown_api_path_is_the_json_404_too(logged_in):
    for url in ("/api/nothing/", "/api/matches/1/nothing/", "/api/tables/abc/def/"):
        response = logged_in.get(url)
        assert response.status_code == 404 and response.json()["error"] == "not_found"


def test_an_oversized_body_gets_the_json_413_and_changes_nothing(logged_in, settings):
    tables = Table.objects.count()
    body = '{"name": "' + "x" * (settings.TAVLA_API_MAX_BODY_BYTES + 10) + '"}'
    response = logged_in.post("/api/tables/", data=body, content_type="application/json")
    assert response.status_code == 413
    assert response.json()["error"] == "too_large"
    assert Table.objects.count() == tables


def test_a_body_over_djangos_own_limit_without_our_check_is_still_json(logged_in, settings):
    settings.TAVLA_API_MAX_BODY_BYTES = 10**9  # let it through to Django's limit
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 1000
    body = '{"name": "' + "x" * 2000 + '"}'
    response = logged_in.post("/api/tables/", data=body, content_type="application/json")
    assert response.status_code in (400, 413)
    assert response.json()["error"] in ("too_large", "bad_request")


def test_deeply_nested_json_in_an_api_body_is_a_clear_400(logged_in):
    response = logged_in.post("/api/tables/", data="[" * 50_000,
                              content_type="application/json")
    assert response.status_code == 400 and response.json()["error"] == "bad_request"
    assert not Event.objects.exists() and not Match.objects.exists()
