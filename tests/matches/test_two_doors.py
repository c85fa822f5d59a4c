"""One protocol, two doors: a whole match played over REST and over the socket at once.

Seat 0 plays over REST, seat 1 over its board's socket, and a spectator watches. After every
action each viewer's socket state (pushed by the server) must equal what REST answers that
viewer for the same match at the same version — field for field, legal plays included; only
``server_time`` (the moment of each answer) may differ. The history must agree too.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from rest_framework.test import APIClient

from matches.live import socket_limits
from matches.models import Match
from tests.matches.test_api import token_client
from tests.matches.test_consumer import (  # noqa: F401 - the fixture closes pool connections
    _close_consumer_connections,
    board,
    receive,
    receive_version,
)

pytestmark = [pytest.mark.django_db(transaction=True)]


@pytest.fixture
def fair_match(start_match: Callable[..., Match], settings: Any) -> Match:
    socket_limits.reset_limits()
    # A few hundred reads in a minute: more than an anonymous client may make by default.
    settings.TAVLA_API_RATES = {**settings.TAVLA_API_RATES, "anonymous": "100000/min"}
    # And a hundred socket actions in a few seconds: more than a board's 15 a second (the
    # error went to seat 1's board unread, and the match stopped when the test ran fast).
    settings.TAVLA_SOCKET_BURST = settings.TAVLA_SOCKET_RATE = 10_000
    match = start_match(match_length=1)  # fair dice, the cube on
    return Match.objects.select_related("player0__user", "player1__user").get(pk=match.pk)


def comparable(state: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in state.items() if key != "server_time"}


def choose(state: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    body: dict[str, Any] = {"expected_version": state["version"]}
    if state["phase"] == "turn_start":
        body["action"] = "double" if state["cube"]["may_double"] and rng.random() < 0.1 \
            else "roll"
    elif state["phase"] == "cube_offered":
        body["action"] = "take"
    else:
        body.update(action="play", play=rng.choice(state["legal_plays"])["notation"])
    return body


async def test_a_whole_match_shows_the_same_states_over_rest_and_the_socket(
        fair_match: Match) -> None:
    match = fair_match
    rest = {0: await sync_to_async(token_client)(match.player0),
            1: await sync_to_async(token_client)(match.player1), None: APIClient()}
    url = f"/api/matches/{match.pk}/"

    async def over_rest(viewer: int | None) -> dict[str, Any]:
        response = await sync_to_async(rest[viewer].get)(url)
        assert response.status_code == 200, response.content
        return dict(response.json())

    rng = random.Random(4)
    async with board(match.table_id, match.player0) as seat0, \
            board(match.table_id, match.player1) as seat1, board(match.table_id) as watcher:
        boards = {0: seat0, 1: seat1, None: watcher}
        shown = {viewer: await receive(socket) for viewer, socket in boards.items()}
        compared = 0
        for _ in range(1000):
            for viewer, state in shown.items():
                assert comparable(state) == comparable(await over_rest(viewer)), viewer
                compared += 1
            state = shown[0]
            if state["status"] != "playing":
                break
            seat = state["player_to_act"]
            body = choose(shown[seat], rng)
            if seat == 0:
                response = await sync_to_async(rest[0].post)(f"{url}actions/", body,
                                                             format="json")
                assert response.status_code == 200, response.content
                answered = response.json()
            else:
                await seat1.send_json_to({"type": "action", **body})
            version = body["expected_version"] + 1
            shown = {viewer: await receive_version(socket, version)
                     for viewer, socket in boards.items()}
            assert {s["version"] for s in shown.values()} == {version}
            if seat == 0:
                assert comparable(answered) == comparable(shown[0])
        else:
            raise AssertionError("the match did not end")
        await watcher.send_json_to({"type": "history"})
        history = await receive(watcher, "history")
    final = shown[None]
    assert final["status"] == "finished" and final["winner"] in (0, 1)
    assert final["winner_player_id"] == (match.player0_id, match.player1_id)[final["winner"]]
    assert compared > 30
    response = await sync_to_async(rest[None].get)(f"{url}history/")
    assert response.json() == history and history["version"] == final["version"]
