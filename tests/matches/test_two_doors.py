"""One protocol, two doors: a whole match played over REST and over the socket at once, and
every kind of bad input sent through both, with the same code for each.

Seat 0 plays over REST, seat 1 over its board's socket, and a spectator watches. After every
action each viewer's socket state (pushed by the server) must equal what REST answers that
viewer for the same match at the same version — field for field, legal plays included; only
``server_time`` (the moment of each answer) may differ. The history must agree too.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator
from rest_framework.test import APIClient

from matches import services
from matches.errors import ERROR_STATUS
from matches.live import socket_limits
from matches.live.consumers import CLOSE_NO_TABLE
from matches.models import Event, Match, Player, Table
from tavla.site.asgi import application
from tests.matches.test_api import token_client
from tests.matches.test_consumer import (  # noqa: F401 - the fixture closes pool connections
    ORIGIN,
    _close_consumer_connections,
    board,
    receive,
    receive_version,
    session_cookie,
)

pytestmark = [pytest.mark.django_db(transaction=True)]


@pytest.fixture
def fair_match(start_match: Callable[..., Match], settings: Any) -> Match:
    socket_limits.reset_limits()
    # A few hundred reads in a minute: more than an anonymous client may make by default.
    settings.TAVLA_API_RATES = {**settings.TAVLA_API_RATES, "anonymous": "100000/min"}
    # And a hundred socket actions in a few seconds: more than a board's 15 a second (the
    # error went to seat 1's board unread, and the match stopped when the test ran fast).
    settings.TAVLA_SOCKET_BURST = settings.TAVLA_SOCKET_RATE = 10_000
    match = start_match(match_length=1)  # fair dice, the cube on
    return Match.objects.select_related("player0__user", "player1__user").get(pk=match.pk)


def comparable(state: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in state.items() if key != "server_time"}


def choose(state: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    body: dict[str, Any] = {"expected_version": state["version"]}
    if state["phase"] == "turn_start":
        body["action"] = "double" if state["cube"]["may_double"] and rng.random() < 0.1 \
            else "roll"
    elif state["phase"] == "cube_offered":
        body["action"] = "take"
    else:
        body.update(action="play", play=rng.choice(state["legal_plays"])["notation"])
    return body


async def test_a_whole_match_shows_the_same_states_over_rest_and_the_socket(
        fair_match: Match) -> None:
    match = fair_match
    rest = {0: await sync_to_async(token_client)(match.player0),
            1: await sync_to_async(token_client)(match.player1), None: APIClient()}
    url = f"/api/matches/{match.pk}/"

    async def over_rest(viewer: int | None) -> dict[str, Any]:
        response = await sync_to_async(rest[viewer].get)(url)
        assert response.status_code == 200, response.content
        return dict(response.json())

    rng = random.Random(4)
    async with board(match.table_id, match.player0) as seat0, \
            board(match.table_id, match.player1) as seat1, board(match.table_id) as watcher:
        boards = {0: seat0, 1: seat1, None: watcher}
        shown = {viewer: await receive(socket) for viewer, socket in boards.items()}
        compared = 0
        for _ in range(1000):
            for viewer, state in shown.items():
                assert comparable(state) == comparable(await over_rest(viewer)), viewer
                compared += 1
            state = shown[0]
            if state["status"] != "playing":
                break
            seat = state["player_to_act"]
            body = choose(shown[seat], rng)
            if seat == 0:
                response = await sync_to_async(rest[0].post)(f"{url}actions/", body,
                                                             format="json")
                assert response.status_code == 200, response.content
                answered = response.json()
            else:
                await seat1.send_json_to({"type": "action", **body})
            version = body["expected_version"] + 1
            shown = {viewer: await receive_version(socket, version)
                     for viewer, socket in boards.items()}
            assert {s["version"] for s in shown.values()} == {version}
            if seat == 0:
                assert comparable(answered) == comparable(shown[0])
        else:
            raise AssertionError("the match did not end")
        await watcher.send_json_to({"type": "history"})
        history = await receive(watcher, "history")
    final = shown[None]
    assert final["status"] == "finished" and final["winner"] in (0, 1)
    assert final["winner_player_id"] == (match.player0_id, match.player1_id)[final["winner"]]
    assert compared > 30
    response = await sync_to_async(rest[None].get)(f"{url}history/")
    assert response.json() == history and history["version"] == final["version"]


# -- the same bad input at both doors --------------------------------------------------------

VERSION = object()  # stands for the match's current version in a row's body
MISSING = object()  # a REST row without a body (a GET)


@dataclass(frozen=True)
class Frame:
    """A socket frame sent as it is (a message that is JSON, but not an object)."""

    text: str


@dataclass(frozen=True)
class Bad:
    """One bad input: what REST is sent (method, path, JSON body) and what the socket is sent
    (a message, or a path to connect to), and the code both must answer. ``{match}``,
    ``{table}``, ``{private}`` and ``{other}`` in paths are filled in; ``actor`` sends it."""

    name: str
    code: str
    rest: tuple[str, str, Any] | None
    socket: Any = None
    connect: str | None = None
    actor: str = "alice"


def _action(name: str, code: str, actor: str = "alice", match: str = "{match}",
            **body: Any) -> Bad:
    return Bad(name, code, ("post", f"/api/matches/{match}/actions/", body),
               {"type": "action", **body, **({"match_id": 999_999} if match != "{match}"
                                             else {})}, actor=actor)


def _seed(name: str, **body: Any) -> Bad:
    return Bad(name, "invalid_seed", ("post", "/api/matches/{match}/seed/", body),
               {"type": "client_seed", **body})


def _sit(name: str, code: str, **body: Any) -> Bad:
    return Bad(name, code, ("post", "/api/tables/{table}/sit/", body), {"type": "sit", **body})


def _shape(name: str, raw: Any) -> Bad:
    return Bad(name, "bad_request", ("post", "/api/matches/{match}/actions/", raw),
               Frame(json.dumps(raw)))


def _visit(name: str, rest_path: str, socket_path: str) -> Bad:
    return Bad(name, "not_found", ("get", rest_path, MISSING), connect=socket_path)


def _option(name: str, **body: Any) -> Bad:
    """A new table's options: REST alone creates tables (the socket plays at one)."""
    return Bad(name, "invalid_option", ("post", "/api/tables/", {"name": "T", **body}))


