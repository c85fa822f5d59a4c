"""Factories for match-play tests: players, tables and matches with scripted dice."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any

import pytest

from matches import services
from matches.models import Match, Player, Table
from matches.services import presence
from tavla.redis_client import redis_client
from tests.conftest import stores_independent


@pytest.fixture(autouse=True)
def _scripted_dice_allowed(settings: Any) -> None:
    settings.TAVLA_SCRIPTED_DICE = True


@pytest.fixture(autouse=True)
def _presence_known(request: pytest.FixtureRequest) -> None:
    """Presence has been complete for an hour (no Redis flush just happened), so a flag
    records whether its player had a board open; tests of a flush undo it themselves. A
    ``stores_independent`` test has no Redis, so no presence."""
    if stores_independent(request):
        return
    redis_client().delete(presence.EPOCH_KEY)
    presence.keep_epoch(now=time.time() - 3600)


@pytest.fixture
def start_match(make_player: Callable[..., Player]) -> Callable[..., Match]:
    """Seat two players at a new table (options as keyword arguments) and return the match.

    ``dice`` scripts every roll, opening rolls included, as ``[[d1, d2], ...]``.
    """

    def start(*, dice: Sequence[Sequence[int]] = (), players: tuple[Player, Player] | None = None,
              **options: Any) -> Match:
        first, second = players or (make_player(), make_player())
        options.setdefault("match_length", 3)
        table = services.table_create(name="Test table", **options)
        Table.objects.filter(pk=table.pk).update(scripted_dice=[list(d) for d in dice])
        table.refresh_from_db()  # a private table's players come by its invitation
        services.table_sit(table_id=table.pk, player=first, invite=table.invite_token)
        services.table_sit(table_id=table.pk, player=second, invite=table.invite_token)
        return Match.objects.filter(table=table).latest("pk")

    return start


def act(match: Match, seat: int, action: str, play: str | None = None) -> Match:
    """Act as the player in ``seat`` on the current version; returns the refreshed match."""
    match.refresh_from_db()
    player = match.player0 if seat == 0 else match.player1
    services.match_act(match_id=match.pk, player=player, action=action,
                       expected_version=match.version, play=play)
    match.refresh_from_db()
    return match


def forget_presence(*, table_id: int, player_id: int) -> None:
    """Drop everything presence knows about the player at the table, as if they never
    opened a board there."""
    redis_client().delete(*presence._keys(table_id, player_id))
