"""The analysis board's questions and a hint answered by a real Celery worker of the
analysis queue running gnubg (the web side only stores the question and queues the task),
and the practice drill's items collected by the worker's task."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import pytest
from django.test import Client

from matches import services
from matches.audit import mat_export
from matches.gnubg.bots import bot_player, bot_table_create
from matches.models import AnalysisRequest, AnalysisStatus, Match, MatchAnalysis, Player
from matches.state import full_state, load_state
from tavla.analysis import native
from tavla.analysis.analyse import BLUNDER, DOUBTFUL, ERROR, AnalysisRules, analyse_record
from tavla.analysis.matread import read_mat
from tavla.analysis.resign import from_events
from tests.conftest import CeleryWorkerProcess

pytestmark = [pytest.mark.slow, pytest.mark.celery, pytest.mark.django_db(transaction=True)]


def answered(client: Client, request_id: int, worker: CeleryWorkerProcess,
             timeout: float = 120) -> dict[str, Any]:
    """Poll the request as the pages do until it is no longer evaluating."""
    deadline = time.monotonic() + timeout
    while True:
        data: dict[str, Any] = client.get(f"/api/analysis/requests/{request_id}/").json()
        if data["status"] != "evaluating":
            return data
        assert time.monotonic() < deadline, worker.log()[-3000:]
        time.sleep(0.2)


def test_a_board_question_at_each_depth_is_answered_by_the_worker(
    client: Client, make_player: Callable[..., Player],
    celery_worker_process: CeleryWorkerProcess,
) -> None:
    client.force_login(make_player().user)
    xgid = "XGID=-b----E-C---eE---c-e----B-:0:0:1:31:0:0:0:5:10"
    plays_by_depth = {}
    for plies in (0, 1):
        response = client.post("/api/analysis/board/", {"xgid": xgid, "plies": plies},
                               content_type="application/json")
        assert response.status_code == 202, response.json()
        data = answered(client, response.json()["id"], celery_worker_process)
        assert data["status"] == "ready", (data, celery_worker_process.log()[-3000:])
        plays = data["answer"]["plays"]
        assert plays[0]["play"] == "8/5 6/5" and plays[0]["loss"] == 0  # the book 3-1
        plays_by_depth[plies] = plays
    # Deeper means other numbers, not a copy of the 0-ply answer.
    assert plays_by_depth[0] != plays_by_depth[1]
    cube = client.post("/api/analysis/board/", {"xgid": xgid, "dice": None},
                       content_type="application/json")
    data = answered(client, cube.json()["id"], celery_worker_process)
    assert data["answer"]["cube"]["verdict"] == "no_double_take"
    assert set(data["answer"]["cube"]["mwc"]) == {"no_double", "double_take", "double_pass"}


def test_a_hint_against_the_bot_is_answered_by_the_worker(
    client: Client, make_player: Callable[..., Player],
    celery_worker_process: CeleryWorkerProcess, settings: Any,
) -> None:
    human = make_player()
    table = bot_table_create(human=human, strength="beginner", match_length=3)
    match = Match.objects.get(table=table)
    deadline = time.monotonic() + 120
    while True:  # the bot (on the same worker) acts until the human must decide
        match.refresh_from_db()
        state = load_state(match)
        if state.player_to_act == 0:
            break
        assert time.monotonic() < deadline, celery_worker_process.log()[-3000:]
        time.sleep(0.2)
    client.force_login(human.user)
    response = client.post(f"/api/matches/{match.pk}/hint/")
    assert response.status_code in (200, 202), response.json()
    data = answered(client, response.json()["id"], celery_worker_process)
    assert data["status"] == "ready" and data["match_version"] == match.version
    if state.dice:
        assert {e["play"] for e in data["answer"]["plays"]} == {
            p.notation() for p in state.legal_plays()}
    else:
        assert data["answer"]["cube"]["verdict"]
    assert AnalysisRequest.objects.get(pk=data["id"]).kind == "hint"


def test_a_finished_match_is_analysed_by_the_worker_through_gnubgs_own_analysis(
    celery_worker_process: CeleryWorkerProcess,
) -> None:
    """Two bots play a 2-point match on the worker; its end queues the analysis, which the
    worker makes with gnubg's own ``analyse match`` in the package (a standard table: cube,
    gammons, Crawford) without hanging, and its verdicts are the ones this process finds
    for the same record."""
    table = services.table_create(name="Bots analysed", match_length=2)
    services.table_sit(table_id=table.pk, player=bot_player("beginner"), seat=0)
    services.table_sit(table_id=table.pk, player=bot_player("advanced"), seat=1)
    match = Match.objects.get(table=table)
    deadline = time.monotonic() + 600
    while True:
        analysis = MatchAnalysis.objects.filter(match=match).first()
        if analysis is not None and analysis.status in (AnalysisStatus.DONE,
                                                        AnalysisStatus.FAILED):
            break
        assert time.monotonic() < deadline, celery_worker_process.log()[-3000:]
        time.sleep(0.5)
    assert analysis.status == AnalysisStatus.DONE, (analysis.error,
                                                    celery_worker_process.log()[-3000:])
    match.refresh_from_db()
    record = read_mat(mat_export(match))
    assert native.eligible(record, cube=True, gammons=True)
    resignations = {game.number: from_events(game.events) for game in full_state(match).games}
    here = analyse_record(record, analysis.plies, rules=AnalysisRules.of(load_state(match).rules),
                          resignations=resignations)
    # The same verdicts; numbers to gnubg's printed six decimals, give or take its last digit
    # (another process, another history in gnubg's evaluation cache: 2e-6 seen).
    assert [d["kind"] for d in analysis.decisions] == [d.kind for d in here.decisions]
    for stored, mine in zip(analysis.decisions, here.decisions, strict=True):
        assert stored["loss"] == pytest.approx(mine.loss, abs=1e-5)
        if mine.loss > 1e-4:
            assert stored["best"] == mine.best
        if all(abs(mine.loss - threshold) > 1e-4 for threshold in (DOUBTFUL, ERROR, BLUNDER)):
            assert stored["mark"] == mine.mark
    assert [p["pr"] for p in analysis.players] == pytest.approx(
        [p.pr for p in here.players], abs=1e-3)
