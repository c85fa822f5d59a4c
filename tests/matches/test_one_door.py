"""One door for every change to a match (:mod:`matches.services.change`), as a mechanism.

* No module but the door (and the SQL adapter it calls) locks a ``Match`` for update, saves
  or creates one, or writes its ``version``: read from the source of every module, so a new
  path that bypasses the door fails here. The checker is shown to catch each pattern.
* Saving a ``Match`` outside the door raises at run time too.
* Every kind of change, made through both doors (REST and the table socket) or by the
  server itself, reaches a watching board as exactly one state whose version is the
  previous one plus one, and REST answers that same state at that version.
"""

from __future__ import annotations

import ast
from collections.abc import Awaitable, Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator
from django.utils import timezone
from rest_framework.test import APIClient

from matches import services
from matches.live import socket_limits
from matches.models import Match, Player
from matches.services import clocks
from tests.matches.conftest import forget_presence
from tests.matches.test_api import token_client
from tests.matches.test_consumer import (  # noqa: F401 - the fixture closes pool connections
    _close_consumer_connections,
    board,
    receive,
)

ROOT = Path(__file__).resolve().parents[2]
# The product's packages (the benchmarks set up their fixtures as tests do).
PACKAGES = ("matches", "tournaments", "tavla", "seasons")
# The door, and the one SQL adapter it reads and writes the locked match through.
DOOR = {"matches/services/change.py", "matches/services/statements.py"}
# Writes to a model's rows (on a chain that starts at ``Match``).
_WRITES = {"save", "create", "get_or_create", "update_or_create", "update", "bulk_create",
           "bulk_update", "select_for_update", "delete"}


def _chain_root(node: ast.expr) -> ast.expr:
    while True:
        if isinstance(node, ast.Call):
            node = node.func
        elif isinstance(node, ast.Attribute):
            node = node.value
        elif isinstance(node, ast.Subscript):
            node = node.value
        else:
            return node


def _chain_names(node: ast.expr) -> list[str]:
    names = []
    while True:
        if isinstance(node, ast.Call):
            node = node.func
        elif isinstance(node, ast.Attribute):
            names.append(node.attr)
            node = node.value
        elif isinstance(node, ast.Subscript):
            node = node.value
        else:
            if isinstance(node, ast.Name):
                names.append(node.id)
            return names


def door_violations(source: str) -> list[str]:
    """What in ``source`` changes a match outside the door: locks, saves, creates or
    updates through ``Match``'s manager or a table's ``matches``, ``.save()`` on a name that
    says it is a match, an assignment to ``.version``, ``version=`` or ``F("version")`` in a
    write, and SQL that locks or updates the matches table."""
    found = []
    for node in ast.walk(ast.parse(source)):
        line = getattr(node, "lineno", 0)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            method = node.func.attr
            names = _chain_names(node.func.value)
            on_match = "Match" in names or "matches" in names[:-1]
            if method in _WRITES and on_match:
                found.append(f"line {line}: Match ….{method}()")
            receiver = names[0] if names else ""
            if method == "save" and receiver.lower().endswith("match"):
                found.append(f"line {line}: {receiver}.save()")
            if method in ("update", "bulk_update") and any(
                    keyword.arg == "version" for keyword in node.keywords):
                found.append(f"line {line}: update(version=…)")
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
                and node.func.id == "F" and node.args \
                and isinstance(node.args[0], ast.Constant) and node.args[0].value == "version":
            found.append(f"line {line}: F('version')")
        targets: list[ast.expr] = []
        if isinstance(node, ast.Assign):
            targets = list(node.targets)
        elif isinstance(node, ast.AugAssign | ast.AnnAssign):
            targets = [node.target]
        for target in targets:
            for element in (target.elts if isinstance(target, ast.Tuple) else [target]):
                if isinstance(element, ast.Attribute) and element.attr == "version":
                    found.append(f"line {line}: ….version = …")
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            text = node.value.upper()
            if "MATCHES_MATCH" in text and ("FOR UPDATE" in text or "UPDATE " in text):
                found.append(f"line {line}: SQL that locks or updates matches_match")
    return found


