"""A refusal's ``detail`` reaches each reader in the reader's language, through every door.

The socket takes the page's rule (the ``django_language`` cookie, else ``Accept-Language``,
else English: :mod:`matches.live.language`); REST and pages take it from ``LocaleMiddleware``.
Each test compares the detail with ``gettext`` of the sentence in the reader's language, and
checks that this is not the English sentence: a test whose sentence the Persian or Turkish
catalogue does not translate yet fails until it does (``make messages``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncJsonWebsocketConsumer
from channels.testing import WebsocketCommunicator
from django.contrib.messages import get_messages
from django.test import Client
from django.urls import reverse
from django.utils import translation
from django.utils.translation import gettext
from rest_framework.test import APIClient

from matches.engine_words import listed_plays
from matches.live.language import ReaderLanguage, reader_language
from matches.models import Match, Player
from matches.state import load_state
from tavla.site.asgi import application
from tests.matches.test_api import assert_error, token_client
from tests.matches.test_consumer import (  # noqa: F401 - the fixture closes pool connections
    ORIGIN,
    _close_consumer_connections,
    opening_match,
    receive,
    session_cookie,
)


def in_language(language: str, msgid: str, params: dict[str, Any] | None = None) -> str:
    """``msgid`` (with ``params``) as a reader of ``language`` reads it."""
    with translation.override(language):
        text = gettext(msgid)
    return text % params if params is not None else text


def translated(language: str, msgid: str, params: dict[str, Any] | None = None) -> str:
    """The sentence in ``language``, which must differ from the English one."""
    text = in_language(language, msgid, params)
    assert text != in_language("en", msgid, params), (
        f"the {language} catalogue does not translate {msgid!r} yet")
    return text


# -- the socket's language: the page's rule --------------------------------------------------


def _scope(*headers: tuple[bytes, bytes]) -> dict[str, Any]:
    return {"type": "websocket", "headers": list(headers)}


def test_a_socket_reads_its_language_as_a_page_does() -> None:
    assert reader_language(_scope()) == "en"
    assert reader_language(_scope((b"accept-language", b"fa-IR,fa;q=0.9,en;q=0.5"))) == "fa"
    assert reader_language(_scope((b"accept-language", b"tr"))) == "tr"
    # The language menu's cookie beats the browser's header, as it does for pages.
    assert reader_language(_scope((b"cookie", b"sessionid=x; django_language=tr"),
                                  (b"accept-language", b"fa"))) == "tr"
    # A language the site does not have falls back to the header, then to English.
    assert reader_language(_scope((b"cookie", b"django_language=xx"),
                                  (b"accept-language", b"fa"))) == "fa"
    assert reader_language(_scope((b"accept-language", b"de-DE"))) == "en"
    # Channels' cookie middleware may have parsed the cookies already.
    assert reader_language({"type": "websocket", "headers": [],
                            "cookies": {"django_language": "fa"}}) == "fa"


class _Echo(ReaderLanguage, AsyncJsonWebsocketConsumer):  # type: ignore[misc]
    """Answers each message with the language active in its handler and in the database
    thread the handler hands work to (where the services raise their refusals)."""

    async def receive_json(self, content: Any, **kwargs: Any) -> None:
        in_thread = await database_sync_to_async(translation.get_language)()
        await self.send_json({"handler": translation.get_language(), "thread": in_thread})


@pytest.mark.parametrize(("headers", "language"), [
    ([], "en"),
    ([(b"accept-language", b"fa")], "fa"),
    ([(b"cookie", b"django_language=tr"), (b"accept-language", b"fa")], "tr"),
])
async def test_every_message_is_handled_in_the_socket_s_language(
        headers: list[tuple[bytes, bytes]], language: str) -> None:
    before = translation.get_language()
    communicator = WebsocketCommunicator(_Echo.as_asgi(), "/", headers=headers)
    connected, _ = await communicator.connect(timeout=5)
    assert connected
    try:
        for _ in range(2):
            await communicator.send_json_to({})
            assert await communicator.receive_json_from(timeout=5) == {
                "handler": language, "thread": language}
    finally:
        await communicator.disconnect()
    assert translation.get_language() == before  # the test's own context never changed


@pytest.mark.django_db(transaction=True)
async def test_a_persian_reader_s_illegal_play_is_refused_in_persian(
        opening_match: Match) -> None:  # noqa: F811
    match = opening_match
    login = (await sync_to_async(session_cookie)(match.player0))[0][1]
    headers = [ORIGIN, (b"cookie", login + b"; django_language=fa")]
    communicator = WebsocketCommunicator(application, f"/ws/tables/{match.table_id}/",
                                         headers=headers)
    connected, _ = await communicator.connect(timeout=5)
    assert connected
    try:
        state = await receive(communicator)
        await communicator.send_json_to({"type": "action", "action": "play", "play": "24/18",
                                         "expected_version": state["version"]})
        error = await receive(communicator, "error")
    finally:
        await communicator.disconnect()
    assert error["error"] == "illegal_action"  # the code is the same in every language
    engine_state = await sync_to_async(load_state)(match)
    with translation.override("fa"):
        plays = listed_plays(engine_state)
    assert error["detail"] == translated(
        "fa", "%(play)s is not a legal play with %(dice)s. Legal plays: %(plays)s.",
        {"play": "24/18", "dice": "3-1", "plays": plays})


# -- REST: LocaleMiddleware, Accept-Language --------------------------------------------------


def test_a_turkish_reader_s_second_seek_is_refused_in_turkish(
        make_player: Callable[..., Player]) -> None:
    client = token_client(make_player("alice"))
    body = {"match_length": 3, "clock_preset": "fast", "rated": False}
    assert client.post("/api/seeks/", body, format="json").status_code == 201
    english = assert_error(client.post("/api/seeks/", body, format="json"), 409, "seek_exists")
    assert english["detail"] == "You already seek a game on these terms."
    turkish = assert_error(client.post("/api/seeks/", body, format="json",
                                       HTTP_ACCEPT_LANGUAGE="tr"), 409, "seek_exists")
    assert turkish["detail"] == translated("tr", "You already seek a game on these terms.")


def test_a_turkish_reader_challenging_themself_is_refused_in_turkish(
        make_player: Callable[..., Player]) -> None:
    alice = make_player("alice")
    client = token_client(alice)
    english = assert_error(client.post("/api/challenges/", {"player": alice.pk}, format="json"),
                           400, "invalid_option")
    assert english["detail"] == "You cannot challenge yourself."
    assert english["fields"] == {"player": ["You cannot challenge yourself."]}
    turkish = assert_error(client.post("/api/challenges/", {"player": alice.pk}, format="json",
                                       HTTP_ACCEPT_LANGUAGE="tr"), 400, "invalid_option")
    words = translated("tr", "You cannot challenge yourself.")
    assert turkish["detail"] == words and turkish["fields"] == {"player": [words]}


def test_the_language_cookie_chooses_a_rest_refusal_s_language(
        make_player: Callable[..., Player]) -> None:
    alice = make_player("alice")
    client = APIClient()
    client.force_authenticate(alice.user)
    client.cookies["django_language"] = "tr"
    turkish = assert_error(client.post("/api/challenges/", {"player": alice.pk}, format="json",
                                       HTTP_ACCEPT_LANGUAGE="fa"), 400, "invalid_option")
    assert turkish["detail"] == translated("tr", "You cannot challenge yourself.")


# -- pages: messages.error ---------------------------------------------------------------------


def _page_refusal(player: Player, language: str, **form: str) -> str:
    client = Client(HTTP_ACCEPT_LANGUAGE=language)
    client.force_login(player.user)
    response = client.post(reverse("vacation"), form)
    assert response.status_code == 400
    (message,) = list(get_messages(response.wsgi_request))
    return str(message)


def test_a_page_refusal_is_shown_in_persian(make_player: Callable[..., Player]) -> None:
    player = make_player("alice")
    assert _page_refusal(player, "fa", action="start", days="0") == translated(
        "fa", "A vacation lasts a whole number of days, 1 or more.")


def test_a_service_refusal_on_a_page_is_shown_in_persian(
        make_player: Callable[..., Player]) -> None:
    player = make_player("alice")
    assert _page_refusal(player, "en", action="stop") == "You are not on vacation."
    assert _page_refusal(player, "fa", action="stop") == translated(
        "fa", "You are not on vacation.")
