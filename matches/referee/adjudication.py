"""Help for a referee adjudicating an unfinished match: each player's match-winning chances
at the current position (gnubg, cubeful, its match equity table), shown on the form and
recorded with the decision (appended to the reason in the log)."""

from __future__ import annotations

import logging

from matches.models import Match
from matches.state import load_state
from tavla.analysis.adjudication import match_winning_chances

logger = logging.getLogger(__name__)


def winning_chances(match: Match) -> tuple[float, float] | None:
    """(player 0, player 1) chances of winning the match from here, or None (a money
    session, a finished match, or gnubg failed: the form then goes without)."""
    if match.is_finished:
        return None
    try:
        return match_winning_chances(load_state(match))
    except Exception:  # noqa: BLE001 - the help is optional; the adjudication is not
        logger.exception("gnubg could not evaluate match %s for adjudication", match.pk)
        return None


def chances_text(match: Match, chances: tuple[float, float]) -> str:
    return (f"gnubg match-winning chances: {match.player0.display_name} "
            f"{100 * chances[0]:.1f}%, {match.player1.display_name} {100 * chances[1]:.1f}%")


def with_chances(reason: str, match: Match, chances: tuple[float, float] | None) -> str:
    """The referee's reason with the chances they saw, as the log records it."""
    if chances is None:
        return reason
    return f"{reason} [{chances_text(match, chances)}]"
