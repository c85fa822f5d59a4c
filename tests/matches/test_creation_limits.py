"""Bounds on what one client creates: tables per account per hour (``TAVLA_TABLES_PER_HOUR``,
``too_many_tables``) and accounts per address per hour (``TAVLA_SIGNUPS_PER_HOUR``, the sign-up
page's 429). Each refusal is clear and changes nothing."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.utils import timezone

from matches import services
from matches.errors import ServiceError
from matches.models import Player, Table
from tests.at_once import at_once

pytestmark = pytest.mark.django_db


def _client_of(player: Player) -> Client:
    client = Client()
    client.force_login(player.user)
    return client


def test_an_account_creates_at_most_its_tables_of_the_hour(
        make_player: Callable[..., Player], settings: Any) -> None:
    settings.TAVLA_TABLES_PER_HOUR = 2
    alice, bob = make_player(), make_player()
    services.table_create(name="One", creator=alice)
    services.table_create(name="Two", creator=alice)
    tables = Table.objects.count()
    with pytest.raises(ServiceError) as refused:
        services.table_create(name="Three", creator=alice)
    assert refused.value.code == "too_many_tables"
    assert "2 tables in the last hour" in refused.value.detail
    assert Table.objects.count() == tables
    services.table_create(name="Bob's", creator=bob)  # another account is not concerned
    services.table_create(name="The club's")  # nor tables nobody created (admin, tournaments)
    # An hour later the account may create again.
    Table.objects.filter(created_by=alice).update(created_at=timezone.now() - timedelta(hours=2))
    services.table_create(name="Later", creator=alice)


@pytest.mark.django_db(transaction=True)
def test_two_creations_at_the_same_moment_cannot_both_pass_the_bound(
        make_player: Callable[..., Player], settings: Any) -> None:
    """Real threads with their own connections: the creator's row lock (PostgreSQL) or
    SQLite's one writer serialises them. Four creations, room for one: exactly one passes."""
    settings.TAVLA_TABLES_PER_HOUR = 2
    alice = make_player()
    services.table_create(name="One", creator=alice)
    results = at_once(lambda: services.table_create(name="Race", creator=alice), 4)
    created = [r for r in results if isinstance(r, Table)]
    refused = [r for r in results if isinstance(r, ServiceError)]
    assert len(created) == 1 and len(refused) == 3, results
    assert {error.code for error in refused} == {"too_many_tables"}
    assert Table.objects.filter(created_by=alice).count() == 2


def test_rest_and_the_lobby_give_the_same_refusal(
        make_player: Callable[..., Player], settings: Any) -> None:
    settings.TAVLA_TABLES_PER_HOUR = 1
    alice = make_player()
    client = _client_of(alice)
    created = client.post("/api/tables/", data={"name": "First"},
                          content_type="application/json")
    assert created.status_code == 201
    refused = client.post("/api/tables/", data={"name": "Second"},
                          content_type="application/json")
    assert refused.status_code == 429 and refused.json()["error"] == "too_many_tables"
    page = client.post("/tables/new/", {"name": "Third", "match_length": "3", "clock": "none",
                                        "flag_penalty": "game", "is_public": "on"})
    assert page.status_code == 400 and "in the last hour, the most allowed" in page.content.decode()
    assert list(Table.objects.filter(created_by=alice).values_list("name", flat=True)) == [
        "First"]


def test_zero_means_no_bound(make_player: Callable[..., Player], settings: Any) -> None:
    settings.TAVLA_TABLES_PER_HOUR = 0
    alice = make_player()
    for number in range(25):
        services.table_create(name=f"Table {number}", creator=alice)


def _sign_up(client: Client, username: str, password: str = "a-long-Passw0rd!") -> Any:
    return client.post("/accounts/signup/", {"username": username, "password1": password,
                                             "password2": password})


def test_sign_ups_per_address_are_bounded_and_a_failed_one_does_not_count(
        settings: Any) -> None:
    settings.TAVLA_SIGNUPS_PER_HOUR = 2
    address = "198.51.100.201"
    assert _sign_up(Client(REMOTE_ADDR=address), "first-one").status_code == 302
    bad = _sign_up(Client(REMOTE_ADDR=address), "typo", password="short")
    assert bad.status_code == 200 and not User.objects.filter(username="typo").exists()
    assert _sign_up(Client(REMOTE_ADDR=address), "second-one").status_code == 302
    refused = _sign_up(Client(REMOTE_ADDR=address), "third-one")
    assert refused.status_code == 429
    assert "Too many accounts were created from your address" in refused.content.decode()
    assert not User.objects.filter(username="third-one").exists()
    # A header the client writes itself changes nothing (no trusted proxy here) ...
    spoofed = Client(REMOTE_ADDR=address, HTTP_X_FORWARDED_FOR="192.0.2.99")
    assert _sign_up(spoofed, "fourth-one").status_code == 429
    # ... and another address signs up as usual.
    assert _sign_up(Client(REMOTE_ADDR="198.51.100.202"), "elsewhere").status_code == 302
