"""The bot loop of docs/protocol.md runs, as written, against a real daphne.

The loop plays a one-point match at a table whose resignations are offers; its opponent,
another client on its own socket, offers to resign as soon as a move is due, so the loop
meets a state with ``resign_offer`` set and ``legal_plays`` null in the ``move`` phase (the
state that crashed the loop the docs used to show). It must accept and return the final state.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import websockets
from asgiref.sync import sync_to_async
from rest_framework.authtoken.models import Token

from matches import services
from matches.models import Player
from tests.conftest import subprocess_env
from tests.e2e.servers import WebServer, start_web_server

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

DOC = (Path(__file__).resolve().parents[2] / "docs" / "protocol.md").read_text(encoding="utf-8")


def doc_bot() -> Callable[..., Any]:
    """The ``play`` function of the doc's "A bot's loop", exactly as printed there."""
    section = DOC.split("\n## A bot's loop\n", 1)[1].split("\n## ", 1)[0]
    (code,) = re.findall(r"```python\n(.*?)```", section, re.S)
    namespace: dict[str, Any] = {}
    exec(compile(code, "docs/protocol.md (A bot's loop)", "exec"), namespace)  # noqa: S102
    return namespace["play"]  # type: ignore[no-any-return]


@pytest.fixture
def server(transactional_db: None) -> Iterator[WebServer]:
    web = start_web_server(subprocess_env(), name="bot-loop")
    try:
        yield web
    finally:
        web.stop()


async def resigning_opponent(server: WebServer, table_id: int, token: str) -> None:
    """Sit, then offer to resign (level 1) whenever a move is due and no offer stands; stop
    when the match is over."""
    host = f"127.0.0.1:{server.port}"
    async with websockets.connect(f"ws://{host}/ws/tables/{table_id}/",
                                  origin=websockets.Origin(f"http://{host}"),
                                  additional_headers={"Authorization": f"Token {token}"}
                                  ) as socket:
        await socket.send(json.dumps({"type": "sit"}))
        async for raw in socket:
            state = json.loads(raw)
            if state["type"] != "state":
                continue
            if state["status"] != "playing":
                return
            if state["phase"] == "move" and state["resign_offer"] is None:
                await socket.send(json.dumps({"type": "action", "action": "resign", "level": 1,
                                              "expected_version": state["version"]}))


async def test_the_docs_bot_loop_answers_a_resignation_offer(
        server: WebServer, make_player: Callable[..., Player]) -> None:
    bot, human = await sync_to_async(make_player)("bot"), await sync_to_async(make_player)("hu")
    tokens = [(await sync_to_async(Token.objects.create)(user_id=p.user_id)).key
              for p in (bot, human)]
    table = await sync_to_async(services.table_create)(
        name="Offers", match_length=1, cube_enabled=False, resignation="offer")
    play = doc_bot()
    opponent = asyncio.ensure_future(resigning_opponent(server, table.pk, tokens[1]))
    final = await asyncio.wait_for(
        play(f"127.0.0.1:{server.port}", table.pk, tokens[0], tls=False), timeout=60)
    await asyncio.wait_for(opponent, timeout=30)
    assert final["status"] == "finished"
    assert final["winner"] == final["your_seat"], final["games"][-1]
    assert final["games"][-1]["result"]["reason"] == "resign"
