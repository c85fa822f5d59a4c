"""WebSocket limits and malformed frames, through the real ASGI stack (see test_consumer)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator

from matches import services
from matches.live.socket_limits import TokenBucket
from tavla.site.asgi import application
from tests.matches.test_consumer import (  # noqa: F401 - the fixture closes pool connections
    ORIGIN,
    _close_consumer_connections,
    board,
    receive,
    session_cookie,
)

# -- the pure parts ------------------------------------------------------------------------------


def test_a_token_bucket_lets_a_burst_through_then_the_refill_rate():
    bucket = TokenBucket(capacity=3, rate=2, stamp=0.0)
    assert [bucket.take(0.0) for _ in range(4)] == [True, True, True, False]
    assert bucket.overflow == 1
    assert bucket.take(0.5) is True and bucket.take(0.5) is False  # one token in 0.5 s
    assert bucket.take(10.0) is True and bucket.overflow == 0  # a pause forgives


# -- through the socket --------------------------------------------------------------------------

pytestmark_db = pytest.mark.django_db(transaction=True)


@pytest.fixture
def table(db: None) -> Any:
    return services.table_create(name="Limits table")


def _socket(table_id: int, address: str = "127.0.0.1") -> WebsocketCommunicator:
    """A socket the server may close (``board`` expects to close it itself)."""
    communicator = WebsocketCommunicator(application, f"/ws/tables/{table_id}/",
                                         headers=[ORIGIN])
    communicator.scope["client"] = (address, 5000)
    return communicator


async def _errors_until_closed(communicator: WebsocketCommunicator,
                               timeout: float = 5) -> tuple[list[str], int | None]:
    codes: list[str] = []
    while True:
        output = await communicator.receive_output(timeout=timeout)
        if output["type"] == "websocket.close":
            return codes, output.get("code")
        if output["type"] == "websocket.send" and output.get("text"):
            import json

            message = json.loads(output["text"])
            if message.get("type") == "error":
                codes.append(message["error"])


@pytestmark_db
async def test_a_flooding_spectator_is_rate_limited_then_closed_and_others_play_on(
        table, make_player, settings):
    settings.TAVLA_SOCKET_BURST, settings.TAVLA_SOCKET_RATE = 10, 5
    settings.TAVLA_SOCKET_ABUSE = 20
    async with board(table.pk) as watcher:
        await receive(watcher, "table")
        flooder = _socket(table.pk)
        assert (await flooder.connect(timeout=5))[0]
        await receive(flooder, "table")
        for _ in range(2000):
            await flooder.send_to(text_data='{"type": "nonsense"}')
        codes, close_code = await _errors_until_closed(flooder)
        assert close_code == 1008
        assert codes.count("unknown_type") == 10  # the burst was read
        assert 1 <= codes.count("rate_limited") <= 21  # then refused, not read
        # The other board on the same table is untouched.
        await watcher.send_json_to({"type": "sync"})
        assert (await receive(watcher, "table"))["type"] == "table"


@pytestmark_db
async def test_a_frame_over_the_maximum_closes_with_1009(table):
    sender = _socket(table.pk)
    assert (await sender.connect(timeout=5))[0]
    await receive(sender, "table")
    await sender.send_to(text_data='{"type": "sync", "pad": "' + "x" * 20_000 + '"}')
    codes, close_code = await _errors_until_closed(sender)
    assert close_code == 1009


@pytestmark_db
@pytest.mark.parametrize("frame", [{"text_data": "[" * 100_000}, {"text_data": "[" * 8000},
                                   {"text_data": "{not json"}, {"bytes_data": b"\x00\x01"}])
async def test_unparsable_frames_get_bad_request_and_the_socket_stays_open(table, frame,
                                                                         settings):
    settings.TAVLA_SOCKET_MAX_FRAME_BYTES = 200_000
    async with board(table.pk) as sender:
        await receive(sender, "table")
        await sender.send_to(**frame)
        error = await receive(sender, "error")
        assert error["error"] == "bad_request"
        await sender.send_json_to({"type": "sync"})
        assert (await receive(sender, "table"))["type"] == "table"


@pytestmark_db
async def test_sockets_per_user_are_limited_and_a_closed_one_frees_its_place(
        table, make_player, settings):
    settings.TAVLA_SOCKETS_PER_USER = 2
    player = await sync_to_async(make_player)()
    headers = [ORIGIN, *(await sync_to_async(session_cookie)(player))]

    def socket() -> WebsocketCommunicator:
        return WebsocketCommunicator(application, f"/ws/tables/{table.pk}/", headers=headers)

    first, second, third = socket(), socket(), socket()
    assert (await first.connect(timeout=5))[0] and (await second.connect(timeout=5))[0]
    await receive(first, "table")
    assert (await third.connect(timeout=5))[0]
    codes, close_code = await _errors_until_closed(third)
    assert codes == ["too_many_sockets"] and close_code == 1008
    await first.disconnect()
    again = socket()
    assert (await again.connect(timeout=5))[0]
    assert (await receive(again, "table"))["type"] == "table"
    await again.disconnect()
    await second.disconnect()


@pytestmark_db
async def test_sockets_per_address_are_limited_for_anonymous_spectators_too(table, settings):
    settings.TAVLA_SOCKETS_PER_ADDRESS = 2

    def socket(address: str) -> WebsocketCommunicator:
        return _socket(table.pk, address)

    opened = [socket("192.0.2.1"), socket("192.0.2.1")]
    for communicator in opened:
        assert (await communicator.connect(timeout=5))[0]
    refused = socket("192.0.2.1")
    await refused.connect(timeout=5)
    codes, close_code = await _errors_until_closed(refused)
    assert codes == ["too_many_sockets"] and close_code == 1008
    elsewhere = socket("192.0.2.2")
    assert (await elsewhere.connect(timeout=5))[0]
    assert (await receive(elsewhere, "table"))["type"] == "table"
    for communicator in [*opened, elsewhere]:
        await communicator.disconnect()
    await asyncio.sleep(0)


@pytestmark_db
async def test_reconnecting_gives_a_flooder_no_fresh_allowance(table, settings):
    settings.TAVLA_SOCKET_BURST, settings.TAVLA_SOCKET_RATE = 5, 0.01
    settings.TAVLA_SOCKET_ABUSE = 3
    settings.TAVLA_SOCKET_PENALTY_SECONDS = 0  # this test is about the bucket alone
    first = _socket(table.pk, "198.51.100.7")
    assert (await first.connect(timeout=5))[0]
    await receive(first, "table")
    for _ in range(50):
        await first.send_to(text_data='{"type": "nonsense"}')
    codes, close_code = await _errors_until_closed(first)
    assert close_code == 1008 and codes.count("unknown_type") == 5
    again = _socket(table.pk, "198.51.100.7")
    assert (await again.connect(timeout=5))[0]
    await receive(again, "table")
    await again.send_to(text_data='{"type": "nonsense"}')
    assert (await receive(again, "error"))["error"] == "rate_limited"  # the same empty bucket
    await again.disconnect()


@pytestmark_db
async def test_opening_sockets_too_fast_from_one_address_is_refused(table, settings):
    settings.TAVLA_SOCKET_CONNECT_BURST, settings.TAVLA_SOCKET_CONNECT_RATE = 3, 0.01
    opened = []
    for _ in range(3):
        communicator = _socket(table.pk, "198.51.100.8")
        assert (await communicator.connect(timeout=5))[0]
        opened.append(communicator)
    refused = _socket(table.pk, "198.51.100.8")
    await refused.connect(timeout=5)
    codes, close_code = await _errors_until_closed(refused)
    assert close_code == 1008
    other = _socket(table.pk, "198.51.100.9")
    assert (await other.connect(timeout=5))[0]
    for communicator in [*opened, other]:
        await communicator.disconnect()


@pytestmark_db
async def test_an_address_closed_for_flooding_opens_no_socket_until_its_penalty_ends(
        table, settings):
    settings.TAVLA_SOCKET_BURST, settings.TAVLA_SOCKET_RATE = 5, 0.01
    settings.TAVLA_SOCKET_ABUSE = 3
    settings.TAVLA_SOCKET_PENALTY_SECONDS = 0.5
    flooder = _socket(table.pk, "198.51.100.10")
    assert (await flooder.connect(timeout=5))[0]
    await receive(flooder, "table")
    for _ in range(50):
        await flooder.send_to(text_data='{"type": "nonsense"}')
    assert (await _errors_until_closed(flooder))[1] == 1008
    refused = _socket(table.pk, "198.51.100.10")
    await refused.connect(timeout=5)
    codes, close_code = await _errors_until_closed(refused)
    assert codes == [] and close_code == 1008  # closed before anything was read for it
    other = _socket(table.pk, "198.51.100.11")  # another address is not concerned
    assert (await other.connect(timeout=5))[0]
    assert (await receive(other, "table"))["type"] == "table"
    await other.disconnect()
    await asyncio.sleep(0.6)
    later = _socket(table.pk, "198.51.100.10")
    assert (await later.connect(timeout=5))[0]
    assert (await receive(later, "table"))["type"] == "table"
    await later.disconnect()


@pytestmark_db
async def test_state_reads_have_a_bucket_of_their_own(table, settings):
    settings.TAVLA_SOCKET_READ_BURST, settings.TAVLA_SOCKET_READ_RATE = 2, 0.01
    async with board(table.pk) as watcher:
        await receive(watcher, "table")
        for _ in range(2):
            await watcher.send_json_to({"type": "sync"})
            assert (await receive(watcher, "table"))["type"] == "table"
        await watcher.send_json_to({"type": "sync", "ref": 7})
        refused = await receive(watcher, "error")
        assert refused["error"] == "rate_limited" and refused["ref"] == 7
        await watcher.send_json_to({"type": "ping", "ref": 8})  # other messages go on
        assert (await receive(watcher, "pong"))["ref"] == 8
