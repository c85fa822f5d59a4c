"""Celery tasks of the analysis and bot queues (``tavla.queues``): thin callers of
:mod:`matches.gnubg.analysis` and :mod:`matches.gnubg.bots`."""

from __future__ import annotations

from typing import Any

from celery import shared_task


@shared_task(name="matches.analyse_match", ignore_result=True)
def analyse_match(match_id: int) -> dict[str, Any]:
    """Analyse a finished match with gnubg and store it (``MatchAnalysis``)."""
    from matches.gnubg.analysis import analysis_run

    analysis = analysis_run(match_id)
    return {"match": match_id, "status": analysis.status, "seconds": analysis.seconds}


@shared_task(name="matches.bot_turn", ignore_result=True)
def bot_turn(match_id: int, version: int) -> dict[str, Any]:
    """Let the bot act in ``match_id`` if the match is still at ``version``."""
    from matches.gnubg.bots import bot_act

    return {"match": match_id, "acted": bot_act(match_id=match_id, version=version)}