def first_party_modules() -> list[Path]:
    return sorted(path for package in PACKAGES for path in (ROOT / package).rglob("*.py")
                  if "migrations" not in path.parts)


def test_no_module_but_the_door_locks_saves_or_versions_a_match() -> None:
    modules = first_party_modules()
    assert len(modules) > 80  # the walk found the project
    bad = {}
    for path in modules:
        relative = path.relative_to(ROOT).as_posix()
        if relative in DOOR:
            continue
        found = door_violations(path.read_text(encoding="utf-8"))
        if found:
            bad[relative] = found
    assert bad == {}, "change matches through matches.services.change.match_change only"


def test_the_door_itself_is_what_the_checker_finds() -> None:
    """The checker sees the door's own writes: it is not blind to the real patterns."""
    source = (ROOT / "matches/services/change.py").read_text(encoding="utf-8")
    found = door_violations(source)
    assert any("version = " in line for line in found)
    assert any("Match ….create()" in line for line in found)


@pytest.mark.parametrize("planted", [
    "Match.objects.select_for_update().get(pk=1)",
    "Match.objects.filter(pk=1).update(status=2)",
    "table.matches.select_for_update().first()",
    "Match.objects.create(table=table)",
    "match.save(update_fields=['rematch_offers'])",
    "self.match.save()",
    "match.version += 1",
    "row.version = 3",
    "Pairing.objects.filter(pk=1).update(version=F('version') + 1)",
    "cursor.execute('UPDATE matches_match SET status = 2')",
    "cursor.execute('SELECT * FROM matches_match WHERE id = %s FOR UPDATE')",
])
def test_the_checker_catches_a_planted_bypass(planted: str) -> None:
    assert door_violations(f"def bypass():\n    {planted}\n")


def test_reads_are_not_writes() -> None:
    assert door_violations(
        "Match.objects.filter(pk=1).values_list('version', flat=True).first()\n"
        "state = match.version\n"
        "Table.objects.select_for_update().get(pk=1)\n") == []


@pytest.mark.django_db
def test_saving_a_match_outside_the_door_raises(start_match: Callable[..., Match]) -> None:
    match = start_match()
    match.rematch_offers = [0]
    with pytest.raises(RuntimeError, match="one door"):
        match.save()
    match.refresh_from_db()
    assert match.rematch_offers == []


@pytest.mark.django_db
def test_a_change_inside_a_change_of_the_same_match_fails_loudly(
        start_match: Callable[..., Match]) -> None:
    match = start_match()
    with services.match_change(match.pk), pytest.raises(RuntimeError, match="already"):
        with services.match_change(match.pk):
            pass  # pragma: no cover - never entered


# -- every kind of change, at both doors -------------------------------------------------


def comparable(state: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in state.items() if key != "server_time"}


class Watch:
    """A spectator's board and REST client: each change must arrive as one state whose
    version follows the last one's, equal to what REST answers at that version."""

    def __init__(self, socket: WebsocketCommunicator, first: dict[str, Any]) -> None:
        self.socket = socket
        self.rest = APIClient()
        self.match_id: int = first["match_id"]
        self.version: int = first["version"]
        self.steps: list[str] = []
        self.last = first

    async def step(self, what: str, change: Callable[[], Awaitable[Any]], *,
                   new_match: bool = False) -> dict[str, Any]:
        await change()
        state = await receive(self.socket)
        if new_match:
            assert state["match_id"] != self.match_id and state["version"] == 1, what
        else:
            assert (state["match_id"], state["version"]) == (self.match_id, self.version + 1), \
                f"{what}: expected version {self.version + 1}, got {state['version']}"
        self.match_id, self.version = state["match_id"], state["version"]
        response = await sync_to_async(self.rest.get)(f"/api/matches/{self.match_id}/")
        assert response.status_code == 200, response.content
        assert comparable(state) == comparable(response.json()), what
        self.steps.append(what)
        self.last = state
        return state