V = VERSION
BAD_INPUTS: tuple[Bad, ...] = (
    # actions
    _action("no action", "bad_request", expected_version=V),
    _action("action null", "bad_request", action=None, expected_version=V),
    _action("castle", "unknown_action", action="castle", expected_version=V),
    _action("upper case", "unknown_action", action="ROLL", expected_version=V),
    _action("a number", "unknown_action", action=5, expected_version=V),
    _action("a list", "unknown_action", action=["roll"], expected_version=V),
    _action("an object", "unknown_action", action={"name": "roll"}, expected_version=V),
    # expected_version
    _action("no version", "bad_request", action="play", play="8/5 6/5"),
    _action("version null", "bad_request", action="roll", expected_version=None),
    _action("version as text", "bad_request", action="roll", expected_version="5"),
    _action("version negative", "bad_request", action="roll", expected_version=-1),
    _action("version true", "bad_request", action="roll", expected_version=True),
    _action("version 1.5", "bad_request", action="roll", expected_version=1.5),
    _action("version a list", "bad_request", action="roll", expected_version=[1]),
    # plays
    _action("play without notation", "invalid_play", action="play", expected_version=V),
    _action("play null", "invalid_play", action="play", play=None, expected_version=V),
    _action("play a number", "invalid_play", action="play", play=42, expected_version=V),
    _action("play a list", "invalid_play", action="play", play=["8/5", "6/5"],
            expected_version=V),
    _action("play too long", "invalid_play", action="play", play="8/5 " * 40,
            expected_version=V),
    _action("a play on a roll", "invalid_play", action="roll", play="8/5 6/5",
            expected_version=V),
    _action("illegal play", "illegal_action", action="play", play="24/18",
            expected_version=V),
    _action("nonsense play", "illegal_action", action="play", play="castle kingside",
            expected_version=V),
    # levels
    _action("level 5", "invalid_level", action="resign", level=5, expected_version=V),
    _action("level 0", "invalid_level", action="resign", level=0, expected_version=V),
    _action("level as text", "invalid_level", action="resign", level="2", expected_version=V),
    _action("level true", "invalid_level", action="resign", level=True, expected_version=V),
    _action("level 2.0", "invalid_level", action="resign", level=2.0, expected_version=V),
    _action("level on a roll", "invalid_level", action="roll", level=2, expected_version=V),
    # who acts, and on what
    _action("stale version", "stale_version", action="play", play="8/5 6/5",
            expected_version=0),
    _action("not their turn", "not_your_turn", actor="bob", action="double",
            expected_version=V),
    _action("a spectator", "not_a_player", actor="carol", action="roll", expected_version=V),
    _action("anonymous", "not_authenticated", actor="anonymous", action="roll",
            expected_version=V),
    _action("anonymous and bad", "not_authenticated", actor="anonymous", action="castle"),
    _action("end a match with a length", "illegal_action", action="end_session",
            expected_version=V),
    _action("unknown match", "not_found", match="999999", action="play", play="8/5 6/5",
            expected_version=V),
    # client seeds
    _seed("spaces", seed="ab cd"),
    _seed("a number", seed=1234),
    _seed("odd length", seed="abc"),
    _seed("not hex", seed="zz"),
    _seed("0x prefix", seed="0x12"),
    _seed("leading space", seed=" abcd"),
    _seed("too long", seed="00" * 65),
    _seed("null", seed=None),
    _seed("missing"),
    _seed("a list", seed=["ab"]),
    # sitting
    _sit("seat as text", "invalid_seat", seat="1"),
    _sit("seat 2", "invalid_seat", seat=2),
    _sit("seat -1", "invalid_seat", seat=-1),
    _sit("seat true", "invalid_seat", seat=True),
    _sit("seat 0.5", "invalid_seat", seat=0.5),
    _sit("invite a number", "bad_request", invite=5),
    _sit("already seated", "already_seated", seat=1),
    # message shapes
    _shape("a list", [1, 2]),
    _shape("a string", "roll"),
    _shape("a number", 7),
    _shape("null", None),
    # tables that are not there for this viewer
    _visit("private table", "/api/tables/{private}/", "/ws/tables/{private}/"),
    _visit("private table, wrong invitation", "/api/tables/{private}/?invite=wrong",
           "/ws/tables/{private}/?invite=wrong"),
    _visit("unknown table", "/api/tables/999999/", "/ws/tables/999999/"),
    # the socket's own: a message's type
    Bad("no type", "unknown_type", None, {"action": "roll", "expected_version": 1}),
    Bad("type a number", "unknown_type", None, {"type": 5}),
    Bad("unknown type", "unknown_type", None, {"type": "castle"}),
    Bad("rematch with a text id", "bad_request", None, {"type": "rematch", "match_id": "1"}),
    Bad("an action on another table's match", "no_match", None,
        {"type": "action", "action": "roll", "expected_version": 1, "match_id": "{other}"}),
    # a new table's options
    _option("unknown option", castling=True),
    _option("flag as text", cube_enabled="yes"),
    _option("flag as number", is_rated=1),
    _option("length 0", match_length=0),
    _option("length 100", match_length=100),
    _option("length as text", match_length="5"),
    _option("length true", match_length=True),
    _option("negative delay", clock_delay=-1),
    _option("delay as text", clock_delay="12"),
    _option("delay of years", clock_delay=1e9),
    _option("unknown resignation", resignation="sometimes"),
    _option("unknown preset", clock_preset="bullet"),
    _option("preset a number", clock_preset=5),
    _option("reserved for nobody", reserve_for=999_999),
    _option("reserved for a text", reserve_for="bob"),
    Bad("no name", "invalid_option", ("post", "/api/tables/", {"match_length": 3})),
    Bad("blank name", "invalid_option", ("post", "/api/tables/", {"name": "  "})),
    Bad("name a number", "invalid_option", ("post", "/api/tables/", {"name": 5})),
    Bad("long name", "invalid_option", ("post", "/api/tables/", {"name": "x" * 81})),
    Bad("options a list", "bad_request", ("post", "/api/tables/", ["name"])),
)


