"""Celery tasks of the analysis and bot queues (``tavla.queues``): thin callers of
:mod:`matches.gnubg.evaluation`.

Web processes import this module too (to queue the tasks), and they must never load gnubg
(:mod:`tavla.analysis.gnubg_guard`). So each task imports :mod:`matches.gnubg.evaluation` when it
runs, in the worker: that import is the boundary between the processes, not a way round an
import cycle (what this module imports at load evaluates nothing).
"""

from __future__ import annotations

from typing import Any

from celery import shared_task

from matches.gnubg.analysis import ANALYSE_MATCH_TASK
from matches.gnubg.board import ANSWER_TASK
from matches.gnubg.bots import BOT_TURN_TASK
from matches.gnubg.practice import COLLECT_TASK


@shared_task(name=ANALYSE_MATCH_TASK, ignore_result=True)
def analyse_match(match_id: int) -> dict[str, Any]:
    """Analyse a finished match with gnubg and store it (``MatchAnalysis``)."""
    from matches.gnubg.evaluation import analysis_run  # gnubg: in the worker only (see above)

    analysis = analysis_run(match_id)
    return {"match": match_id, "status": analysis.status, "seconds": analysis.seconds}


@shared_task(name=BOT_TURN_TASK, ignore_result=True)
def bot_turn(match_id: int, version: int) -> dict[str, Any]:
    """Let the bot act in ``match_id`` if the match is still at ``version``."""
    from matches.gnubg.evaluation import bot_act  # gnubg: in the worker only (see above)

    return {"match": match_id, "acted": bot_act(match_id=match_id, version=version)}


@shared_task(name="matches.adjudication_chances", ignore_result=True)
def adjudication_chances(match_id: int, version: int) -> dict[str, Any]:
    """Each player's match-winning chances in ``match_id`` at ``version``, for the referee's
    adjudication page (stored where the page finds them; see
    :mod:`matches.gnubg.adjudication`, which queues this by name)."""
    from matches.gnubg.evaluation import adjudication_chances  # gnubg: in the worker only

    chances = adjudication_chances(match_id=match_id, version=version)
    return {"match": match_id, "version": version,
            "chances": None if chances is None else list(chances)}


@shared_task(name=ANSWER_TASK, ignore_result=True)
def answer_analysis_request(request_id: int) -> dict[str, Any]:
    """Answer an analysis board question or a hint (:mod:`matches.gnubg.board`)."""
    from matches.gnubg.evaluation import answer_request  # gnubg: in the worker only

    row = answer_request(request_id)
    return {"request": request_id, "status": None if row is None else row.status}


@shared_task(name=COLLECT_TASK, ignore_result=True)
def collect_drill(player_id: int) -> dict[str, Any]:
    """Make a player's drill items from their matches analysed so far
    (:mod:`matches.gnubg.practice`)."""
    from matches.gnubg.evaluation import collect_drill  # gnubg: in the worker only

    return {"player": player_id, "made": collect_drill(player_id)}
