"""Both boards send their client seed over the table socket; the first roll follows."""

from __future__ import annotations

import pytest
from asgiref.sync import sync_to_async

from matches import services
from matches.models import Match
from tests.matches.test_consumer import (  # noqa: F401 - the fixture closes pool connections
    _close_consumer_connections,
    board,
    receive,
)

pytestmark = [pytest.mark.django_db(transaction=True)]


async def test_two_boards_send_their_seeds_and_the_match_rolls(make_player, settings):
    settings.TAVLA_CLIENT_SEED_SECONDS = 30
    alice, bob = await sync_to_async(make_player)(), await sync_to_async(make_player)()
    table = await sync_to_async(services.table_create)(name="Seeds", match_length=1)
    await sync_to_async(services.table_sit)(table_id=table.pk, player=alice)
    await sync_to_async(services.table_sit)(table_id=table.pk, player=bob)
    async with board(table.pk, alice) as first, board(table.pk, bob) as second:
        state = await receive(first)
        assert state["client_seeds"]["open"] and state["phase"] == "opening_roll"
        await first.send_json_to({"type": "client_seed", "seed": "11" * 32})
        await second.send_json_to({"type": "client_seed", "seed": 7})
        assert (await receive(second, "error"))["error"] == "invalid_seed"  # as over REST
        await second.send_json_to({"type": "client_seed", "seed": "22" * 32})
        while True:
            state = await receive(first)
            if not state["client_seeds"]["open"]:
                break
        assert state["phase"] != "opening_roll" and state["dice"] is not None
        await first.send_json_to({"type": "client_seed", "seed": "33"})
        assert (await receive(first, "error"))["error"] == "seeds_closed"
    match = await sync_to_async(Match.objects.get)(table=table)
    assert (match.client_seed0, match.client_seed1) == ("11" * 32, "22" * 32)