def _fill(value: Any, names: dict[str, Any]) -> Any:
    """``value`` with ``{match}``-style names and :data:`VERSION` filled in."""
    if value is VERSION:
        return names["version"]
    if isinstance(value, str) and "{" in value:
        filled = value.format(**names)
        return int(filled) if filled.isdigit() and value.startswith("{") else filled
    if isinstance(value, dict):
        return {key: _fill(item, names) for key, item in value.items()}
    if isinstance(value, list):
        return [_fill(item, names) for item in value]
    return value


def _everything(match_id: int) -> tuple[Any, ...]:
    """What a refused input must leave as it was: the match, its log, the tables."""
    match = Match.objects.get(pk=match_id)
    return (match.version, match.snapshot, match.client_seed0, match.client_seed1,
            Event.objects.filter(match_id=match_id).count(),
            sorted(Table.objects.values_list("pk", "seat0_id", "seat1_id")))


async def _socket_answer(socket: WebsocketCommunicator, message: Any, ref: int) -> str:
    """The error code the socket answers ``message`` with (sent with ``ref`` when it is an
    object); a state instead means something changed, and fails."""
    if isinstance(message, dict):
        message = {**message, "ref": ref}
    text = message.text if isinstance(message, Frame) else json.dumps(message)
    await socket.send_to(text_data=text)
    answer = await socket.receive_json_from(timeout=5)
    assert answer["type"] == "error", answer
    assert answer.get("ref") == (ref if isinstance(message, dict) else None), answer
    return str(answer["error"])


