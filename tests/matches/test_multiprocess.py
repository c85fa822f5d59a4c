"""Two real web processes on one Redis: players on different processes play each other.

Each process is a real ``daphne`` sharing the test database and the channel layer; the
boards are real WebSocket clients with session cookies, as a browser's.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from django.test import Client
from websockets.sync.client import ClientConnection, connect
from websockets.typing import Origin

from matches.models import Match, Player
from tests.conftest import subprocess_env
from tests.e2e.servers import WebServer, web_servers

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def two_servers(transactional_db: None) -> Iterator[tuple[WebServer, WebServer]]:
    with web_servers(subprocess_env(TAVLA_SCRIPTED_DICE="1"), "one", "two") as (one, two):
        yield one, two


@contextmanager
def board(server: WebServer, table_id: int,
          player: Player | None = None) -> Iterator[ClientConnection]:
    headers = {}
    if player is not None:
        client = Client()
        client.force_login(player.user)
        headers["Cookie"] = f"sessionid={client.cookies['sessionid'].value}"
    url = f"{server.ws_url}/ws/tables/{table_id}/"
    with connect(url, origin=Origin(server.url), additional_headers=headers,
                 open_timeout=10) as socket:
        yield socket


def state_at_least(socket: ClientConnection, version: int, timeout: float = 10) -> dict[str, Any]:
    while True:
        message: dict[str, Any] = json.loads(socket.recv(timeout=timeout))
        if message["type"] == "state" and message["version"] >= version:
            return message


def test_a_move_made_through_one_process_reaches_boards_on_the_other(
        two_servers: tuple[WebServer, WebServer], start_match: Callable[..., Match]) -> None:
    one, two = two_servers
    match = start_match(dice=[[3, 1], [6, 4], [5, 2]], match_length=3, cube_enabled=False)
    alice, bob = Player.objects.get(pk=match.player0_id), Player.objects.get(pk=match.player1_id)
    with board(one, match.table_id, alice) as alice_board, \
            board(two, match.table_id, bob) as bob_board, \
            board(two, match.table_id) as watcher:
        start = state_at_least(alice_board, 0)
        state_at_least(bob_board, 0)
        state_at_least(watcher, 0)
        alice_board.send(json.dumps({"type": "action", "action": "play", "play": "8/5 6/5",
                                     "expected_version": start["version"]}))
        # Through process one, heard on process two: bob now plays 6-4 (rolled for him).
        bobs = state_at_least(bob_board, start["version"] + 1)
        watched = state_at_least(watcher, start["version"] + 1)
        assert bobs["player_to_act"] == 1 and bobs["dice"] == [6, 4] and bobs["legal_plays"]
        assert watched["board"] == bobs["board"] and watched["legal_plays"] is None
        # And back: bob's play through process two reaches alice on process one.
        bob_board.send(json.dumps({"type": "action", "action": "play", "play": "24/14",
                                   "expected_version": bobs["version"]}))
        alices = state_at_least(alice_board, bobs["version"] + 1)
        assert alices["dice"] == [5, 2] and alices["player_to_act"] == 0
        assert alices["games"][0]["events"][-2]["play"] == "24/14"
    match.refresh_from_db()
    assert match.version == alices["version"]
