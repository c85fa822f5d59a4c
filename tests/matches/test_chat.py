"""Table chat over the real socket stack: rooms kept apart during play, limits, blocks,
reports, and referees' logged removals."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from django.contrib.auth.models import Group, Permission, User
from django.test import Client

from matches import services
from matches.chat import rooms as chat
from matches.errors import ServiceError
from matches.models import ChatMessage, ChatModeration, ChatReport, Match, Player, Table
from matches.services.rematch import match_rematch
from tests.matches.conftest import act
from tests.matches.test_consumer import (  # noqa: F401 - the autouse fixture closes connections
    _close_consumer_connections,
    board,
    receive,
)

pytestmark = [pytest.mark.django_db(transaction=True)]


@pytest.fixture
def match(start_match: Callable[..., Match]) -> Match:
    match = start_match(dice=[[3, 1], [6, 4], [5, 2]], match_length=1, cube_enabled=False)
    return Match.objects.select_related("player0__user", "player1__user").get(pk=match.pk)


@pytest.fixture
def spectator(make_player: Callable[..., Player]) -> Player:
    player = make_player("kibitzer")
    return Player.objects.select_related("user").get(pk=player.pk)


async def no_chat(socket: Any, timeout: float = 0.5) -> None:
    """Nothing of the chat arrives on ``socket`` within ``timeout`` (states may)."""
    while not await socket.receive_nothing(timeout=timeout):
        message = await socket.receive_json_from()
        assert message["type"] != "chat", message


async def test_a_boards_greeting_is_its_state_then_the_chat_history(match: Match,
                                                                    spectator: Player) -> None:
    for viewer in (match.player0, spectator, None):
        async with board(match.table_id, viewer) as socket:
            first = await socket.receive_json_from(timeout=5)
            second = await socket.receive_json_from(timeout=5)
            assert (first["type"], first["match_id"]) == ("state", match.pk)
            assert second == {"type": "chat_history", "messages": []}


async def test_players_and_spectators_chat_apart_during_play(match: Match,
                                                             spectator: Player) -> None:
    async with board(match.table_id, match.player0) as alice, \
            board(match.table_id, match.player1) as bob, \
            board(match.table_id, spectator) as watcher:
        for socket in (alice, bob, watcher):
            assert (await receive(socket, "chat_history"))["messages"] == []
        await alice.send_json_to({"type": "chat", "text": "good luck <b>bob</b>"})
        got = (await receive(bob, "chat"))["message"]
        assert got["text"] == "good luck <b>bob</b>"  # plain text, never markup
        assert got["room"] == "players" and got["author"]["id"] == match.player0_id
        assert (await receive(alice, "chat"))["message"]["id"] == got["id"]
        await no_chat(watcher)

        await watcher.send_json_to({"type": "chat", "text": "alice should run"})
        assert (await receive(watcher, "chat"))["message"]["room"] == "spectators"
        await no_chat(alice)
        await no_chat(bob)


async def test_after_the_match_players_read_the_spectators_room(match: Match,
                                                                spectator: Player) -> None:
    await sync_to_async(chat.chat_post)(table_id=match.table_id, player=spectator,
                                        text="what a game")
    player0 = match.player0
    async with board(match.table_id, player0) as alice:
        assert (await receive(alice, "chat_history"))["messages"] == []
    await sync_to_async(act)(match, 1, "resign")
    async with board(match.table_id, player0) as alice:
        history = (await receive(alice, "chat_history"))["messages"]
    assert [m["text"] for m in history] == ["what a game"]


async def test_bad_long_fast_and_anonymous_messages_are_refused(match: Match) -> None:
    async with board(match.table_id, match.player0) as alice, board(match.table_id) as anon:
        await alice.send_json_to({"type": "chat", "text": "x" * 301, "ref": "chat"})
        error = await receive(alice, "error")
        assert error["error"] == "message_too_long" and error["ref"] == "chat"
        for text in ("", "   ", 42):
            await alice.send_json_to({"type": "chat", "text": text})
            assert (await receive(alice, "error"))["error"] == "bad_request"
        await anon.send_json_to({"type": "chat", "text": "hi"})
        assert (await receive(anon, "error"))["error"] == "not_authenticated"
        for n in range(chat.RATE_MESSAGES):
            await alice.send_json_to({"type": "chat", "text": f"line {n}"})
            await receive(alice, "chat")
        await alice.send_json_to({"type": "chat", "text": "one too many"})
        assert (await receive(alice, "error"))["error"] == "rate_limited"
    assert await sync_to_async(ChatMessage.objects.count)() == chat.RATE_MESSAGES


async def test_a_block_hides_the_member_everywhere(match: Match, spectator: Player,
                                                   make_player: Callable[..., Player]) -> None:
    other = await sync_to_async(make_player)("heckler")
    other = await sync_to_async(Player.objects.select_related("user").get)(pk=other.pk)
    async with board(match.table_id, spectator) as me, board(match.table_id, other) as them:
        await receive(me, "chat_history")
        await them.send_json_to({"type": "chat", "text": "first"})
        first = (await receive(me, "chat"))["message"]
        await me.send_json_to({"type": "chat_block", "player_id": first["author"]["id"]})
        assert (await receive(me, "chat_history"))["messages"] == []
        await them.send_json_to({"type": "chat", "text": "second"})
        await receive(them, "chat")
        await no_chat(me)
        await me.send_json_to({"type": "chat_block", "player_id": spectator.pk})
        assert (await receive(me, "error"))["error"] == "bad_request"


@pytest.mark.django_db
def test_html_in_chat_is_stored_as_text_and_history_is_oldest_first(match: Match) -> None:
    chat.chat_post(table_id=match.table_id, player=match.player0,
                   text="  <script>x</script> \n hi ")
    chat.chat_post(table_id=match.table_id, player=match.player1, text="second")
    texts = [m["text"] for m in chat.chat_history(table_id=match.table_id, player=match.player1)]
    assert texts == ["<script>x</script> hi", "second"]


@pytest.mark.django_db
def test_reports_reach_the_referees_who_remove_with_a_logged_reason(
        match: Match, spectator: Player) -> None:
    message = chat.chat_post(table_id=match.table_id, player=spectator, text="rude words")
    reporter = match.player0
    chat.chat_report(player=reporter, message_id=message.pk, reason="insult")
    chat.chat_report(player=reporter, message_id=message.pk, reason="again")  # once per person
    assert ChatReport.objects.filter(message=message).count() == 1
    with pytest.raises(ServiceError):
        chat.chat_report(player=reporter, message_id=999_999)

    referee = User.objects.create_user("ref", password="x", is_staff=True)
    referee.groups.add(Group.objects.get(name="Referees"))
    staff = User.objects.create_user("staffer", password="x", is_staff=True)
    with pytest.raises(ServiceError) as refused:
        chat.chat_remove(message_id=message.pk, referee=staff, reason="no")
    assert refused.value.code == "forbidden"  # staff status alone grants nothing

    client = Client()
    client.force_login(referee)
    reports = client.get("/admin/matches/chatreport/")
    assert reports.status_code == 200 and "insult" in reports.content.decode()
    assert "rude words" in client.get("/admin/matches/chatmessage/").content.decode()
    url = f"/admin/matches/chatmessage/{message.pk}/remove/"
    assert client.post(url, {"reason": ""}).status_code == 200  # a reason is required
    assert client.post(url, {"reason": "insulting a player"}).status_code == 302
    message.refresh_from_db()
    assert message.deleted_at is not None
    log = ChatModeration.objects.get(message=message)
    assert (log.referee, log.action, log.reason) == (referee, "remove", "insulting a player")
    assert ChatReport.objects.get(message=message).reviewed
    assert chat.chat_history(table_id=match.table_id, player=spectator) == []


async def test_a_removal_leaves_every_board(match: Match, spectator: Player) -> None:
    def post_and_prepare_referee() -> tuple[int, User]:
        message = chat.chat_post(table_id=match.table_id, player=spectator, text="spam")
        referee = User.objects.create_user("ref2", password="x", is_staff=True)
        # Transactional tests flush the migrations' groups: give the permission directly.
        referee.user_permissions.add(Permission.objects.get(codename="moderate_chat"))
        return message.pk, User.objects.get(pk=referee.pk)

    message_id, referee = await sync_to_async(post_and_prepare_referee)()
    async with board(match.table_id, spectator) as watcher:
        assert [m["id"] for m in (await receive(watcher, "chat_history"))["messages"]] == [
            message_id]
        await sync_to_async(chat.chat_remove)(message_id=message_id, referee=referee,
                                              reason="spam")
        assert (await receive(watcher, "chat_removed"))["message_id"] == message_id


async def test_an_invited_spectator_of_a_private_table_chats(
        start_match: Callable[..., Match], spectator: Player) -> None:
    match = await sync_to_async(start_match)(dice=[[3, 1]], match_length=1, is_public=False)
    token = await sync_to_async(lambda: Table.objects.get(pk=match.table_id).invite_token)()
    path = f"/ws/tables/{match.table_id}/?invite={token}"
    async with board(match.table_id, spectator, path=path) as watcher:
        await receive(watcher, "chat_history")
        await watcher.send_json_to({"type": "chat", "text": "nice table", "ref": "chat"})
        got = (await receive(watcher, "chat"))["message"]
        assert (got["text"], got["room"]) == ("nice table", "spectators")
        await watcher.send_json_to({"type": "chat_report", "message_id": got["id"]})
        assert (await receive(watcher, "chat_reported"))["message_id"] == got["id"]
    # Without the invitation, the table stays closed to the stranger's words.
    with pytest.raises(ServiceError) as refused:
        await sync_to_async(chat.chat_post)(table_id=match.table_id, player=spectator,
                                            text="let me in")
    assert refused.value.code == "forbidden"


async def test_the_players_keep_their_room_after_the_match_and_into_the_rematch(
        match: Match, spectator: Player, make_player: Callable[..., Player]) -> None:
    player0, player1 = match.player0, match.player1
    await sync_to_async(chat.chat_post)(table_id=match.table_id, player=player0, text="gl")
    await sync_to_async(act)(match, 1, "resign")
    # Over: a board opened now still shows the players' room, and a player writes in it.
    async with board(match.table_id, player1) as bob, \
            board(match.table_id, spectator) as watcher:
        assert [m["text"] for m in (await receive(bob, "chat_history"))["messages"]] == ["gl"]
        await receive(watcher, "chat_history")
        await bob.send_json_to({"type": "chat", "text": "gg"})
        assert (await receive(bob, "chat"))["message"]["room"] == "players"
        await no_chat(watcher)
    await sync_to_async(match_rematch)(match_id=match.pk, player=player0)
    rematch = await sync_to_async(match_rematch)(match_id=match.pk, player=player1)
    assert rematch.pk != match.pk
    async with board(match.table_id, player0) as alice, board(match.table_id, player1) as bob:
        history = (await receive(alice, "chat_history"))["messages"]
        assert [(m["text"], m["room"]) for m in history] == [("gl", "players"),
                                                             ("gg", "players")]
        await receive(bob, "chat_history")
        await alice.send_json_to({"type": "chat", "text": "again?"})
        assert (await receive(bob, "chat"))["message"]["text"] == "again?"
    # Once somebody else sits down there, the room is no longer theirs.
    await sync_to_async(act)(rematch, 0, "resign")
    newcomer = await sync_to_async(make_player)("newcomer")
    await sync_to_async(services.table_sit)(table_id=match.table_id, player=newcomer)
    history = await sync_to_async(chat.chat_history)(table_id=match.table_id, player=player0)
    assert [m["room"] for m in history] == []