async def _connect_answer(path: str, player: Player | None) -> str:
    headers = [ORIGIN, *(await sync_to_async(session_cookie)(player))]
    socket = WebsocketCommunicator(application, path, headers=headers)
    connected, _ = await socket.connect(timeout=5)
    assert connected
    error = await socket.receive_json_from(timeout=5)
    assert await socket.receive_output(timeout=5) == {"type": "websocket.close",
                                                      "code": CLOSE_NO_TABLE}
    return str(error["error"])


async def test_the_same_bad_input_gets_the_same_code_at_both_doors(
        start_match: Callable[..., Match], make_player: Callable[..., Player],
        settings: Any) -> None:
    socket_limits.reset_limits()
    settings.TAVLA_API_RATES = {**settings.TAVLA_API_RATES, "anonymous": "100000/min",
                                "user": "100000/min"}
    settings.TAVLA_SOCKET_BURST = settings.TAVLA_SOCKET_RATE = 10_000
    # Seat 0 on turn with 3-1 to play; no cube, so every row is refused for what it says.
    match = await sync_to_async(start_match)(dice=[[3, 1], [6, 4]], cube_enabled=False)
    match = await sync_to_async(
        Match.objects.select_related("player0__user", "player1__user").get)(pk=match.pk)
    other = await sync_to_async(start_match)()
    carol = await sync_to_async(make_player)("carol")
    private = await sync_to_async(services.table_create)(name="Hidden", is_public=False)
    players = {"alice": match.player0, "bob": match.player1, "carol": carol, "anonymous": None}
    rest = {name: (await sync_to_async(token_client)(player) if player else APIClient())
            for name, player in players.items()}
    names = {"match": match.pk, "table": match.table_id, "private": private.pk,
             "other": other.pk, "version": match.version}
    before = await sync_to_async(_everything)(match.pk)
    both = 0
    async with board(match.table_id, match.player0) as alice, \
            board(match.table_id, match.player1) as bob, \
            board(match.table_id, carol) as watcher, board(match.table_id) as anonymous:
        boards = {"alice": alice, "bob": bob, "carol": watcher, "anonymous": anonymous}
        for socket in boards.values():
            await receive(socket)  # the greeting: the state, then the chat's history
            await receive(socket, "chat_history")
        for ref, bad in enumerate(BAD_INPUTS):
            answers: dict[str, str] = {}
            if bad.rest is not None:
                method, path, body = bad.rest
                client = rest[bad.actor]
                url = _fill(path, names)
                if body is MISSING:
                    response = await sync_to_async(client.get)(url)
                else:
                    response = await sync_to_async(getattr(client, method))(
                        url, json.dumps(_fill(body, names)), content_type="application/json")
                assert response.status_code == ERROR_STATUS[bad.code], (bad.name,
                                                                        response.content)
                answers["rest"] = response.json()["error"]
            if bad.socket is not None:
                answers["socket"] = await _socket_answer(boards[bad.actor],
                                                         _fill(bad.socket, names), ref)
            if bad.connect is not None:
                answers["socket"] = await _connect_answer(_fill(bad.connect, names),
                                                          players[bad.actor])
            assert set(answers.values()) == {bad.code}, (bad.name, answers)
            both += len(answers) == 2
            assert await sync_to_async(_everything)(match.pk) == before, bad.name
    assert both >= 40 and len(BAD_INPUTS) >= 60
