"""Rematch (both players agree, a new match starts at once with the same rules) and money
sessions ended over the socket, through the real ASGI stack and over REST."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from asgiref.sync import sync_to_async
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from matches.errors import ServiceError
from matches.models import Match, MatchStatus, Player, Table
from matches.services.rematch import match_rematch
from tests.matches.conftest import act
from tests.matches.test_consumer import (  # noqa: F401 - the autouse fixture closes connections
    _close_consumer_connections,
    board,
    receive,
)


def finished(start_match: Callable[..., Match], **rules: object) -> Match:
    match = start_match(dice=[[3, 1]], match_length=1, cube_enabled=False, **rules)
    act(match, 0, "resign")
    match.refresh_from_db()
    assert match.status == MatchStatus.FINISHED
    return Match.objects.select_related("player0__user", "player1__user", "table").get(
        pk=match.pk)


@pytest.mark.django_db
def test_both_players_agree_and_the_next_match_starts_with_the_same_rules(
        start_match: Callable[..., Match]) -> None:
    match = finished(start_match, gammons_enabled=False)
    first = match_rematch(match_id=match.pk, player=match.player1)
    assert first.pk == match.pk and first.rematch_offers == [1]
    again = match_rematch(match_id=match.pk, player=match.player1)  # asking twice changes nothing
    assert again.rematch_offers == [1] and again.version == first.version
    new = match_rematch(match_id=match.pk, player=match.player0)
    assert new.pk != match.pk and new.status == MatchStatus.PLAYING
    assert (new.player0_id, new.player1_id) == (match.player0_id, match.player1_id)
    assert new.snapshot["rules"] == match.snapshot["rules"]
    table = Table.objects.get(pk=match.table_id)
    assert (table.seat0_id, table.seat1_id) == (match.player0_id, match.player1_id)
    with pytest.raises(ServiceError) as moved_on:  # the old match's rematch is spent
        match_rematch(match_id=match.pk, player=match.player0)
    assert moved_on.value.code == "rematch_unavailable"


@pytest.mark.django_db
def test_a_decline_clears_the_offers_and_only_players_may_ask(
        start_match: Callable[..., Match], make_player: Callable[..., Player]) -> None:
    match = finished(start_match)
    match_rematch(match_id=match.pk, player=match.player0)
    declined = match_rematch(match_id=match.pk, player=match.player1, accept=False)
    assert declined.rematch_offers == []
    with pytest.raises(ServiceError) as stranger:
        match_rematch(match_id=match.pk, player=make_player())
    assert stranger.value.code == "not_a_player"
    with pytest.raises(ServiceError) as anonymous:
        match_rematch(match_id=match.pk, player=None)
    assert anonymous.value.code == "not_authenticated"
    live = start_match(dice=[[3, 1]], match_length=3)
    with pytest.raises(ServiceError) as playing:
        match_rematch(match_id=live.pk, player=live.player0)
    assert playing.value.code == "match_in_progress"
    assert Match.objects.filter(table_id=match.table_id).count() == 1  # nothing started


@pytest.mark.django_db
def test_rematch_over_rest(start_match: Callable[..., Match]) -> None:
    match = finished(start_match)
    clients = []
    for player in (match.player0, match.player1):
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=player.user)}")
        clients.append(client)
    asked = clients[0].post(f"/api/matches/{match.pk}/rematch/", {}, format="json")
    assert asked.status_code == 200 and asked.json()["rematch_offers"] == [0]
    started = clients[1].post(f"/api/matches/{match.pk}/rematch/", {"accept": True},
                              format="json")
    assert started.status_code == 201, started.content
    assert started.json()["match_id"] != match.pk and started.json()["status"] == "playing"


@pytest.mark.django_db(transaction=True)
async def test_rematch_over_the_socket_reaches_both_boards(
        start_match: Callable[..., Match]) -> None:
    match = await sync_to_async(finished)(start_match)
    async with board(match.table_id, match.player0) as alice, \
            board(match.table_id, match.player1) as bob:
        over = await receive(alice)
        assert over["status"] == "finished" and over["rematch_offers"] == []
        await receive(bob)
        await alice.send_json_to({"type": "rematch"})
        offered = await receive(bob)
        while offered["rematch_offers"] != [0]:
            offered = await receive(bob)
        await bob.send_json_to({"type": "rematch", "match_id": match.pk})
        new = await receive(alice)
        while new["match_id"] == match.pk:
            new = await receive(alice)
        assert new["status"] == "playing"
        await alice.send_json_to({"type": "rematch", "match_id": "x"})
        assert (await receive(alice, "error"))["error"] == "bad_request"


@pytest.mark.django_db(transaction=True)
async def test_a_money_session_ends_over_the_socket(start_match: Callable[..., Match]) -> None:
    def money() -> Match:
        match = start_match(dice=[[3, 1]], match_length=None, is_rated=False)
        return Match.objects.select_related("player0__user", "player1__user").get(pk=match.pk)

    match = await sync_to_async(money)()
    async with board(match.table_id, match.player1) as bob:
        state = await receive(bob)
        await bob.send_json_to({"type": "action", "action": "end_session",
                                "expected_version": state["version"]})
        ended = await receive(bob)
        while ended["status"] == "playing":
            ended = await receive(bob)
    assert ended["status"] == "finished"
    await sync_to_async(match.refresh_from_db)()
    assert match.status == MatchStatus.FINISHED
