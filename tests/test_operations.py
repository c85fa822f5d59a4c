"""What an operator sees (docs/operations.md): ``/metrics`` (tavla/metrics.py) only for the
operator, its figures moving with real play on a real daphne process; JSON log lines with the
request and match ids (tavla/logs.py); daphne's access log naming the client a trusted proxy
forwards (tavla/site/daphne_protocol.py)."""

from __future__ import annotations

import json
import re
import socket as sockets
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from email.message import Message
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.db import connection
from django.test import Client
from prometheus_client import REGISTRY, generate_latest
from rest_framework.authtoken.models import Token
from websockets.sync.client import connect
from websockets.typing import Origin

from matches import services
from matches.models import Match
from tavla import metrics
from tests.conftest import subprocess_env
from tests.e2e.servers import WebServer, start_web_server

# -- the endpoint's door, in this process -----------------------------------------------------


@pytest.mark.django_db
def test_metrics_refuse_a_scrape_without_the_token(settings: Any) -> None:
    settings.TAVLA_METRICS_TOKEN = "s3cret-scrape"
    local = Client(REMOTE_ADDR="127.0.0.1")
    refused = local.get("/metrics")
    assert refused.status_code == 403 and b"tavla_" not in refused.content
    assert local.get("/metrics", HTTP_AUTHORIZATION="Bearer wrong").status_code == 403
    answered = local.get("/metrics", HTTP_AUTHORIZATION="Bearer s3cret-scrape")
    assert answered.status_code == 200
    assert b"# TYPE tavla_action_seconds histogram" in answered.content


@pytest.mark.django_db
def test_without_a_token_only_allowed_addresses_are_answered(settings: Any) -> None:
    settings.TAVLA_METRICS_TOKEN = ""
    assert Client(REMOTE_ADDR="203.0.113.9").get("/metrics").status_code == 403
    assert Client(REMOTE_ADDR="127.0.0.1").get("/metrics").status_code == 200
    settings.TAVLA_METRICS_ADDRESSES = ["10.0.0.0/8"]
    assert Client(REMOTE_ADDR="10.2.3.4").get("/metrics").status_code == 200
    assert Client(REMOTE_ADDR="127.0.0.1").get("/metrics").status_code == 403


@pytest.mark.django_db
def test_a_spoofed_forwarded_header_does_not_open_the_metrics(settings: Any) -> None:
    settings.TAVLA_METRICS_TOKEN = ""
    outsider = Client(REMOTE_ADDR="203.0.113.9")
    assert outsider.get("/metrics", HTTP_X_FORWARDED_FOR="127.0.0.1").status_code == 403


def test_a_flags_lateness_lands_in_the_clusters_histogram() -> None:
    names = ("tavla_flag_lateness_seconds_count", 'tavla_flag_lateness_seconds_bucket{le="0.5"}',
             'tavla_flag_lateness_seconds_bucket{le="1"}')
    before = [_sample(_scrape_here(), name) for name in names]
    metrics.record_flag_lateness(0.7)
    after = [_sample(_scrape_here(), name) for name in names]
    assert after == [before[0] + 1, before[1], before[2] + 1]


def _scrape_here() -> str:
    return generate_latest(REGISTRY).decode()


def _sample(text: str, name: str) -> float:
    """The value of the sample ``name`` as exposed (labels and all); a name without labels
    sums every labelled sample of it. 0 when absent."""
    total = 0.0
    for line in text.splitlines():
        key, _, value = line.rpartition(" ")
        if not line.startswith("#") and (key == name or key.startswith(name + "{")):
            total += float(value)
    return total


# -- a real web process -------------------------------------------------------------------------

@pytest.fixture
def web(transactional_db: None) -> Iterator[WebServer]:
    server = start_web_server(subprocess_env(
        TAVLA_TRUSTED_PROXIES="127.0.0.1", TAVLA_LOG_FORMAT="json",
        TAVLA_METRICS_TOKEN="scrape-token"), name="ops")
    try:
        yield server
    finally:
        server.stop()