def _rest(player: Player, path: str, body: dict[str, Any], expect: int = 200
          ) -> Callable[[], Awaitable[Any]]:
    async def call() -> Any:
        client = await sync_to_async(token_client)(player)
        response = await sync_to_async(client.post)(path, body, format="json")
        assert response.status_code == expect, response.content
        return response.json()
    return call


def _socket(socket: WebsocketCommunicator, message: dict[str, Any]
            ) -> Callable[[], Awaitable[None]]:
    async def call() -> None:
        await socket.send_json_to(message)
    return call


def _service(function: Callable[..., Any], **kwargs: Any) -> Callable[[], Awaitable[Any]]:
    async def call() -> Any:
        return await sync_to_async(function)(**kwargs)
    return call


@pytest.fixture
def _generous_limits(settings: Any) -> None:
    socket_limits.reset_limits()
    settings.TAVLA_API_RATES = {**settings.TAVLA_API_RATES, "anonymous": "100000/min"}
    settings.TAVLA_SOCKET_BURST = settings.TAVLA_SOCKET_RATE = 10_000


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("_generous_limits")
async def test_actions_seeds_resignations_and_rematches_each_push_one_version(
        start_match: Callable[..., Match], settings: Any) -> None:
    settings.TAVLA_CLIENT_SEED_SECONDS = 600  # the seeds are taken one by one
    match = await sync_to_async(start_match)(
        dice=[[3, 1], [6, 4], [5, 2]], match_length=3, resignation="offer")
    p0, p1 = await sync_to_async(lambda: (match.player0, match.player1))()
    url = f"/api/matches/{match.pk}"
    async with board(match.table_id) as spectator, board(match.table_id, p0) as seat0, \
            board(match.table_id, p1) as seat1:
        watch = Watch(spectator, await receive(spectator))
        await receive(seat0)
        await receive(seat1)
        assert watch.version == 1

        state = await watch.step("seat 0's client seed over REST",
                                 _rest(p0, f"{url}/seed/", {"seed": "ab" * 16}))
        assert state["client_seeds"]["sent"] == [True, False]
        state = await watch.step("seat 1's client seed over the socket: the first roll",
                                 _socket(seat1, {"type": "client_seed", "seed": "cd" * 16}))
        assert state["client_seeds"]["open"] is False and state["dice"] == [3, 1]

        def act(action: str, **extra: Any) -> dict[str, Any]:
            return {"action": action, "expected_version": watch.version, **extra}

        await watch.step("a play over the socket",
                         _socket(seat0, {"type": "action", **act("play", play="8/5 6/5")}))
        await watch.step("a double over REST", _rest(p1, f"{url}/actions/", act("double")))
        state = await watch.step("a take over the socket",
                                 _socket(seat0, {"type": "action", **act("take")}))
        assert state["phase"] == "move" and state["dice"] == [6, 4]
        await watch.step("a resignation offered over the socket",
                         _socket(seat1, {"type": "action", **act("resign", level=1)}))
        await watch.step("the offer refused over REST",
                         _rest(p0, f"{url}/actions/", act("reject_resign")))
        await watch.step("a gammon offered over REST",
                         _rest(p1, f"{url}/actions/", act("resign", level=2)))
        state = await watch.step("the offer accepted over the socket: the match ends",
                                 _socket(seat0, {"type": "action", **act("accept_resign")}))
        assert state["status"] == "finished"

        state = await watch.step("a rematch asked over REST",
                                 _rest(p0, f"{url}/rematch/", {"accept": True}))
        assert state["rematch_offers"] == [0]
        state = await watch.step("declined over the socket",
                                 _socket(seat1, {"type": "rematch_decline"}))
        assert state["rematch_offers"] == []
        await watch.step("asked over the socket", _socket(seat1, {"type": "rematch"}))
        await watch.step("accepted over REST: a new match at version 1",
                         _rest(p0, f"{url}/rematch/", {"accept": True}, expect=201),
                         new_match=True)
        second = watch.match_id
        assert (await sync_to_async(services.match_verify)(match_id=match.pk)).ok
        referee = await sync_to_async(lambda: p1.user)()
        state = await watch.step("a referee voids the new match", _service(
            services.match_void, match_id=second, referee=referee, reason="test"))
        assert state["status"] == "voided"
        # Verification reads under the lock and changes nothing: the next change is next.
        assert (await sync_to_async(services.match_verify)(match_id=second)).ok
        await watch.step("a rematch of the voided match asked",
                         _socket(seat0, {"type": "rematch"}))
    assert len(watch.steps) == 15


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("_generous_limits")
async def test_flags_forfeits_adjudications_and_session_ends_each_push_one_version(
        start_match: Callable[..., Match]) -> None:
    match = await sync_to_async(start_match)(
        dice=[[3, 1], [6, 4], [5, 2], [4, 4]], match_length=5, clock_enabled=True,
        clock_delay=5, clock_reserve_per_point=60)
    p0, p1 = await sync_to_async(lambda: (match.player0, match.player1))()

    def overdue() -> None:
        Match.objects.filter(pk=match.pk).update(deadline=timezone.now() - timedelta(seconds=1))

    async with board(match.table_id) as spectator:
        watch = Watch(spectator, await receive(spectator))
        await sync_to_async(overdue)()
        await watch.step("check_clock from a board flags", _socket(
            spectator, {"type": "check_clock"}))
        await sync_to_async(overdue)()
        await watch.step("the sweep flags", _service(clocks.sweep_expired_clocks))
        await sync_to_async(overdue)()
        version = watch.version
        late = p1 if watch.last["player_to_act"] == 1 else p0
        await watch.step("a late action over REST is a flag instead", _rest(
            late, f"/api/matches/{match.pk}/actions/",
            {"action": "roll", "expected_version": version}, expect=409))
        # The flagged players never had a board open: past the grace period, a forfeit.
        await sync_to_async(forget_presence)(table_id=match.table_id, player_id=p0.pk)
        await sync_to_async(forget_presence)(table_id=match.table_id, player_id=p1.pk)
        flags = await sync_to_async(clocks.absent_flags)(timezone.now())
        assert flags
        later = timezone.now() + timedelta(hours=2)
        state = await watch.step("the grace forfeit", _service(
            clocks.forfeit_if_absent, flag=flags[-1], now=later))
        assert state["status"] == "forfeited"

    adjudicated = await sync_to_async(start_match)(dice=[[3, 1]], match_length=3)
    referee = await sync_to_async(lambda: adjudicated.player0.user)()
    async with board(adjudicated.table_id) as spectator:
        watch = Watch(spectator, await receive(spectator))
        winner = await sync_to_async(lambda: adjudicated.player1)()
        await watch.step("a referee adjudicates the game", _service(
            services.match_adjudicate, match_id=adjudicated.pk, referee=referee,
            winner=winner, scope="game", reason="test"))
        state = await watch.step("and then the match", _service(
            services.match_adjudicate, match_id=adjudicated.pk, referee=referee,
            winner=winner, scope="match", reason="test"))
        assert state["status"] == "adjudicated"

    forfeited = await sync_to_async(start_match)(dice=[[3, 1]], match_length=3)
    async with board(forfeited.table_id) as spectator:
        watch = Watch(spectator, await receive(spectator))
        loser = await sync_to_async(lambda: forfeited.player0)()
        state = await watch.step("a forfeit (a no-show, a disqualification)", _service(
            services.match_forfeit, match_id=forfeited.pk, loser=loser, reason="no-show"))
        assert state["status"] == "forfeited"

    for door in ("rest", "socket"):
        money = await sync_to_async(start_match)(dice=[[3, 1]], match_length=None,
                                                 is_rated=False)
        p0 = await sync_to_async(lambda m=money: m.player0)()  # type: ignore[misc]
        async with board(money.table_id) as spectator, board(money.table_id, p0) as seat0:
            watch = Watch(spectator, await receive(spectator))
            await receive(seat0)
            body = {"action": "end_session", "expected_version": watch.version}
            change = (_rest(p0, f"/api/matches/{money.pk}/actions/", body) if door == "rest"
                      else _socket(seat0, {"type": "action", **body}))
            state = await watch.step(f"a money session ended over {door}", change)
            assert state["status"] == "finished"

