"""The REST API: a bot plays whole matches over HTTP; errors, permissions, the schema."""

from __future__ import annotations

import io
import json
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.core.management import call_command
from rest_framework.test import APIClient

from matches import services
from matches.models import Event, Match, Player, Table
from matches.rest.serializers import MatchStateSerializer
from tests import api_clients
from tests.matches.conftest import act

pytestmark = pytest.mark.django_db


def token_client(player: Player) -> APIClient:
    return api_clients.token_client(player.user)


def post_action(client: APIClient, match_id: int, **body: Any) -> Any:
    return client.post(f"/api/matches/{match_id}/actions/", body, format="json")


def assert_error(response: Any, status: int, code: str) -> dict[str, Any]:
    assert response.status_code == status, response.content
    body = response.json()
    assert body["error"] == code, body
    assert isinstance(body["detail"], str) and body["detail"]
    return dict(body)


def bot_move(state: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """A random legal action for the bot whose turn it is, from the public state only."""
    if state["phase"] == "move":
        play = rng.choice(state["legal_plays"])["notation"]
        return {"action": "play", "play": play, "expected_version": state["version"]}
    if state["phase"] == "cube_offered":
        choice = "take" if rng.random() < 0.7 else "drop"
        return {"action": choice, "expected_version": state["version"]}
    assert state["phase"] == "turn_start"
    if state["cube"]["may_double"] and rng.random() < 0.1:
        return {"action": "double", "expected_version": state["version"]}
    return {"action": "roll", "expected_version": state["version"]}


def play_over_http(clients: dict[int, APIClient], match_id: int, rng: random.Random,
                   max_actions: int = 5000) -> dict[str, Any]:
    """Each bot reads the state and acts when it is its turn, until the match is over."""
    state = clients[0].get(f"/api/matches/{match_id}/").json()
    for _ in range(max_actions):
        if state["status"] != "playing":
            return state
        seat = state["player_to_act"]
        client = clients[seat]
        mine = client.get(f"/api/matches/{match_id}/").json()
        assert mine["your_seat"] == seat
        response = post_action(client, match_id, **bot_move(mine, rng))
        assert response.status_code == 200, response.content
        state = response.json()
    raise AssertionError("the match did not end")


# -- a whole match -------------------------------------------------------------------------


def test_two_bots_play_a_whole_match_over_http(make_player):
    alice, bob = make_player("alice"), make_player("bob")
    clients = {}
    created = token_client(alice).post(
        "/api/tables/", {"name": "Bots", "match_length": 3, "is_rated": True}, format="json")
    assert created.status_code == 201, created.content
    table_id = created.json()["id"]
    for seat, player in enumerate((alice, bob)):
        clients[seat] = token_client(player)
        sat = clients[seat].post(f"/api/tables/{table_id}/sit/", {"seat": seat}, format="json")
        assert sat.status_code == 200, sat.content
    match_id = sat.json()["current_match"]
    assert match_id is not None

    final = play_over_http(clients, match_id, random.Random(7))

    assert final["status"] == "finished" and final["phase"] == "match_over"
    assert max(final["score"]) >= 3 and final["winner"] in (0, 1)
    match = Match.objects.get(pk=match_id)
    assert services.match_verify(match_id=match_id).ok
    events = APIClient().get(f"/api/matches/{match_id}/events/").json()
    assert [e["sequence"] for e in events] == list(range(match.events.count()))
    assert events[-1]["kind"] == "match_end"

    audit = APIClient().get(f"/api/matches/{match_id}/dice/").json()
    assert audit["seed_revealed"] and audit["seed"] == match.dice_seed
    assert audit["verified"] is True and audit["commitment_matches"] is True
    assert audit["dice_were_scripted"] is False and audit["scripted_rolls"] == 0
    assert audit["rolls"] and all(r["matches"] for r in audit["rolls"])

    mat = APIClient().get(f"/api/matches/{match_id}/mat/")
    assert mat.status_code == 200 and mat["Content-Type"].startswith("text/plain")
    assert f'filename="tavla-match-{match_id}.mat"' in mat["Content-Disposition"]
    text = mat.content.decode()
    assert " 3 point match" in text and "alice : 0" in text and "bob : 0" in text

    history = APIClient().get(f"/api/players/{alice.pk}/").json()["rating_history"]
    assert len(history) == 1 and history[0]["match"] == match_id
    assert history[0]["delta"] == pytest.approx(history[0]["after"] - history[0]["before"])


def test_a_money_session_is_ended_over_http(start_match):
    match = start_match(match_length=None, is_rated=False, dice=[[3, 1]])
    client = token_client(match.player1)
    response = post_action(client, match.pk, action="end_session",
                           expected_version=match.version)
    assert response.status_code == 200, response.content
    state = response.json()
    assert state["status"] == "finished" and state["winner"] == 0  # player 1 resigned game 1
    assert state["score"] == [1, 0]


# -- errors change nothing ----------------------------------------------------------------------


def _snapshot(match: Match) -> tuple[int, int, Any]:
    match.refresh_from_db()
    return match.version, match.events.count(), match.snapshot


def test_spectator_opponent_and_anonymous_cannot_act(start_match, make_player):
    match = start_match(dice=[[3, 1]])  # player 0 is to play 3-1
    before = _snapshot(match)
    version = match.version
    spectator = token_client(make_player("spectator"))
    assert_error(post_action(spectator, match.pk, action="play", play="8/5 6/5",
                             expected_version=version), 403, "not_a_player")
    opponent = token_client(match.player1)
    assert_error(post_action(opponent, match.pk, action="double", expected_version=version),
                 403, "not_your_turn")
    assert_error(post_action(APIClient(), match.pk, action="play", play="8/5 6/5",
                             expected_version=version), 401, "not_authenticated")
    assert _snapshot(match) == before
    # The spectator and anonymous readers still see the public match, without legal plays.
    for reader in (spectator, APIClient()):
        state = reader.get(f"/api/matches/{match.pk}/").json()
        assert state["version"] == version and state["legal_plays"] is None
        assert state["your_seat"] is None


def test_bad_requests_get_a_clear_error_and_change_nothing(start_match):
    match = start_match(dice=[[3, 1], [6, 6]])
    client = token_client(match.player0)
    before = _snapshot(match)
    version = match.version
    url = f"/api/matches/{match.pk}/actions/"

    malformed = client.post(url, "{not json", content_type="application/json")
    assert_error(malformed, 400, "bad_request")
    missing = assert_error(client.post(url, {"action": "play", "play": "8/5 6/5"},
                                       format="json"), 400, "bad_request")
    assert "expected_version" in missing["fields"]
    # The socket's codes (matches.validation): one vocabulary at both doors.
    assert_error(post_action(client, match.pk, action="castle", expected_version=version),
                 400, "unknown_action")
    assert_error(post_action(client, match.pk, action="play", expected_version=version),
                 400, "invalid_play")
    assert_error(post_action(client, match.pk, action="play", play="8/5 6/5",
                             expected_version=version - 1), 409, "stale_version")
    illegal = assert_error(post_action(client, match.pk, action="play", play="24/18",
                                       expected_version=version), 409, "illegal_action")
    assert "24/18" in illegal["detail"]
    assert_error(post_action(client, match.pk, action="play", play="nonsense",
                             expected_version=version), 409, "illegal_action")
    assert_error(post_action(client, match.pk, action="end_session", expected_version=version),
                 409, "illegal_action")
    assert _snapshot(match) == before

    played = post_action(client, match.pk, action="play", play="8/5 6/5",
                         expected_version=version)
    assert played.status_code == 200 and played.json()["version"] == version + 1
    # Sending the same action again is a stale duplicate.
    assert_error(post_action(client, match.pk, action="play", play="8/5 6/5",
                             expected_version=version), 409, "stale_version")


def test_doubling_when_the_cube_is_not_yours_is_refused(start_match):
    match = start_match(dice=[[3, 1], [5, 2], [6, 4]])
    match = act(match, 0, "play", "8/5 6/5")
    match = act(match, 1, "double")
    match = act(match, 0, "take")  # player 0 owns the cube at 2; player 1 rolled 5-2 at once
    match = act(match, 1, "play", "13/8 13/11")
    state = token_client(match.player0).get(f"/api/matches/{match.pk}/").json()
    assert state["cube"] == {"value": 2, "owner": 0, "may_double": True}
    match = act(match, 0, "roll")
    match = act(match, 0, "play", "24/18 13/9")
    # Player 1 does not own the cube: their turn starts with an automatic roll instead.
    state = token_client(match.player1).get(f"/api/matches/{match.pk}/").json()
    assert state["phase"] == "move" and state["player_to_act"] == 1
    response = post_action(token_client(match.player1), match.pk, action="double",
                           expected_version=state["version"])
    assert_error(response, 409, "illegal_action")


def test_finished_match_refuses_actions(start_match):
    match = start_match(dice=[[3, 1]], match_length=1)
    match = act(match, 0, "resign")
    response = post_action(token_client(match.player0), match.pk, action="roll",
                           expected_version=match.version)
    assert_error(response, 409, "match_over")


def test_private_matches_are_hidden_from_others(start_match, make_player):
    match = start_match(dice=[[3, 1]], is_public=False)
    assert_error(APIClient().get(f"/api/matches/{match.pk}/"), 404, "not_found")
    assert_error(token_client(make_player()).get(f"/api/matches/{match.pk}/events/"), 404,
                 "not_found")
    assert_error(token_client(make_player()).get(f"/api/tables/{match.table_id}/"), 404,
                 "not_found")
    mine = token_client(match.player0).get(f"/api/matches/{match.pk}/").json()
    assert mine["your_seat"] == 0 and mine["legal_plays"]
    assert [m["id"] for m in APIClient().get("/api/matches/").json()] == []
    assert [m["id"] for m in token_client(match.player1).get("/api/matches/").json()] == [
        match.pk]


def test_match_list_filters(start_match):
    done = start_match(dice=[[3, 1]], match_length=1)
    done = act(done, 0, "resign")
    playing = start_match(dice=[[3, 1]])
    client = APIClient()

    def ids(query: str) -> list[int]:
        response = client.get(f"/api/matches/{query}")
        assert response.status_code == 200, response.content
        return [m["id"] for m in response.json()]

    assert ids("?status=playing") == [playing.pk]
    assert ids("?status=finished") == [done.pk]
    assert ids(f"?player={done.player0_id}") == [done.pk]
    assert ids(f"?table={playing.table_id}") == [playing.pk]
    assert_error(client.get("/api/matches/?status=sleeping"), 400, "bad_request")


# -- tables and players -------------------------------------------------------------------------


def test_tables_create_filter_sit_and_stand(make_player):
    alice, bob, carol = make_player("alice"), make_player("bob"), make_player("carol")
    client = token_client(alice)

    def create(**body: Any) -> dict[str, Any]:
        response = client.post("/api/tables/", body, format="json")
        assert response.status_code == 201, response.content
        return dict(response.json())

    money = create(name="Money", match_length=None, is_rated=False)
    nocube = create(name="No cube", match_length=5, cube_enabled=False)
    blitz = create(name="Blitz", match_length=3, clock_preset="fast")
    create(name="Hidden", match_length=3, is_public=False)
    assert blitz["clock_enabled"] and blitz["clock_delay"] == 8
    assert blitz["clock_reserve_per_point"] == 20
    assert money["match_length"] is None and money["free_seats"] == [0, 1]

    def names(query: str = "", reader: APIClient | None = None) -> set[str]:
        response = (reader or APIClient()).get(f"/api/tables/{query}")
        assert response.status_code == 200, response.content
        return {t["name"] for t in response.json()}

    assert names() == {"Money", "No cube", "Blitz"}
    assert names(reader=client) == {"Money", "No cube", "Blitz", "Hidden"}
    assert names("?match_length=money") == {"Money"}
    assert names("?match_length=5") == {"No cube"}
    assert names("?cube=false") == {"No cube"}
    assert names("?rated=false") == {"Money"}
    assert names("?clock=true") == {"Blitz"}
    assert names("?public=false", reader=client) == {"Hidden"}
    assert_error(APIClient().get("/api/tables/?match_length=many"), 400, "bad_request")
    assert_error(client.post("/api/tables/", {"name": "x", "match_length": 0}, format="json"),
                 400, "invalid_option")
    assert_error(client.post("/api/tables/", {"name": "x", "clock_preset": "bullet"},
                             format="json"), 400, "invalid_option")
    assert_error(APIClient().post("/api/tables/", {"name": "x"}, format="json"), 401,
                 "not_authenticated")

    url = f"/api/tables/{nocube['id']}"
    sat = client.post(f"{url}/sit/", {}, format="json").json()
    assert sat["seat0"]["id"] == alice.pk and sat["free_seats"] == [1]
    assert names("?free_seat=true") == {"Money", "No cube", "Blitz"}
    assert_error(client.post(f"{url}/sit/", {}, format="json"), 409, "already_seated")
    assert_error(token_client(bob).post(f"{url}/sit/", {"seat": 0}, format="json"), 409,
                 "seat_taken")
    assert_error(token_client(bob).post(f"{url}/sit/", {"seat": 2}, format="json"), 400,
                 "invalid_seat")
    assert_error(token_client(bob).post(f"{url}/stand/"), 409, "not_seated")
    stood = client.post(f"{url}/stand/").json()
    assert stood["free_seats"] == [0, 1]
    client.post(f"{url}/sit/", {}, format="json")
    full = token_client(bob).post(f"{url}/sit/", {}, format="json").json()
    assert full["free_seats"] == [] and full["current_match"] is not None
    assert names("?free_seat=false") == {"No cube"}
    assert_error(token_client(carol).post(f"{url}/sit/", {}, format="json"), 409, "table_full")
    assert_error(client.post(f"{url}/stand/"), 409, "match_in_progress")
    assert Table.objects.get(pk=nocube["id"]).created_by == alice


def test_players_and_tokens(make_player):
    alice = make_player("alice")
    make_player("bob")
    listed = APIClient().get("/api/players/").json()
    assert [p["display_name"] for p in listed] == ["alice", "bob"]
    detail = APIClient().get(f"/api/players/{alice.pk}/").json()
    assert detail["rating"] == 1500 and detail["rating_history"] == []
    assert_error(APIClient().get("/api/players/999999/"), 404, "not_found")

    wrong = APIClient().post("/api/token/", {"username": "alice", "password": "nope"},
                             format="json")
    assert_error(wrong, 401, "authentication_failed")
    assert_error(APIClient().post("/api/token/", {"username": "alice"}, format="json"), 400,
                 "bad_request")
    got = APIClient().post("/api/token/", {"username": "alice", "password": "pass-alice"},
                           format="json")
    assert got.status_code == 200
    token = got.json()["token"]
    assert got.json()["player"]["id"] == alice.pk
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    assert client.get("/api/players/me/").json()["id"] == alice.pk
    assert_error(APIClient().get("/api/players/me/"), 401, "not_authenticated")


def test_session_authentication_works_too(start_match):
    match = start_match(dice=[[3, 1]])
    client = APIClient(enforce_csrf_checks=True)
    assert client.login(username=match.player0.user.username,
                        password="pass-" + match.player0.user.username)
    # Without the CSRF token a session write is refused, and nothing changes.
    response = post_action(client, match.pk, action="play", play="8/5 6/5",
                           expected_version=match.version)
    assert_error(response, 403, "forbidden")
    logged_in = APIClient()
    logged_in.force_login(match.player0.user)
    response = post_action(logged_in, match.pk, action="play", play="8/5 6/5",
                           expected_version=match.version)
    assert response.status_code == 200


# -- audit ------------------------------------------------------------------------------------


def test_dice_audit_hides_the_seed_until_the_end_and_flags_scripted_dice(start_match):
    match = start_match(dice=[[3, 1], [5, 2]], match_length=1, cube_enabled=False)
    audit = APIClient().get(f"/api/matches/{match.pk}/dice/").json()
    assert audit["seed"] is None and audit["seed_revealed"] is False
    assert audit["verified"] is None and audit["commitment"] == match.dice_commitment
    match = act(match, 0, "play", "8/5 6/5")  # player 1's roll 5-2 is scripted too
    match = act(match, 1, "play", "13/8 13/11")  # player 0's roll now comes from the seed
    match = act(match, 0, "resign")
    audit = APIClient().get(f"/api/matches/{match.pk}/dice/").json()
    assert audit["seed"] == match.dice_seed and audit["dice_were_scripted"] is True
    assert audit["scripted_rolls"] == 2
    assert [r["scripted"] for r in audit["rolls"]] == [True, True, False]
    assert audit["rolls"][2]["matches"] is True and audit["verified"] is True
    assert "SCRIPTED" in audit["detail"]


# -- schema and docs -----------------------------------------------------------------------------


def test_schema_validates_without_warnings(tmp_path: Path):
    out = tmp_path / "schema.yml"
    call_command("spectacular", "--validate", "--fail-on-warn", "--file", str(out),
                 stdout=io.StringIO(), stderr=io.StringIO())
    text = out.read_text()
    for path in ("/api/matches/{id}/actions/", "/api/tables/{id}/sit/", "/api/token/",
                 "/api/matches/{id}/dice/", "/api/matches/{id}/mat/", "/api/players/{id}/"):
        assert f"  {path}:" in text


def test_schema_and_docs_pages_respond(client):
    schema = client.get("/api/schema/?format=json")
    assert schema.status_code == 200
    assert "/api/matches/{id}/actions/" in json.loads(schema.content)["paths"]
    assert client.get("/api/docs/").status_code == 200
    assert client.get("/api/redoc/").status_code == 200


def test_state_serializer_documents_every_key_of_the_state(start_match):
    match = start_match(dice=[[3, 1]])
    state = token_client(match.player0).get(f"/api/matches/{match.pk}/").json()
    assert set(MatchStateSerializer().fields) == set(state)


# -- the hot path ------------------------------------------------------------------------------


def test_an_action_over_http_takes_a_bounded_number_of_queries(
        start_match, django_assert_max_num_queries: Callable[..., Any]):
    match = start_match(dice=[[3, 1], [5, 2]], cube_enabled=False)
    client = token_client(match.player0)
    client.get(f"/api/matches/{match.pk}/")
    # token, player, match (visibility), lock, user, 2 events x (sequence + insert),
    # match update, savepoints, the state read back
    with django_assert_max_num_queries(16):
        response = post_action(client, match.pk, action="play", play="8/5 6/5",
                               expected_version=match.version)
    assert response.status_code == 200
    assert Event.objects.filter(match=match).count() == 4


def test_a_user_without_a_player_gets_one_with_a_token():
    # A token user without a player gets one on first use.
    user = User.objects.create_user("newbie", password="pw-newbie-123")
    token = APIClient().post("/api/token/", {"username": "newbie", "password": "pw-newbie-123"},
                             format="json").json()
    assert token["player"]["display_name"] == "newbie"
    assert Player.objects.filter(user=user).exists()
