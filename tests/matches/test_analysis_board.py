"""The analysis board, hints and the per-account bound, through the REST API.

gnubg answers in this process where a test needs an answer (``answer_request``, as the
worker calls it); ``test_analysis_board_worker.py`` runs the same through a real worker.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.test import Client
from django.utils import translation

from matches.gnubg.analysis import analysis_request
from matches.gnubg.bots import bot_table_create
from matches.gnubg.evaluation import answer_request, bot_act
from matches.models import AnalysisRequest, Match, MatchAnalysis, Player
from matches.state import load_state
from tavla.engine import MatchInfo, Position, encode_match_id, legal_plays
from tests.matches.conftest import act

OPENING_52 = "XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:0:0:10"


def login(client: Client, player: Player) -> Client:
    client.force_login(player.user)
    return client


def ask(client: Client, body: dict[str, Any]) -> Any:
    return client.post("/api/analysis/board/", body, content_type="application/json")


@pytest.mark.django_db
def test_an_xgid_is_answered_with_every_play_ranked(
    client: Client, make_player: Callable[..., Player],
) -> None:
    login(client, make_player())
    response = ask(client, {"xgid": OPENING_52})
    assert response.status_code == 202, response.json()
    data = response.json()
    assert data["status"] == "evaluating" and data["decision"] == "checker"
    assert data["dice"] == [5, 2] and data["position_id"] == "4HPwATDgc/ABMA"
    assert data["share_url"].startswith("/analysis/board/?xgid=XGID%3D")
    answer_request(data["id"])
    polled = client.get(f"/api/analysis/requests/{data['id']}/")
    assert polled.status_code == 200
    plays = polled.json()["answer"]["plays"]
    notations = {play.notation() for play in legal_plays(Position.initial(), 5, 2)}
    assert {entry["play"] for entry in plays} == notations
    equities = [entry["equity"] for entry in plays]
    assert equities == sorted(equities, reverse=True)
    assert plays[0]["loss"] == 0 and all(
        entry["loss"] == pytest.approx(equities[0] - entry["equity"]) for entry in plays)
    # The two book plays of an opening 5-2 lead; the worst loses far more.
    assert {plays[0]["play"], plays[1]["play"]} == {"13/11 13/8", "24/22 13/8"}
    assert plays[-1]["loss"] > 0.1

    # The same question again is answered from the stored answer at once.
    again = ask(client, {"position_id": "4HPwATDgc/ABMA", "match_id": data["match_id"]})
    assert again.status_code == 200 and again.json()["answer"] == polled.json()["answer"]


@pytest.mark.django_db
def test_a_cube_decision_gets_three_equities_and_a_verdict(
    client: Client, make_player: Callable[..., Player],
) -> None:
    login(client, make_player())
    response = ask(client, {"xgid": OPENING_52, "dice": None, "plies": 0})
    assert response.status_code == 202 and response.json()["decision"] == "cube"
    answer_request(response.json()["id"])
    cube = client.get(f"/api/analysis/requests/{response.json()['id']}/").json()["answer"]["cube"]
    assert cube["verdict"] == "no_double_take" and cube["best"] == "no_double"
    assert cube["no_double"] > cube["double_take"] - 1 and cube["double_pass"] == 1.0
    assert {"double_loss", "take_loss"} <= set(cube) and "mwc" not in cube  # money


@pytest.mark.django_db
@pytest.mark.parametrize(("body", "field", "words"), [
    ({}, "xgid", "Send an xgid"),
    ([], "xgid", "JSON object"),
    ({"xgid": "XGID=nonsense"}, "xgid", "expected 10 fields"),
    ({"xgid": OPENING_52, "plies": 3}, "plies", "0, 1 or 2"),
    ({"xgid": OPENING_52, "plies": "1"}, "plies", "0, 1 or 2"),
    ({"xgid": OPENING_52, "dice": [7, 1]}, "dice", "1-6"),
    ({"xgid": OPENING_52, "dice": [1]}, "dice", "1-6"),
    ({"xgid": OPENING_52, "position_id": "4HPwATDgc/ABMA"}, "xgid", "not both"),
    ({"position_id": "4HPwATDgc/ABM", "match_id": "cAkAAAAAAAAA"}, "position_id", "14"),
    ({"position_id": "4HPwATDgc/ABMA", "match_id": "!!"}, "match_id", "Match ID"),
    ({"xgid": "XGID=-b----E-C---eE---c-e----B-:1:-1:1:00:0:0:0:5:10"}, "dice",
     "belongs to the opponent"),
    ({"xgid": "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:4:1:1:5:10"}, "dice", "Crawford"),
    ({"xgid": "XGID=-b----E-C---eE---c-e----B-:1:1:1:00:3:1:0:5:10"}, "dice", "dead"),
])
def test_bad_questions_get_a_clear_error_and_store_nothing(
    client: Client, make_player: Callable[..., Player], body: Any, field: str, words: str,
) -> None:
    login(client, make_player())
    response = ask(client, body)
    assert response.status_code == 400, response.json()
    data = response.json()
    assert data["error"] == "invalid_position" and field in data["fields"]
    assert words in data["detail"]
    assert not AnalysisRequest.objects.exists()


@pytest.mark.django_db
@pytest.mark.parametrize("language", ["fa", "tr"])
def test_an_unreadable_xgid_is_explained_in_the_readers_language(
    client: Client, make_player: Callable[..., Player], language: str,
) -> None:
    """The engine's reason is English: another reader gets the field's sentence alone."""
    login(client, make_player())
    response = client.post("/api/analysis/board/", {"xgid": "XGID=nonsense"},
                           content_type="application/json", HTTP_ACCEPT_LANGUAGE=language)
    assert response.status_code == 400
    detail = response.json()["detail"]
    english = ("This XGID cannot be read: it looks like "
               "XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:0:0:10.")
    with translation.override(language):
        assert detail == translation.gettext(english) != english
    assert "expected 10 fields" not in detail


@pytest.mark.django_db
def test_the_board_needs_a_login(client: Client) -> None:
    assert ask(client, {"xgid": OPENING_52}).status_code == 401
    assert client.get("/analysis/board/").status_code == 302


@pytest.mark.django_db
def test_the_live_position_of_ones_own_match_is_refused_from_either_side(
    client: Client, make_player: Callable[..., Player], start_match: Callable[..., Match],
) -> None:
    alice, bob, carol = make_player("alice"), make_player("bob"), make_player("carol")
    match = start_match(players=(alice, bob), dice=[[6, 1], [3, 1]], match_length=5)
    match = act(match, 0, "play", "13/7 8/7")
    board = load_state(match).board
    info = MatchInfo(dice=(3, 1), match_length=5)
    for view, on_roll in ((board, 0), (board.swap(), 1), (board.swap(), 0)):
        body = {"position_id": view.to_id(),
                "match_id": encode_match_id(MatchInfo(player_on_roll=on_roll, turn=on_roll,
                                                      dice=(3, 1), match_length=5))}
        for player in (alice, bob):
            response = ask(login(client, player), body)
            assert response.status_code == 403, response.json()
            assert response.json()["error"] == "live_position"
        assert not AnalysisRequest.objects.exists()
    # Someone who does not play in the match may ask; so may the players once it is over.
    body = {"position_id": board.swap().to_id(), "match_id": encode_match_id(info)}
    assert ask(login(client, carol), body).status_code == 202
    # A different position is not refused to the players either.
    other = Position.from_id("4HPwATDgc/ABMA")
    assert other not in (board, board.swap())
    assert ask(login(client, alice), {"position_id": other.to_id(),
                                      "match_id": encode_match_id(info)}).status_code == 202


@pytest.mark.django_db
def test_the_bound_on_waiting_analysis_requests(
    client: Client, make_player: Callable[..., Player], start_match: Callable[..., Match],
    settings: Any,
) -> None:
    settings.TAVLA_ANALYSIS_REQUESTS_PER_ACCOUNT = 2
    player = make_player()
    login(client, player)
    first = ask(client, {"xgid": OPENING_52})
    second = ask(client, {"xgid": OPENING_52, "dice": [6, 1]})
    assert first.status_code == second.status_code == 202
    # Asking the same question again is the same request, not a new one.
    assert ask(client, {"xgid": OPENING_52}).json()["id"] == first.json()["id"]
    third = ask(client, {"xgid": OPENING_52, "dice": [4, 2]})
    assert third.status_code == 429
    assert third.json()["error"] == "too_many_analyses"
    assert "2 analysis requests waiting" in third.json()["detail"]
    assert AnalysisRequest.objects.filter(player=player).count() == 2
    # Once one is answered there is room again.
    answer_request(first.json()["id"])
    assert ask(client, {"xgid": OPENING_52, "dice": [4, 2]}).status_code == 202
    # Another account is not bound by this one's requests.
    assert ask(login(client, make_player()), {"xgid": OPENING_52, "dice": [3, 3]}
               ).status_code == 202


@pytest.mark.django_db
def test_a_finished_matchs_waiting_analysis_counts_towards_the_bound(
    client: Client, make_player: Callable[..., Player], start_match: Callable[..., Match],
    settings: Any,
) -> None:
    settings.TAVLA_ANALYSIS_REQUESTS_PER_ACCOUNT = 1
    settings.TAVLA_ANALYSE_FINISHED_MATCHES = False
    player = make_player()
    match = start_match(players=(player, make_player()), dice=[[6, 1]], match_length=1)
    match = act(match, 0, "resign")
    assert match.is_finished
    analysis_request(match)
    assert MatchAnalysis.objects.get(match=match).status == "pending"
    response = ask(login(client, player), {"xgid": OPENING_52})
    assert response.status_code == 429 and response.json()["error"] == "too_many_analyses"


def _human_to_act(match: Match) -> Match:
    """Let the bot act (gnubg in this process) until the human in seat 0 must decide."""
    for _ in range(50):
        match.refresh_from_db()
        state = load_state(match)
        if state.player_to_act == 0 and state.resign_offer is None:
            return match
        assert bot_act(match_id=match.pk, version=match.version)
    raise AssertionError("the bot never let the human act")


@pytest.mark.django_db
def test_a_hint_in_unrated_practice_against_the_bot(
    client: Client, make_player: Callable[..., Player],
) -> None:
    human = make_player()
    table = bot_table_create(human=human, strength="beginner", match_length=3)
    match = _human_to_act(Match.objects.get(table=table))
    response = login(client, human).post(f"/api/matches/{match.pk}/hint/")
    assert response.status_code == 202, response.json()
    data = response.json()
    assert data["kind"] == "hint" and data["match"] == match.pk
    assert data["match_version"] == match.version
    answer_request(data["id"])
    answer = client.get(f"/api/analysis/requests/{data['id']}/").json()["answer"]
    state = load_state(match)
    if state.dice:
        assert answer["plays"][0]["loss"] == 0
        assert {e["play"] for e in answer["plays"]} == {p.notation() for p in state.legal_plays()}
    else:
        assert answer["cube"]["verdict"]


@pytest.mark.django_db
def test_no_hints_on_a_rated_table_or_against_a_person_or_for_a_spectator(
    client: Client, make_player: Callable[..., Player], start_match: Callable[..., Match],
) -> None:
    human = make_player()
    rated = bot_table_create(human=human, strength="beginner", match_length=3, rated=True)
    match = _human_to_act(Match.objects.get(table=rated))
    response = login(client, human).post(f"/api/matches/{match.pk}/hint/")
    assert response.status_code == 403 and response.json()["error"] == "hints_not_allowed"

    bob = make_player()
    people = start_match(players=(human, bob), dice=[[6, 1]], match_length=3)
    for player in (human, bob):
        response = login(client, player).post(f"/api/matches/{people.pk}/hint/")
        assert response.status_code == 403 and response.json()["error"] == "hints_not_allowed"
        assert "never against a person" in response.json()["detail"]

    unrated = bot_table_create(human=make_player(), strength="beginner", match_length=3)
    watched = Match.objects.get(table=unrated)
    response = login(client, bob).post(f"/api/matches/{watched.pk}/hint/")
    assert response.status_code == 403 and response.json()["error"] == "not_a_player"
    assert client.post("/api/matches/999999/hint/").status_code == 404
    assert not AnalysisRequest.objects.exists()


@pytest.mark.django_db
def test_no_hint_when_it_is_the_bots_turn(
    client: Client, make_player: Callable[..., Player],
) -> None:
    human = make_player()
    table = bot_table_create(human=human, strength="beginner", match_length=3)
    match = _human_to_act(Match.objects.get(table=table))
    state = load_state(match)
    if state.dice is None:
        act(match, 0, "roll")
        match.refresh_from_db()
    state = load_state(match)
    plays = state.legal_plays()
    act(match, 0, "play", plays[0].notation() if plays else "")
    match.refresh_from_db()
    if load_state(match).player_to_act == 1:
        response = login(client, human).post(f"/api/matches/{match.pk}/hint/")
        assert response.status_code == 409 and response.json()["error"] == "no_decision"


@pytest.mark.django_db
def test_the_table_page_offers_the_hint_button_only_where_hints_are_allowed(
    client: Client, make_player: Callable[..., Player], start_match: Callable[..., Match],
) -> None:
    human = make_player()
    practice = bot_table_create(human=human, strength="beginner", match_length=3)
    rated = bot_table_create(human=human, strength="beginner", match_length=3, rated=True)
    bob = make_player()
    people = start_match(players=(human, bob), dice=[[6, 1]], match_length=3)
    login(client, human)
    assert b'id="gnubg-hint"' in client.get(f"/tables/{practice.pk}/").content
    assert b'id="gnubg-hint"' not in client.get(f"/tables/{rated.pk}/").content
    assert b'id="gnubg-hint"' not in client.get(f"/tables/{people.table_id}/").content
