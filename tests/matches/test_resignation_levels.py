"""Resignation levels at a table whose ``resignation`` is ``offer``: the services, REST and
the socket. (The rules themselves: ``tests/engine/test_resignation.py``.)"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from asgiref.sync import sync_to_async

from matches import services
from matches.models import Event, Game, GameEnding, LogKind, Match
from matches.services import ServiceError
from matches.state import load_state
from tests.matches.conftest import act
from tests.matches.test_api import assert_error, post_action, token_client
from tests.matches.test_consumer import board, receive, receive_version

# Player 0 wins the opening 3-1 and plays it; player 1 is then to double or roll.
OPENING = [[3, 1], [6, 4], [5, 2], [4, 1]]


@pytest.fixture
def offer_match(start_match: Callable[..., Match]) -> Match:
    match = start_match(dice=OPENING, match_length=7, resignation="offer")
    return act(match, 0, "play", "8/5 6/5")


def _act(match: Match, seat: int, action: str, **extra: Any) -> Match:
    match.refresh_from_db()
    player = match.player0 if seat == 0 else match.player1
    services.match_act(match_id=match.pk, player=player, action=action,
                       expected_version=match.version, **extra)
    match.refresh_from_db()
    return match


@pytest.mark.django_db
def test_an_accepted_gammon_resignation_scores_two_times_the_cube(offer_match: Match) -> None:
    match = _act(offer_match, 1, "resign", level=2)
    state = load_state(match)
    assert state.resign_offer is not None and state.player_to_act == 0
    assert Event.objects.filter(match=match, kind=LogKind.RESIGN).latest("sequence").payload[
        "action"] == {"type": "resign", "player": 1, "level": 2}
    with pytest.raises(ServiceError) as refused:  # the resigning player cannot answer
        _act(match, 1, "accept_resign")
    assert refused.value.code == "not_your_turn"
    match = _act(match, 0, "accept_resign")
    assert (match.score0, match.score1) == (2, 0)
    game = Game.objects.get(match=match, number=1)
    assert (game.points, game.ending, game.winner) == (2, GameEnding.RESIGN, match.player0)
    assert load_state(match).game_number == 2  # the next game started by itself


@pytest.mark.django_db
def test_a_refused_resignation_goes_on_where_it_was(offer_match: Match) -> None:
    before = load_state(offer_match)
    match = _act(offer_match, 1, "resign", level=3)
    with pytest.raises(ServiceError) as refused:  # nothing else while an offer waits
        _act(match, 1, "roll")
    assert refused.value.code == "not_your_turn"
    match = _act(match, 0, "reject_resign")
    after = load_state(match)
    assert after.resign_offer is None
    assert (after.phase, after.player_to_act, after.board, after.dice) == (
        before.phase, before.player_to_act, before.board, before.dice)
    assert Event.objects.filter(match=match, kind=LogKind.REJECT_RESIGN).count() == 1
    _act(match, 1, "roll")  # the game goes on


@pytest.mark.django_db
def test_bad_levels_and_single_tables(offer_match: Match, start_match: Callable[..., Match]
                                      ) -> None:
    version = Match.objects.get(pk=offer_match.pk).version
    for level in (0, 4, True, "2"):
        with pytest.raises(ServiceError) as bad:
            _act(offer_match, 1, "resign", level=level)
        assert bad.value.code == "invalid_level"
    with pytest.raises(ServiceError) as bad:
        _act(offer_match, 1, "roll", level=2)
    assert bad.value.code == "invalid_level"
    with pytest.raises(ServiceError) as none:
        _act(offer_match, 0, "accept_resign")
    assert none.value.code in ("not_your_turn", "illegal_action")
    assert Match.objects.get(pk=offer_match.pk).version == version  # nothing changed
    single = act(start_match(dice=OPENING, match_length=7), 0, "play", "8/5 6/5")
    with pytest.raises(ServiceError) as gammon:
        _act(single, 1, "resign", level=2)
    assert gammon.value.code == "illegal_action"
    single = _act(single, 1, "resign")
    assert (single.score0, single.score1) == (1, 0)


@pytest.mark.django_db
def test_rest_offer_accept_and_refuse(offer_match: Match) -> None:
    url_id = offer_match.pk
    them, me = token_client(offer_match.player0), token_client(offer_match.player1)
    version = Match.objects.get(pk=url_id).version
    assert_error(post_action(me, url_id, action="resign", level=5, expected_version=version),
                 400, "invalid_level")
    assert_error(post_action(me, url_id, action="roll", level=2, expected_version=version),
                 400, "invalid_level")
    offered = post_action(me, url_id, action="resign", level=2, expected_version=version)
    assert offered.status_code == 200, offered.content
    body = offered.json()
    assert body["resign_offer"] == {"player": 1, "level": 2} and body["player_to_act"] == 0
    refused = post_action(them, url_id, action="reject_resign",
                          expected_version=body["version"]).json()
    assert refused["resign_offer"] is None and refused["player_to_act"] == 1
    again = post_action(me, url_id, action="resign", level=2,
                        expected_version=refused["version"]).json()
    done = post_action(them, url_id, action="accept_resign", expected_version=again["version"])
    assert done.status_code == 200 and done.json()["score"] == [2, 0]


@pytest.mark.django_db(transaction=True)
async def test_socket_offer_and_accept(offer_match: Match) -> None:
    match = await sync_to_async(Match.objects.select_related("player0__user",
                                                             "player1__user").get)(
        pk=offer_match.pk)
    async with board(match.table_id, match.player0) as winner, \
            board(match.table_id, match.player1) as loser:
        first = await receive(loser)
        await receive(winner)
        await loser.send_json_to({"type": "action", "action": "resign", "level": 2,
                                  "expected_version": first["version"]})
        offered = await receive_version(winner, first["version"] + 1)
        assert offered["resign_offer"] == {"player": 1, "level": 2}
        await loser.send_json_to({"type": "action", "action": "resign", "level": "x",
                                  "expected_version": offered["version"]})
        error = await receive(loser, "error")
        assert error["error"] == "invalid_level"
        await winner.send_json_to({"type": "action", "action": "accept_resign",
                                   "expected_version": offered["version"]})
        done = await receive_version(loser, offered["version"] + 1)
    assert done["score"] == [2, 0] and done["resign_offer"] is None


@pytest.mark.django_db
def test_ending_a_money_session_at_an_offer_table_resigns_a_single_game(
        start_match: Callable[..., Match]) -> None:
    match = act(start_match(dice=OPENING, match_length=None, resignation="offer"), 0, "play",
                "8/5 6/5")
    match = _act(match, 1, "resign", level=2)
    with pytest.raises(ServiceError) as waiting:
        services.match_end_session(match_id=match.pk, player=match.player1,
                                   expected_version=match.version)
    assert waiting.value.code == "illegal_action"
    match = _act(match, 0, "reject_resign")
    services.match_end_session(match_id=match.pk, player=match.player1,
                               expected_version=match.version)
    match.refresh_from_db()
    assert (match.score0, match.score1) == (1, 0) and match.is_finished
