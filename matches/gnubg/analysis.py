"""GNU Backgammon's analysis of finished matches: requested when a match ends, made by a
Celery task on the analysis queue (never the clock queue), read by the API, the review
pages and the fair-play list.

Nothing about a match in progress is ever evaluated: :func:`analysis_request` and
:func:`matches.gnubg.evaluation.analysis_run` refuse a live match, and :func:`analysis_for` raises
``match_live`` for one, so no page or endpoint can show it to its players or spectators.
The evaluation itself is in :mod:`matches.gnubg.evaluation`, which only the worker loads.
"""

from __future__ import annotations

import logging
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils.translation import gettext as _

from matches.errors import ServiceError
from matches.models import AnalysisStatus, Match, MatchAnalysis, MatchStatus
from tavla.celery import app

logger = logging.getLogger(__name__)


def analysis_plies() -> int:
    """The level analyses are made at (``TAVLA_ANALYSIS_PLIES``: 0, 1 or 2)."""
    return int(getattr(settings, "TAVLA_ANALYSIS_PLIES", 0))


# The analysis queue's task (:mod:`matches.gnubg.tasks`), asked for by its registered name.
ANALYSE_MATCH_TASK = "matches.analyse_match"


def analysis_request(match: Match) -> MatchAnalysis | None:
    """Queue the analysis of a finished match (after the current transaction commits).

    A voided match, a match without a game played or a live one gets none (None)."""
    if not match.is_finished or match.status == MatchStatus.VOIDED:
        return None
    analysis, _created = MatchAnalysis.objects.update_or_create(
        match=match, defaults={"status": AnalysisStatus.PENDING, "error": "",
                               "plies": analysis_plies()},
    )
    match_id = match.pk

    def enqueue() -> None:
        try:
            app.signature(ANALYSE_MATCH_TASK, args=(match_id,)).apply_async()
        except Exception:  # noqa: BLE001 - a broker outage must not undo the match's end
            logger.exception("could not queue the analysis of match %s", match_id)

    transaction.on_commit(enqueue)
    return analysis


def analysis_for(match: Match) -> MatchAnalysis | None:
    """The analysis of ``match`` for display, or None if none was made.

    Raises :class:`ServiceError` ``match_live`` while the match is being played."""
    if not match.is_finished:
        raise ServiceError("match_live",
                           _("The analysis is shown only once the match is over."))
    return MatchAnalysis.objects.filter(match=match).first()


def analysis_json(analysis: MatchAnalysis) -> dict[str, Any]:
    """The analysis as the API serves it (see docs/analysis.md)."""
    return {
        "match": analysis.match_id,
        "status": analysis.status,
        "plies": analysis.plies,
        "engine": analysis.engine,
        "players": analysis.players,
        "decisions": analysis.decisions,
        "finished_at": analysis.finished_at.isoformat() if analysis.finished_at else None,
        "error": analysis.error,
    }


def on_match_finished(sender: Any, match: Match, **kwargs: Any) -> None:
    """:data:`matches.signals.match_finished` receiver: queue the analysis."""
    if getattr(settings, "TAVLA_ANALYSE_FINISHED_MATCHES", True):
        analysis_request(match)
