"""The seasons' admin: every model listed and shown, nothing added, changed or deleted there
(the services own the rows), and the directors' actions run the services."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta

import pytest
from django.contrib import admin
from django.contrib.auth.models import Permission, User
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from matches.models import Player
from seasons import services
from seasons.models import (
    Arena,
    ArenaEntry,
    Ladder,
    LadderEntry,
    LadderEvent,
    League,
    LeagueMember,
    LeagueSeason,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def rows(make_player: Callable[..., Player]) -> dict[type, object]:
    now = timezone.now()
    arena = services.arena_create(name="Blitz", starts_at=now + timedelta(hours=1),
                                  ends_at=now + timedelta(hours=2))
    players = [make_player(f"a{i}") for i in range(4)]
    services.arena_join(arena_id=arena.pk, player=players[0])
    ladder = services.ladder_create(name="Rungs")
    services.ladder_join(ladder_id=ladder.pk, player=players[0])
    league = services.league_create(name="Thursdays", divisions=1, division_size=4)
    services.league_enrol(league_id=league.pk, usernames=[p.user.username for p in players])
    return {Arena: arena, ArenaEntry: arena.entries.get(), Ladder: ladder,
            LadderEntry: ladder.entries.get(), LadderEvent: ladder.events.get(),
            League: league, LeagueMember: league.members.first()}


def admin_client(user: User) -> Client:
    client = Client()
    client.force_login(user)
    return client


def test_every_seasons_model_is_read_only_in_the_admin(rows: dict[type, object]) -> None:
    boss = User.objects.create_superuser("boss", password="pw")
    client = admin_client(boss)
    seasons_models = [m for m in admin.site._registry if m._meta.app_label == "seasons"]
    assert {m.__name__ for m in seasons_models} >= {
        "Arena", "ArenaEntry", "ArenaGame", "Ladder", "LadderEntry", "LadderChallenge",
        "LadderEvent", "League", "LeagueMember", "LeagueSeason"}
    for model in seasons_models:
        name = model._meta.model_name
        assert client.get(reverse(f"admin:seasons_{name}_changelist")).status_code == 200
        assert client.get(reverse(f"admin:seasons_{name}_add")).status_code == 403
        row = rows.get(model)
        if row is not None:
            pk = row.pk  # type: ignore[attr-defined]
            page = client.get(reverse(f"admin:seasons_{name}_change", args=[pk]))
            assert page.status_code == 200
            assert 'name="_save"' not in page.content.decode()  # nothing to save
            before = model.objects.count()
            client.post(reverse(f"admin:seasons_{name}_delete", args=[pk]), {"post": "yes"})
            assert model.objects.count() == before


def test_the_league_action_starts_a_season_through_the_service(
        rows: dict[type, object], make_player: Callable[..., Player]) -> None:
    league = rows[League]
    changelist = reverse("admin:seasons_league_changelist")
    # A staff member who may view leagues but not create one has no such action.
    viewer = User.objects.create_user("viewer", password="pw", is_staff=True)
    viewer.user_permissions.add(Permission.objects.get(codename="view_league"))
    page = admin_client(viewer).get(changelist).content.decode()
    assert "start_season" not in page
    admin_client(viewer).post(changelist, {"action": "start_season",
                                           "_selected_action": [league.pk]})  # type: ignore[attr-defined]
    assert not LeagueSeason.objects.exists()

    boss = User.objects.create_superuser("boss", password="pw")
    client = admin_client(boss)
    done = client.post(changelist, {"action": "start_season",
                                    "_selected_action": [league.pk]},  # type: ignore[attr-defined]
                       follow=True)
    assert "season 1 has started" in done.content.decode()
    season = LeagueSeason.objects.get()
    assert season.event.divisions.count() == 1
    # Again: the season is not finished, the service refuses and says so.
    again = client.post(changelist, {"action": "start_season",
                                     "_selected_action": [league.pk]},  # type: ignore[attr-defined]
                        follow=True)
    assert "must have finished" in again.content.decode()
    assert LeagueSeason.objects.count() == 1

    ladders = reverse("admin:seasons_ladder_changelist")
    checked = client.post(ladders, {"action": "check_order",
                                    "_selected_action": [rows[Ladder].pk]},  # type: ignore[attr-defined]
                          follow=True)
    assert "the order is the replay of its history" in checked.content.decode()
    arenas = reverse("admin:seasons_arena_changelist")
    paired = client.post(arenas, {"action": "pair_now",
                                  "_selected_action": [rows[Arena].pk]},  # type: ignore[attr-defined]
                         follow=True)
    assert "0 matches started" in paired.content.decode()  # it starts in an hour
