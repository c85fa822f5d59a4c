"""Starting a match against a bot: ``POST /api/bot-matches/`` and the lobby's page, one
service with one per-account bound (``TAVLA_BOT_MATCHES_PER_PLAYER``); every refusal is a
clear error and changes nothing; two requests at the same moment cannot both pass it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.db import connection
from django.test import Client
from rest_framework.test import APIClient

from matches import services
from matches.errors import ServiceError
from matches.gnubg.bots import bot_matches_playing, bot_table_create
from matches.models import Event, Match, MatchStatus, Player, Table
from tests.at_once import at_once
from tests.matches.test_api import assert_error, token_client

URL = "/api/bot-matches/"


def _counts() -> tuple[int, ...]:
    return (Table.objects.count(), Match.objects.count(), Event.objects.count(),
            Player.objects.count(), User.objects.count())


@pytest.mark.django_db
def test_a_player_starts_a_match_against_a_bot_over_rest(
    make_player: Callable[..., Player],
) -> None:
    human = make_player("rita")
    client = token_client(human)
    response = client.post(URL, {"strength": "casual_player", "match_length": 5,
                                 "cube_enabled": False, "gammons_enabled": False,
                                 "crawford": False, "clock_preset": "fast"}, format="json")
    assert response.status_code == 201, response.content
    body = response.json()
    table = Table.objects.get(pk=body["table"]["id"])
    assert not table.is_public and not table.is_rated and not table.bots_rated
    assert (table.match_length, table.cube_enabled, table.gammons_enabled, table.crawford,
            table.clock_enabled) == (5, False, False, False, True)
    assert body["table"]["invite"] == table.invite_token
    match = Match.objects.get(table=table)
    assert match.status == MatchStatus.PLAYING and match.has_bot
    assert match.player0 == human and match.player1.is_bot
    assert match.player1.bot_strength == "casual_player"
    assert body["state"]["match_id"] == match.pk and body["state"]["your_seat"] == 0
    assert body["table"]["current_match"] == match.pk
    # The defaults: a 1-point match, unrated, no clock.
    response = client.post(URL, {"strength": "expert"}, format="json")
    assert response.status_code == 201, response.content
    table = Table.objects.get(pk=response.json()["table"]["id"])
    assert (table.match_length, table.clock_enabled, table.is_rated) == (1, False, False)
    rated = client.post(URL, {"strength": "beginner", "rated": True}, format="json")
    assert rated.status_code == 201, rated.content
    table = Table.objects.get(pk=rated.json()["table"]["id"])
    assert table.is_rated and table.bots_rated


@pytest.mark.django_db
def test_the_strengths_and_the_bound_are_listed(make_player: Callable[..., Player],
                                                settings: Any) -> None:
    settings.TAVLA_BOT_MATCHES_PER_PLAYER = 4
    anonymous = APIClient().get(URL).json()
    assert [s["key"] for s in anonymous["strengths"]] == [
        "beginner", "casual_player", "intermediate", "advanced", "expert", "world_class"]
    assert anonymous["strengths"][0] == {"key": "beginner", "name": "Beginner", "plies": 0,
                                         "noise": 0.071, "gnubg_noise": 0.06}
    assert (anonymous["limit"], anonymous["playing"]) == (4, None)
    human = make_player("lena")
    bot_table_create(human=human, strength="advanced")
    assert token_client(human).get(URL).json()["playing"] == 1


BAD_BODIES = [
    ({}, "invalid_option", "strength"),
    ({"strength": "godlike"}, "invalid_option", "strength"),
    ({"strength": 3}, "invalid_option", "strength"),
    ({"strength": None}, "invalid_option", "strength"),
    ({"strength": "beginner", "rated": "yes"}, "invalid_option", "rated"),
    ({"strength": "beginner", "rated": 1}, "invalid_option", "rated"),
    ({"strength": "beginner", "match_length": 0}, "invalid_option", "match_length"),
    ({"strength": "beginner", "match_length": 100}, "invalid_option", "match_length"),
    ({"strength": "beginner", "match_length": "5"}, "invalid_option", "match_length"),
    ({"strength": "beginner", "match_length": 2.5}, "invalid_option", "match_length"),
    ({"strength": "beginner", "cube_enabled": "no"}, "invalid_option", "cube_enabled"),
    ({"strength": "beginner", "clock_preset": "blitz"}, "invalid_option", "clock_preset"),
    ({"strength": "beginner", "clock_delay": -1}, "invalid_option", "clock_delay"),
    ({"strength": "beginner", "resignation": "sometimes"}, "invalid_option", "resignation"),
    ({"strength": "beginner", "is_public": True}, "invalid_option", "is_public"),
    ({"strength": "beginner", "is_rated": True}, "invalid_option", "is_rated"),
    ({"strength": "beginner", "name": "Mine"}, "invalid_option", "name"),
    ({"strength": "beginner", "opponent": 7}, "invalid_option", "opponent"),
    ([], "bad_request", None),
    ("beginner", "bad_request", None),
]


@pytest.mark.django_db
@pytest.mark.parametrize(("body", "code", "field"), BAD_BODIES)
def test_each_bad_input_is_a_clear_400_and_changes_nothing(
    make_player: Callable[..., Player], body: Any, code: str, field: str | None,
) -> None:
    client = token_client(make_player("bert"))
    before = _counts()
    answer = assert_error(client.post(URL, body, format="json"), 400, code)
    if field is not None:
        assert field in answer["fields"], answer
        assert field in answer["detail"], answer
    assert _counts() == before


@pytest.mark.django_db
def test_an_anonymous_start_is_refused(make_player: Callable[..., Player]) -> None:
    make_player("someone")
    before = _counts()
    assert_error(APIClient().post(URL, {"strength": "beginner"}, format="json"), 401,
                 "not_authenticated")
    assert _counts() == before


@pytest.mark.django_db
def test_the_bound_refuses_one_more_bot_match_on_both_doors(
    make_player: Callable[..., Player], settings: Any,
) -> None:
    settings.TAVLA_BOT_MATCHES_PER_PLAYER = 2
    human = make_player("greedy")
    client = token_client(human)
    for strength in ("world_class", "world_class"):
        assert client.post(URL, {"strength": strength}, format="json").status_code == 201
    before = _counts()
    answer = assert_error(client.post(URL, {"strength": "beginner"}, format="json"), 409,
                          "too_many_bot_matches")
    assert "2" in answer["detail"]
    assert _counts() == before
    # The lobby's page is bounded by the same service: no new table, a translated message.
    page = Client()
    page.force_login(human.user)
    response = page.post("/lobby/bot/", {"strength": "beginner", "match_length": 3},
                         follow=True)
    assert _counts() == before
    assert "matches against bots" in response.content.decode()
    # Another account is not bounded by this one's matches.
    other = token_client(make_player("modest"))
    assert other.post(URL, {"strength": "beginner"}, format="json").status_code == 201
    # A finished match frees its place.
    match = Match.objects.filter(player0=human, status=MatchStatus.PLAYING).first()
    assert match is not None
    services.match_act(match_id=match.pk, player=human, action="resign",
                       expected_version=match.version)
    match.refresh_from_db()
    assert match.status != MatchStatus.PLAYING
    assert bot_matches_playing(human) == 1
    assert client.post(URL, {"strength": "beginner"}, format="json").status_code == 201


@pytest.mark.django_db
def test_no_bound_when_the_setting_is_zero(make_player: Callable[..., Player],
                                           settings: Any) -> None:
    settings.TAVLA_BOT_MATCHES_PER_PLAYER = 0
    human = make_player("free")
    for _ in range(4):
        bot_table_create(human=human, strength="beginner")
    assert bot_matches_playing(human) == 4


@pytest.mark.django_db(transaction=True)
def test_two_starts_at_the_same_moment_cannot_both_pass_the_bound(
    make_player: Callable[..., Player], settings: Any,
) -> None:
    """Real threads with their own connections, on committed data: PostgreSQL serialises
    them on the player's row lock (``SELECT ... FOR UPDATE``), SQLite by ``BEGIN
    IMMEDIATE``. Four requests, room for one: exactly one passes."""
    assert connection.vendor in ("postgresql", "sqlite")
    settings.TAVLA_BOT_MATCHES_PER_PLAYER = 1
    human = make_player("racer")
    results = at_once(lambda: bot_table_create(human=human, strength="beginner"), 4)
    started = [r for r in results if isinstance(r, Table)]
    refused = [r for r in results if isinstance(r, ServiceError)]
    assert len(started) == 1 and len(refused) == 3, results
    assert {error.code for error in refused} == {"too_many_bot_matches"}
    assert bot_matches_playing(human) == 1
    assert Table.objects.filter(created_by=human).count() == 1
