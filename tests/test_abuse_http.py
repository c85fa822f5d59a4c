"""Brute force and floods over HTTP: login lockout (django-axes) and REST throttling (DRF)."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.test import Client

pytestmark = pytest.mark.django_db

PASSWORD = "right-horse-battery-9"


@pytest.fixture
def victim() -> User:
    return User.objects.create_user("victim", password=PASSWORD, is_staff=True)


def _login(client: Client, url: str, password: str) -> int:
    if url == "/api/token/":
        return client.post(url, {"username": "victim", "password": password},
                           content_type="application/json").status_code
    response = client.post(url, {"username": "victim", "password": password})
    return response.status_code


@pytest.mark.parametrize("url", ["/accounts/login/", "/admin/login/", "/api/token/"])
def test_wrong_passwords_lock_the_username_at_that_address_even_for_the_right_one(
        url, victim, settings):
    settings.TAVLA_API_RATES = {**settings.TAVLA_API_RATES, "token": "1000/min"}
    attacker = Client(REMOTE_ADDR="203.0.113.7")
    statuses = [_login(attacker, url, f"guess-{n}") for n in range(12)]
    assert 429 in statuses and statuses.index(429) <= settings.AXES_FAILURE_LIMIT
    assert _login(attacker, url, PASSWORD) == 429  # the right password, too late
    assert "_auth_user_id" not in attacker.session
    if url == "/api/token/":
        locked = attacker.post(url, {"username": "victim", "password": PASSWORD},
                               content_type="application/json")
        assert locked.json()["error"] == "locked_out" and int(locked["Retry-After"]) > 0
    # The player at another address is not locked out by someone else's guesses.
    assert _login(Client(REMOTE_ADDR="198.51.100.2"), url, PASSWORD) in (200, 302)


def test_a_successful_login_resets_the_count(victim):
    client = Client(REMOTE_ADDR="203.0.113.8")
    for n in range(3):
        assert _login(client, "/accounts/login/", f"guess-{n}") == 200
    assert _login(client, "/accounts/login/", PASSWORD) == 302
    for n in range(3):
        assert _login(Client(REMOTE_ADDR="203.0.113.8"), "/accounts/login/", f"again-{n}") == 200


def test_anonymous_api_clients_are_throttled_with_the_json_error(settings):
    settings.TAVLA_API_RATES = {**settings.TAVLA_API_RATES, "anonymous": "5/min"}
    client = Client(REMOTE_ADDR="203.0.113.9")
    statuses = [client.get("/api/tables/").status_code for _ in range(5)]
    assert statuses == [200] * 5
    refused = client.get("/api/tables/")
    assert refused.status_code == 429
    body = refused.json()
    assert body["error"] == "rate_limited" and "throttled" in body["detail"].lower()
    assert int(refused["Retry-After"]) > 0
    # Another address is counted on its own.
    assert Client(REMOTE_ADDR="203.0.113.10").get("/api/tables/").status_code == 200


def test_logged_in_api_clients_are_throttled_per_user(settings, victim):
    settings.TAVLA_API_RATES = {**settings.TAVLA_API_RATES, "user": "3/min",
                                "anonymous": "1000/min"}
    client = Client()
    assert client.login(username="victim", password=PASSWORD)
    assert [client.get("/api/players/me/").status_code for _ in range(3)] == [200] * 3
    refused = client.get("/api/players/me/")
    assert refused.status_code == 429 and refused.json()["error"] == "rate_limited"


def test_the_token_endpoint_has_its_own_lower_rate(settings):
    settings.TAVLA_API_RATES = {**settings.TAVLA_API_RATES, "token": "2/min"}
    client = Client(REMOTE_ADDR="203.0.113.11")
    for n in range(2):
        assert client.post("/api/token/", {"username": f"u{n}", "password": "x"},
                           content_type="application/json").status_code == 401
    refused = client.post("/api/token/", {"username": "u9", "password": "x"},
                          content_type="application/json")
    assert refused.status_code == 429 and refused.json()["error"] == "rate_limited"
