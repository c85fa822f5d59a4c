"""Celery tasks of the analysis and bot queues (``tavla.queues``): thin callers of
:mod:`matches.gnubg.analysis` and :mod:`matches.gnubg.bots`, which queue them by name."""

from __future__ import annotations

from typing import Any

from celery import shared_task

from matches.gnubg.analysis import ANALYSE_MATCH_TASK, analysis_run
from matches.gnubg.bots import BOT_TURN_TASK, bot_act


@shared_task(name=ANALYSE_MATCH_TASK, ignore_result=True)
def analyse_match(match_id: int) -> dict[str, Any]:
    """Analyse a finished match with gnubg and store it (``MatchAnalysis``)."""
    analysis = analysis_run(match_id)
    return {"match": match_id, "status": analysis.status, "seconds": analysis.seconds}


@shared_task(name=BOT_TURN_TASK, ignore_result=True)
def bot_turn(match_id: int, version: int) -> dict[str, Any]:
    """Let the bot act in ``match_id`` if the match is still at ``version``."""
    return {"match": match_id, "acted": bot_act(match_id=match_id, version=version)}
