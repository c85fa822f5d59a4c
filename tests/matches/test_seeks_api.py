"""Finding a game over REST and the player's socket: ``/api/seeks/``, ``/api/challenges/``,
``/api/follows/``, ``/api/online/``, and the ``seek.paired`` / ``challenge.*`` messages on
``/ws/notices/`` (docs/protocol.md, "Finding a game")."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.db import connections
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from matches.models import Challenge, Follow, Match, Player, Seek, Table
from tests.matches.test_api import assert_error, token_client

pytestmark = pytest.mark.django_db


def snapshot() -> tuple[int, int, int, int]:
    return (Seek.objects.count(), Challenge.objects.count(), Table.objects.count(),
            Follow.objects.count())


def test_seeks_over_rest(make_player: Callable[..., Player]) -> None:
    alice, bob = make_player("alice"), make_player("bob")
    a, b = token_client(alice), token_client(bob)
    body = {"match_length": 3, "clock_preset": "fast", "rated": False}
    made = a.post("/api/seeks/", body, format="json")
    assert made.status_code == 201, made.content
    assert made.json()["status"] == "open" and made.json()["mine"] is True
    listed = APIClient().get("/api/seeks/").json()
    assert [s["player"]["name"] for s in listed] == ["alice"] and listed[0]["mine"] is False
    before = snapshot()
    assert_error(a.post("/api/seeks/", body, format="json"), 409, "seek_exists")
    error = assert_error(a.post("/api/seeks/", {"match_length": 40}, format="json"), 400,
                         "invalid_option")
    assert "match_length" in error["fields"]
    assert_error(a.post("/api/seeks/", [1], format="json"), 400, "bad_request")
    assert_error(APIClient().post("/api/seeks/", body, format="json"), 401,
                 "not_authenticated")
    assert snapshot() == before
    paired = b.post("/api/seeks/", body, format="json")
    assert paired.status_code == 201
    data = paired.json()
    assert data["status"] == "paired" and data["table_url"] == f"/tables/{data['table_id']}/"
    assert Match.objects.filter(table_id=data["table_id"]).exists()
    assert APIClient().get("/api/seeks/").json() == []
    own = a.post("/api/seeks/", {"match_length": 1}, format="json").json()
    assert_error(b.delete(f"/api/seeks/{own['id']}/"), 404, "not_found")
    assert a.delete(f"/api/seeks/{own['id']}/").status_code == 204
    assert_error(a.delete(f"/api/seeks/{own['id']}/"), 409, "seek_closed")


def test_challenges_over_rest(make_player: Callable[..., Player]) -> None:
    alice, bob = make_player("alice"), make_player("bob")
    a, b = token_client(alice), token_client(bob)
    before = snapshot()
    assert_error(a.post("/api/challenges/", {"username": "nobody"}, format="json"), 404,
                 "not_found")
    assert_error(a.post("/api/challenges/", {"player": alice.pk}, format="json"), 400,
                 "invalid_option")
    assert_error(a.post("/api/challenges/", {}, format="json"), 400, "invalid_option")
    assert_error(a.post("/api/challenges/", {"player": "bob"}, format="json"), 400,
                 "bad_request")
    assert snapshot() == before
    sent = a.post("/api/challenges/", {"username": "BOB", "match_length": 1}, format="json")
    assert sent.status_code == 201, sent.content
    challenge = sent.json()
    assert challenge["challenged"]["name"] == "bob" and challenge["status"] == "open"
    assert_error(a.post("/api/challenges/", {"player": bob.pk}, format="json"), 409,
                 "challenge_exists")
    assert b.get("/api/challenges/").json()["incoming"][0]["id"] == challenge["id"]
    assert_error(a.post(f"/api/challenges/{challenge['id']}/accept/"), 403, "forbidden")
    declined = b.post(f"/api/challenges/{challenge['id']}/decline/")
    assert declined.json()["status"] == "declined"
    again = a.post("/api/challenges/", {"player": bob.pk}, format="json").json()
    accepted = b.post(f"/api/challenges/{again['id']}/accept/")
    assert accepted.status_code == 200
    assert accepted.json()["status"] == "accepted" and accepted.json()["table_id"]
    assert_error(a.delete(f"/api/challenges/{again['id']}/"), 409, "challenge_closed")
    assert_error(APIClient().get("/api/challenges/"), 401, "not_authenticated")


def test_follows_and_online_over_rest(make_player: Callable[..., Player]) -> None:
    alice, bob = make_player("alice"), make_player("bob")
    a = token_client(alice)
    assert a.post("/api/follows/", {"player": bob.pk}, format="json").status_code == 201
    assert a.post("/api/follows/", {"player": bob.pk}, format="json").status_code == 200
    assert_error(a.post("/api/follows/", {"player": alice.pk}, format="json"), 400,
                 "invalid_option")
    assert_error(a.post("/api/follows/", {"player": 999999}, format="json"), 404, "not_found")
    assert [row["player"]["name"] for row in a.get("/api/follows/").json()] == ["bob"]
    assert a.delete(f"/api/follows/{bob.pk}/").status_code == 204
    assert_error(a.delete(f"/api/follows/{bob.pk}/"), 404, "not_found")
    assert isinstance(APIClient().get("/api/online/").json(), list)


@pytest.fixture
async def close_consumer_connections() -> Any:
    yield
    await database_sync_to_async(connections.close_all)()


def socket(token: str) -> WebsocketCommunicator:
    from tavla.site.asgi import application

    return WebsocketCommunicator(application, "/ws/notices/", headers=[
        (b"origin", b"http://localhost"), (b"authorization", f"Token {token}".encode())])


async def next_of(sock: WebsocketCommunicator, kind: str) -> dict[str, Any]:
    while True:
        message = await sock.receive_json_from(timeout=5)
        if message["type"] == kind:
            return message


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("close_consumer_connections")
async def test_the_notice_socket_carries_pairings_and_challenges(
        make_player: Callable[..., Player]) -> None:
    alice, bob = [await sync_to_async(make_player)(name) for name in ("alice", "bob")]
    tokens = [(await sync_to_async(Token.objects.create)(user_id=p.user_id)).key
              for p in (alice, bob)]
    sockets = [socket(key) for key in tokens]
    for sock in sockets:
        assert (await sock.connect())[0]
        await next_of(sock, "notices")
    a, b = [await sync_to_async(token_client)(p) for p in (alice, bob)]
    online = await sync_to_async(APIClient().get)("/api/online/")
    assert {row["name"] for row in online.json()} == {"alice", "bob"}

    await sync_to_async(a.post)("/api/seeks/", {"match_length": 1}, format="json")
    await sync_to_async(b.post)("/api/seeks/", {"match_length": 1}, format="json")
    paired = [await next_of(sock, "seek.paired") for sock in sockets]
    assert paired[0]["table_id"] == paired[1]["table_id"]
    assert paired[0]["opponent"]["name"] == "bob" and paired[1]["opponent"]["name"] == "alice"

    sent = await sync_to_async(a.post)("/api/challenges/", {"player": bob.pk}, format="json")
    received = await next_of(sockets[1], "challenge.received")
    assert received["challenge"]["id"] == sent.json()["id"]
    await sync_to_async(b.post)(f"/api/challenges/{sent.json()['id']}/decline/")
    declined = await next_of(sockets[0], "challenge.declined")
    assert declined["challenge"]["status"] == "declined"

    sent = await sync_to_async(a.post)("/api/challenges/", {"player": bob.pk}, format="json")
    await next_of(sockets[1], "challenge.received")
    await sync_to_async(b.post)(f"/api/challenges/{sent.json()['id']}/accept/")
    accepted = [await next_of(sock, "challenge.accepted") for sock in sockets]
    assert accepted[0]["challenge"]["table_url"] == accepted[1]["challenge"]["table_url"]

    # Alice leaves (her last page closes): her open seek goes.
    await sync_to_async(a.post)("/api/seeks/", {"match_length": 7}, format="json")
    await sockets[0].disconnect()
    assert not await sync_to_async(Seek.objects.filter(player=alice, status="open").exists)()
    await sockets[1].disconnect()


def test_the_lobby_and_the_profile_offer_it(make_player: Callable[..., Player]) -> None:
    from django.test import Client

    alice, bob = make_player("alice"), make_player("bob")
    anonymous = Client().get("/lobby/").content.decode()
    assert 'id="find-game"' in anonymous and 'id="seek-form"' not in anonymous
    client = Client()
    client.force_login(alice.user)
    page = client.get("/lobby/").content.decode()
    # "Play the bot" at the top, before the lists, pointing at its form further down.
    assert page.index('href="#play-bot"') < page.index('id="find-game"') < page.index(
        'id="play-bot"')
    assert 'id="seek-form"' in page and 'id="seek_match_length"' in page
    assert "find_game.js" in page
    profile = client.get(f"/players/{bob.pk}/").content.decode()
    assert f'action="/players/{bob.pk}/follow/"' in profile
    assert 'id="follow' not in client.get(f"/players/{alice.pk}/").content.decode()
    response = client.post(f"/players/{bob.pk}/follow/", {"follow": "1"})
    assert response.status_code == 302 and Follow.objects.filter(follower=alice).count() == 1
    assert 'aria-pressed="true"' in client.get(f"/players/{bob.pk}/").content.decode()
    client.post(f"/players/{bob.pk}/follow/", {"follow": "0"})
    assert Follow.objects.count() == 0
    assert Client().post(f"/players/{bob.pk}/follow/").status_code == 302  # to the login
    assert Follow.objects.count() == 0
