"""Private tables: the creator sits and watches, an invitation link admits its holder, and a
seat can be kept for a named player. Everyone else learns nothing: the table is not found
(404 over REST, ``not_found`` then close 4404 on the socket)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from channels.testing import WebsocketCommunicator
from django.test import Client
from rest_framework.authtoken.models import Token

from matches import services
from matches.errors import ServiceError
from matches.models import Match, MatchStatus, Player, Table
from tavla.site.asgi import application
from tests.matches.test_consumer import (  # noqa: F401 - the autouse fixture closes connections
    ORIGIN,
    _close_consumer_connections,
    board,
    receive,
    session_cookie,
)


def logged_in(player: Player) -> Client:
    client = Client()
    client.force_login(player.user)
    return client


@pytest.fixture
def private_table(make_player: Callable[..., Player]) -> Table:
    creator = make_player("creator")
    table = services.table_create(name="Back room", creator=creator, is_public=False,
                                  match_length=1)
    services.table_sit(table_id=table.pk, player=creator)
    table.refresh_from_db()
    return table


@pytest.mark.django_db
def test_a_private_table_gets_an_unguessable_invitation(private_table: Table,
                                                        make_player: Callable[..., Player]) -> None:
    assert len(private_table.invite_token) >= 40
    public = services.table_create(name="Open", creator=make_player(), match_length=1)
    assert public.invite_token == ""
    other = services.table_create(name="Back room 2", creator=make_player(), is_public=False)
    assert other.invite_token != private_table.invite_token


@pytest.mark.django_db
def test_the_creator_watches_and_sees_the_invitation_link(private_table: Table) -> None:
    creator = private_table.created_by
    assert creator is not None
    html = logged_in(creator).get(f"/tables/{private_table.pk}/").content.decode()
    assert f"?invite={private_table.invite_token}" in html
    # The token is never in the state others receive, nor in the lobby or the table list.
    assert html.count(private_table.invite_token) == 1


@pytest.mark.django_db
def test_strangers_get_404_and_cannot_sit(private_table: Table,
                                          make_player: Callable[..., Player]) -> None:
    stranger = make_player("stranger")
    client = logged_in(stranger)
    assert client.get(f"/tables/{private_table.pk}/").status_code == 404
    assert Client().get(f"/tables/{private_table.pk}/").status_code == 404
    assert client.get(f"/tables/{private_table.pk}/?invite=wrong").status_code == 404
    with pytest.raises(ServiceError) as refused:
        services.table_sit(table_id=private_table.pk, player=stranger)
    assert refused.value.code == "not_found"  # as for a table that is not there
    with pytest.raises(ServiceError):
        services.table_sit(table_id=private_table.pk, player=stranger, invite="wrong")
    private_table.refresh_from_db()
    assert private_table.seat1_id is None  # nothing changed


@pytest.mark.django_db
def test_the_invitation_link_lets_its_holder_watch_and_sit(
        private_table: Table, make_player: Callable[..., Player]) -> None:
    guest = make_player("guest")
    client = logged_in(guest)
    link = client.get(f"/tables/{private_table.pk}/?invite={private_table.invite_token}")
    assert link.status_code == 302 and link["Location"] == f"/tables/{private_table.pk}/"
    page = client.get(f"/tables/{private_table.pk}/")
    assert page.status_code == 200
    assert private_table.invite_token not in page.content.decode()  # only the creator sees it
    assert client.post(f"/tables/{private_table.pk}/sit/").status_code == 302
    match = Match.objects.get(table=private_table)
    assert match.status == MatchStatus.PLAYING
    assert {match.player0_id, match.player1_id} == {private_table.created_by_id, guest.pk}


@pytest.mark.django_db
def test_a_new_link_retires_the_old_one(private_table: Table,
                                        make_player: Callable[..., Player]) -> None:
    old = private_table.invite_token
    creator = private_table.created_by
    assert creator is not None
    with pytest.raises(ServiceError):
        services.table_new_invite(table_id=private_table.pk, player=make_player())
    assert logged_in(creator).post(f"/tables/{private_table.pk}/invite/").status_code == 302
    private_table.refresh_from_db()
    assert private_table.invite_token not in ("", old)
    guest = logged_in(make_player("late"))
    assert guest.get(f"/tables/{private_table.pk}/?invite={old}").status_code == 404


@pytest.mark.django_db
def test_a_seat_kept_for_a_named_player(make_player: Callable[..., Player]) -> None:
    creator, friend, other = make_player("host"), make_player("friend"), make_player("other")
    client = logged_in(creator)
    response = client.post("/tables/new/", {"name": "For friend", "match_length": 1,
                                            "clock": "none", "flag_penalty": "game",
                                            "reserve_for": "FRIEND", "is_public": "on"})
    assert response.status_code == 302
    table = Table.objects.get(name="For friend")
    assert (table.reserved0_id, table.reserved1_id) == (creator.pk, friend.pk)
    with pytest.raises(ServiceError) as refused:
        services.table_sit(table_id=table.pk, player=other)
    assert refused.value.code == "seat_reserved"
    services.table_sit(table_id=table.pk, player=friend)
    assert Match.objects.filter(table=table, status=MatchStatus.PLAYING).exists()
    bad = client.post("/tables/new/", {"name": "x", "match_length": 1, "clock": "none",
                                       "flag_penalty": "game", "reserve_for": "nobody-here"})
    assert bad.status_code == 400 and "No member is called" in bad.content.decode()


@pytest.mark.django_db
def test_bots_use_the_invitation_over_rest(make_player: Callable[..., Player]) -> None:
    host, bot = make_player("host-bot"), make_player("bot")
    api = Client(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=host.user).key}")
    created = api.post("/api/tables/", {"name": "Bots only", "is_public": False,
                                        "match_length": 1}, content_type="application/json")
    assert created.status_code == 201, created.content
    table_id, invite = created.json()["id"], created.json()["invite"]
    assert api.get(f"/api/tables/{table_id}/").json()["invite"] == invite
    guest = Client(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=bot.user).key}")
    assert guest.get(f"/api/tables/{table_id}/").status_code == 404
    assert "invite" not in guest.get(f"/api/tables/{table_id}/?invite={invite}").json()
    sat = guest.post(f"/api/tables/{table_id}/sit/", {"invite": invite},
                     content_type="application/json")
    assert sat.status_code == 200, sat.content
    assert all("invite" not in row for row in guest.get("/api/tables/").json())


@pytest.mark.django_db(transaction=True)
async def test_sockets_admit_the_creator_and_the_invited(
        private_table: Table, make_player: Callable[..., Player]) -> None:
    from asgiref.sync import sync_to_async

    creator = await sync_to_async(lambda: private_table.created_by)()
    stranger = await sync_to_async(make_player)("outsider")
    async with board(private_table.pk, creator) as socket:
        # Nobody has played here yet: the first message is the `table` message.
        state: dict[str, Any] = await receive(socket, "table")
        assert state["table"]["id"] == private_table.pk
        assert private_table.invite_token not in str(state)
    async with board(private_table.pk, stranger,
                     path=f"/ws/tables/{private_table.pk}/?invite={private_table.invite_token}"
                     ) as socket:
        assert (await receive(socket, "table"))["table"]["id"] == private_table.pk
        await socket.send_json_to({"type": "sit"})  # the invitation also lets them sit
        while (message := await socket.receive_json_from(timeout=5))["type"] != "state":
            assert message["type"] != "error", message
    outsider = await sync_to_async(make_player)("nobody-invited")  # `stranger` sits there now
    headers = [ORIGIN, *(await sync_to_async(session_cookie)(outsider))]
    socket = WebsocketCommunicator(application, f"/ws/tables/{private_table.pk}/",
                                   headers=headers)
    connected, _ = await socket.connect(timeout=5)
    assert connected
    error = await receive(socket, "error")
    assert error["error"] == "not_found"  # REST's answer for that table: 404 not_found
    assert await socket.receive_output(timeout=5) == {"type": "websocket.close", "code": 4404}