def _get(url: str, headers: dict[str, str] | None = None) -> tuple[int, Message, str]:
    """Status, headers (names in any case) and body."""
    request = urllib.request.Request(url, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, response.headers, response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.headers, error.read().decode()


def _scrape(server: WebServer) -> str:
    status, _headers, body = _get(f"{server.url}/metrics",
                                  {"Authorization": "Bearer scrape-token"})
    assert status == 200
    return body


def _post(server: WebServer, path: str, token: str, body: dict[str, Any]) -> dict[str, Any]:
    request = urllib.request.Request(
        f"{server.url}{path}", data=json.dumps(body).encode(), method="POST",
        headers={"Authorization": f"Token {token}", "Content-Type": "application/json",
                 "X-Forwarded-For": "198.51.100.60", "X-Request-ID": "resign-req-7"})
    with urllib.request.urlopen(request, timeout=30) as response:
        answer: dict[str, Any] = json.loads(response.read())
        return answer


def _match(make_player: Callable[..., Any]) -> tuple[Match, str]:
    first, second = make_player(), make_player()
    table = services.table_create(name="Ops table", match_length=1)  # a resignation ends it
    services.table_sit(table_id=table.pk, player=first, invite=table.invite_token)
    services.table_sit(table_id=table.pk, player=second, invite=table.invite_token)
    match = Match.objects.filter(table=table).latest("pk")
    return match, Token.objects.create(user=User.objects.get(pk=first.user_id)).key


def _eventually(check: Callable[[], bool], timeout: float = 20) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, "the condition never held"
        time.sleep(0.2)


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_metrics_move_with_real_play_and_the_json_logs_carry_the_ids(web, make_player):
    status, _headers, _body = _get(f"{web.url}/metrics")
    assert status == 403  # no token: nothing, even from this machine

    match, token = _match(make_player)
    before = _scrape(web)
    # A spectator's board open on this process, then a real action through the REST door.
    sock = sockets.create_connection(("127.0.0.1", web.port))
    with connect(f"{web.ws_url}/ws/tables/{match.table_id}/", origin=Origin(web.url),
                 open_timeout=30, sock=sock) as board:
        opened = json.loads(board.recv(timeout=30))
        assert opened["type"] == "state"
        assert _sample(_scrape(web), "tavla_open_sockets") == 1
        match.refresh_from_db()
        _post(web, f"/api/matches/{match.pk}/actions/", token,
              {"action": "resign", "expected_version": match.version})
        while True:  # the board is pushed the ended match
            pushed = json.loads(board.recv(timeout=30))
            if pushed["type"] == "state" and pushed["version"] > opened["version"]:
                break
        _eventually(lambda: _sample(_scrape(web), "tavla_pushes_total")
                    > _sample(before, "tavla_pushes_total"))
    after = _scrape(web)
    assert (_sample(after, 'tavla_action_seconds_count{kind="resign",outcome="ok"}')
            == _sample(before, 'tavla_action_seconds_count{kind="resign",outcome="ok"}') + 1)
    assert _sample(after, 'tavla_http_responses_total{status="2xx"}') > _sample(
        before, 'tavla_http_responses_total{status="2xx"}')
    assert re.search(r'^tavla_queue_depth\{queue="clocks"\} \d', after, re.MULTILINE)
    if connection.vendor == "postgresql":  # the web process's pool, at most its size
        assert _sample(after, 'tavla_db_pool_connections{state="max"}') == 8
        assert 1 <= _sample(after, 'tavla_db_pool_connections{state="open"}') <= 8
    _eventually(lambda: _sample(_scrape(web), "tavla_open_sockets") == 0)

    # A refused action counts as refused.
    with pytest.raises(urllib.error.HTTPError):
        _post(web, f"/api/matches/{match.pk}/actions/", token,
              {"action": "roll", "expected_version": 0})
    refused = 'tavla_action_seconds_count{kind="roll",outcome="refused"}'
    assert _sample(_scrape(web), refused) == _sample(after, refused) + 1

    # Every log line is one JSON object; the resignation's lines carry the proxy's request
    # id and the match's id, a page's 404 its own id.
    status, headers, _body = _get(f"{web.url}/no-such-page/",
                                  {"X-Request-ID": "missing-page-1",
                                   "X-Forwarded-For": "198.51.100.61"})
    assert status == 404 and headers["X-Request-ID"] == "missing-page-1"
    _eventually(lambda: "missing-page-1" in web.log())
    lines = [json.loads(line) for line in web.log().splitlines() if line.startswith("{")]
    ended = [line for line in lines if line["message"].startswith("match ended")]
    assert ended and ended[0]["match_id"] == match.pk
    assert ended[0]["request_id"] == "resign-req-7" and ended[0]["level"] == "INFO"
    missing = [line for line in lines if line["request_id"] == "missing-page-1"]
    assert missing and missing[0]["logger"] == "django.request"
    assert {"time", "level", "logger", "message", "request_id", "match_id"} <= set(missing[0])


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_a_request_id_from_an_untrusted_client_is_replaced(web):
    with urllib.request.urlopen(urllib.request.Request(
            f"{web.url}/livez", headers={"X-Request-ID": "made-up"}), timeout=30) as response:
        given = response.headers["X-Request-ID"]
    # 127.0.0.1 is the trusted proxy here: its id is kept ...
    assert given == "made-up"
    # ... but not from any other address.
    sock = sockets.create_connection(("127.0.0.1", web.port), source_address=("127.0.0.77", 0))
    sock.sendall(b"GET /livez HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Request-ID: made-up\r\n"
                 b"Connection: close\r\n\r\n")
    answer = b""
    while chunk := sock.recv(65536):
        answer += chunk
    sock.close()
    head = answer.split(b"\r\n\r\n")[0].decode().lower()
    found = re.search(r"^x-request-id: (\S+)\r?$", head, re.MULTILINE)
    assert found and found.group(1) != "made-up" and re.fullmatch(r"[0-9a-f]{32}",
                                                                   found.group(1))


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_daphnes_access_log_names_the_client_a_trusted_proxy_forwards(web):
    with urllib.request.urlopen(urllib.request.Request(
            f"{web.url}/livez", headers={"X-Forwarded-For": "198.51.100.70"}), timeout=30):
        pass
    table = services.table_create(name="Access log")
    sock = sockets.create_connection(("127.0.0.1", web.port))
    with connect(f"{web.ws_url}/ws/tables/{table.pk}/", origin=Origin(web.url), sock=sock,
                 open_timeout=30, additional_headers={"X-Forwarded-For": "198.51.100.71"}
                 ) as board:
        board.recv(timeout=30)
    # An untrusted sender's header is not believed: its own address is logged.
    spoofer = sockets.create_connection(("127.0.0.1", web.port),
                                        source_address=("127.0.0.78", 0))
    spoofer.sendall(b"GET /livez HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                    b"X-Forwarded-For: 198.51.100.72\r\nConnection: close\r\n\r\n")
    while spoofer.recv(65536):
        pass
    spoofer.close()

    def logged() -> bool:
        log = web.log()
        return ('198.51.100.71:' in log and "WSDISCONNECT" in log
                and "127.0.0.78:" in log)

    _eventually(logged)
    access = [line for line in web.log().splitlines() if not line.startswith("{")]
    assert any(line.startswith("198.51.100.70:") and '"GET /livez"' in line
               for line in access)
    assert any(line.startswith("198.51.100.71:") and "WSCONNECT /ws/tables/" in line
               for line in access)
    assert any(line.startswith("127.0.0.78:") and '"GET /livez"' in line for line in access)
    assert not any("198.51.100.72" in line for line in access)
