"""The arena pages: the list, creating one (organisers only), joining and pausing."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta

import pytest
from django.contrib.auth.models import Permission
from django.test import Client
from django.utils import timezone

from matches.models import Player
from seasons import services
from seasons.models import Arena, ArenaGame

pytestmark = pytest.mark.django_db


def client_of(player: Player) -> Client:
    client = Client()
    client.force_login(player.user)
    return client


def test_only_an_organiser_creates_an_arena_and_bad_input_is_explained(
        make_player: Callable[..., Player]) -> None:
    player = make_player()
    client = client_of(player)
    assert client.get("/arenas/new/").status_code in (302, 403)
    player.user.user_permissions.add(Permission.objects.get(codename="add_arena"))
    client = client_of(player)
    assert "New arena" in client.get("/arenas/").content.decode()
    bad = client.post("/arenas/new/", {"name": "x", "starts_in": 0, "minutes": 1,
                                       "match_length": 3, "clock": "fast"})
    assert bad.status_code == 200 and Arena.objects.count() == 0
    assert "greater than or equal to 5" in bad.content.decode()
    made = client.post("/arenas/new/", {"name": "Blitz hour", "starts_in": 0, "minutes": 60,
                                        "match_length": 3, "clock": "fast"})
    arena = Arena.objects.get()
    assert made.url == f"/arenas/{arena.pk}/"
    assert (arena.name, arena.match_length, arena.clock_enabled) == ("Blitz hour", 3, True)
    assert arena.ends_at - arena.starts_at == timedelta(minutes=60)
    assert "Blitz hour" in Client().get("/arenas/").content.decode()


@pytest.mark.django_db(transaction=True)  # pairing runs when the join commits, as in a request
def test_joining_pairs_at_once_and_takes_the_second_player_to_the_table(
        make_player: Callable[..., Player]) -> None:
    now = timezone.now()
    arena = services.arena_create(name="Now", starts_at=now - timedelta(seconds=1),
                                  ends_at=now + timedelta(hours=1))
    first, second = make_player(), make_player()
    answer = client_of(first).post(f"/arenas/{arena.pk}/join/")
    assert answer.url == f"/arenas/{arena.pk}/"
    answer = client_of(second).post(f"/arenas/{arena.pk}/join/")
    game = ArenaGame.objects.get()
    assert answer.url == f"/tables/{game.match.table_id}/"
    page = client_of(first).get(f"/arenas/{arena.pk}/").content.decode()
    assert f'href="/tables/{game.match.table_id}/"' in page  # "Go to your match"
    again = client_of(first).post(f"/arenas/{arena.pk}/join/", follow=True)
    assert "already in this arena" in again.content.decode()
    assert arena.entries.count() == 2


def test_a_paused_player_shows_paused_and_can_come_back(
        make_player: Callable[..., Player]) -> None:
    now = timezone.now()
    arena = services.arena_create(name="Later", starts_at=now + timedelta(hours=1),
                                  ends_at=now + timedelta(hours=2))
    player = make_player()
    client = client_of(player)
    client.post(f"/arenas/{arena.pk}/join/")
    client.post(f"/arenas/{arena.pk}/pause/", {"paused": "1"})
    assert arena.entries.get().paused
    assert "Come back" in client.get(f"/arenas/{arena.pk}/live/").content.decode()
    client.post(f"/arenas/{arena.pk}/pause/", {"paused": "0"})
    assert not arena.entries.get().paused
    assert client.get("/arenas/999999/").status_code == 404
