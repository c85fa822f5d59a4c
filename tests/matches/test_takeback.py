"""Takeback in casual play (matches.services.takeback): asked after one's own play, answered
by the opponent; the same dice come back; refused on rated, tournament and bot tables; the
log replays, verifies, and its dice audit still recomputes."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from matches import selectors, services
from matches.audit import dice_audit, replay_steps
from matches.errors import ServiceError
from matches.models import Event, LogKind, Match, Player, Table
from matches.services.takeback import match_takeback
from matches.state import load_state
from tests.matches.conftest import act


def casual(start_match: Callable[..., Match], **rules: object) -> Match:
    """Seat 0 opens with 3-1 and plays it; the server then rolls 6-4 for seat 1 (no cube)."""
    rules.setdefault("cube_enabled", False)
    match = start_match(dice=[[3, 1], [6, 4], [5, 2]], is_rated=False, **rules)
    act(match, 0, "play", "8/5 6/5")
    state = load_state(match)
    assert state.player_to_act == 1 and state.dice == (6, 4)
    return match


def ask(match: Match, seat: int, answer: str) -> Match:
    match.refresh_from_db()
    player = match.player0 if seat == 0 else match.player1
    match_takeback(match_id=match.pk, player=player, answer=answer)
    match.refresh_from_db()
    return match


def refused(match: Match, seat: int, answer: str) -> str:
    """The error code of a refused takeback command; asserts nothing changed."""
    match.refresh_from_db()
    version, events = match.version, match.events.count()
    with pytest.raises(ServiceError) as error:
        ask(match, seat, answer)
    match.refresh_from_db()
    assert (match.version, match.events.count()) == (version, events)
    return error.value.code


@pytest.mark.django_db
def test_an_accepted_takeback_restores_the_same_dice_and_the_log_replays(
        start_match: Callable[..., Match]) -> None:
    match = casual(start_match)
    version = match.version
    match = ask(match, 0, "request")
    assert match.takeback_seat == 0 and match.version == version + 1
    assert selectors.match_state(Match.objects.select_related("player0", "player1", "table")
                                 .get(pk=match.pk))["takeback"] == {"asked_by": 0}
    match = ask(match, 1, "accept")
    state = load_state(match)
    # Back to seat 0's turn with the opening 3-1 to play again, on the starting board.
    assert state.player_to_act == 0 and state.dice == (3, 1)
    assert match.takeback_seat is None
    assert [p.notation() for p in state.legal_plays()]  # a move is to be made
    act(match, 0, "play", "24/21 24/23")
    # Seat 1 gets the very roll the takeback undid, not a new one.
    assert load_state(match).dice == (6, 4)
    kinds = list(match.events.values_list("kind", flat=True))
    assert LogKind.TAKEBACK_REQUEST in kinds and LogKind.TAKEBACK_ACCEPT in kinds
    accept = match.events.get(kind=LogKind.TAKEBACK_ACCEPT)
    assert len(accept.payload["undone"]) == 2  # seat 0's play and the server's roll for seat 1
    assert services.match_verify(match_id=match.pk).ok
    texts = [step.description for step in replay_steps(match)]
    assert any("asks to take back" in text for text in texts)
    assert any("accepts the takeback" in text for text in texts)
    # The current game shows the play as replayed, not the one taken back.
    plays = [e["play"] for e in load_state(match).current_game.to_dict()["events"]
             if e.get("play")]
    assert plays == ["24/23 24/21"]


@pytest.mark.django_db
def test_fair_dice_are_not_rerolled_and_the_dice_audit_verifies(
        start_match: Callable[..., Match]) -> None:
    match = start_match(is_rated=False, cube_enabled=False, match_length=1)
    state = load_state(match)
    first = state.player_to_act
    assert first is not None
    plays = state.legal_plays()
    act(match, first, "play", plays[0].notation())
    opponent_roll = load_state(match).dice
    match = ask(match, first, "request")
    match = ask(match, 1 - first, "accept")
    again = load_state(match)
    assert again.dice == state.dice and again.player_to_act == first
    act(match, first, "play", plays[-1].notation())
    assert load_state(match).dice == opponent_roll  # the same roll in the same place
    act(match, 1 - first, "resign")  # the match ends: the seed is revealed
    audit = dice_audit(Match.objects.get(pk=match.pk))
    assert audit["verified"] is True, audit["detail"]
    assert services.match_verify(match_id=match.pk).ok


@pytest.mark.django_db
def test_decline_and_withdraw_leave_the_position_and_are_logged(
        start_match: Callable[..., Match]) -> None:
    match = casual(start_match)
    before = match.snapshot
    match = ask(match, 0, "request")
    assert refused(match, 0, "request") == "takeback_pending"
    assert refused(match, 0, "accept") == "no_takeback"  # one's own request
    match = ask(match, 1, "decline")
    assert match.takeback_seat is None and match.snapshot == before
    assert match.events.filter(kind=LogKind.TAKEBACK_DECLINE).count() == 1
    match = ask(match, 0, "request")
    match = ask(match, 0, "decline")  # the asker withdraws
    assert match.takeback_seat is None
    assert refused(match, 1, "accept") == "no_takeback"


@pytest.mark.django_db
def test_the_opponent_acting_withdraws_the_request_and_closes_the_window(
        start_match: Callable[..., Match]) -> None:
    match = casual(start_match)
    match = ask(match, 0, "request")
    act(match, 1, "play", "24/18 13/9")
    match.refresh_from_db()
    assert match.takeback_seat is None
    assert refused(match, 1, "accept") == "no_takeback"
    # Seat 0 is on roll now (the server rolled 5-2): nothing of theirs to take back, and
    # seat 1's play was answered by that roll only, which is seat 0's own.
    assert refused(match, 0, "request") == "takeback_unavailable"


@pytest.mark.django_db
def test_with_the_cube_the_request_comes_before_the_opponent_rolls(
        start_match: Callable[..., Match]) -> None:
    match = start_match(dice=[[3, 1], [6, 4]], is_rated=False, cube_enabled=True, match_length=5)
    act(match, 0, "play", "8/5 6/5")
    assert load_state(match).phase.value == "turn_start"  # seat 1 may double: not rolled
    match = ask(match, 0, "request")
    match = ask(match, 1, "accept")
    assert load_state(match).dice == (3, 1)
    act(match, 0, "play", "13/10 24/23")
    act(match, 1, "roll")
    assert load_state(match).dice == (6, 4)
    assert refused(match, 0, "request") == "takeback_unavailable"  # seat 1 rolled


@pytest.mark.django_db
def test_refused_on_rated_tournament_and_bot_tables(
        start_match: Callable[..., Match], make_player: Callable[..., Player]) -> None:
    rated = start_match(dice=[[3, 1], [6, 4]], is_rated=True, cube_enabled=False)
    act(rated, 0, "play", "8/5 6/5")
    assert refused(rated, 0, "request") == "takeback_rated"

    tournament = casual(start_match)
    Table.objects.filter(pk=tournament.table_id).update(reserved0=tournament.player0,
                                                        reserved1=tournament.player1)
    assert refused(tournament, 0, "request") == "takeback_tournament"

    bot = casual(start_match)
    Match.objects.filter(pk=bot.pk).update(has_bot=True)  # the flag a bot's match carries
    assert refused(bot, 0, "request") == "takeback_bot"

    casual_match = casual(start_match)
    assert refused(casual_match, 1, "request") == "takeback_unavailable"  # seat 1 is to play
    assert refused(casual_match, 0, "maybe") == "bad_request"
    with pytest.raises(ServiceError) as stranger:
        match_takeback(match_id=casual_match.pk, player=make_player(), answer="request")
    assert stranger.value.code == "not_a_player"


@pytest.mark.django_db
def test_a_logged_takeback_to_an_unknown_event_does_not_replay(
        start_match: Callable[..., Match]) -> None:
    match = casual(start_match)
    match = ask(match, 0, "request")
    match = ask(match, 1, "accept")
    Event.objects.filter(match=match, kind=LogKind.TAKEBACK_ACCEPT).update(
        payload={"restore_to": 999, "undone": []})
    verification = services.match_verify(match_id=match.pk)
    assert not verification.ok and "takes back" in verification.detail


@pytest.mark.django_db
def test_the_rest_door_gives_the_same_answers(start_match: Callable[..., Match]) -> None:
    match = casual(start_match)

    def client(player: Player) -> APIClient:
        api = APIClient()
        api.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=player.user)}")
        return api

    asker, answerer = client(match.player0), client(match.player1)
    url = f"/api/matches/{match.pk}/takeback/"
    asked = asker.post(url, {"answer": "request"}, format="json")
    assert asked.status_code == 200 and asked.json()["takeback"] == {"asked_by": 0}
    again = asker.post(url, {"answer": "request"}, format="json")
    assert again.status_code == 409 and again.json()["error"] == "takeback_pending"
    bad = answerer.post(url, {"answer": "perhaps"}, format="json")
    assert bad.status_code == 400 and bad.json()["error"] == "bad_request"
    accepted = answerer.post(url, {"answer": "accept"}, format="json")
    assert accepted.status_code == 200
    assert accepted.json()["dice"] == [3, 1] and accepted.json()["player_to_act"] == 0
