"""``{% match_analysis match %}``: gnubg's analysis of a finished match (the review page,
the referee's replay). Renders nothing for a match in progress, whatever is stored."""

from __future__ import annotations

from typing import Any

from django import template
from django.db.models import Q
from django.utils.safestring import mark_safe
from django.utils.translation import gettext

from matches.analysis_review import decision_rows, player_rows
from matches.analysis_words import analysis_word
from matches.models import AnalysisStatus, Match, MatchAnalysis, MatchStatus, Player
from matches.players.rating_graph import RatingPoint, rating_graph_svg

register = template.Library()


@register.inclusion_tag("matches/_analysis.html")
def match_analysis(match: Match, review: dict[str, Any] | None = None) -> dict[str, Any]:
    """The analysis section; with the review's frames (``review``) each decision row is tied
    to the board (:mod:`matches.analysis_review`)."""
    if not match.is_finished:
        return {"analysis": None, "live": True}
    analysis = MatchAnalysis.objects.filter(match=match).first()
    decisions: list[dict[str, Any]] = []
    players: list[dict[str, Any]] = []
    if analysis is not None and analysis.status == AnalysisStatus.DONE:
        names = [player.get("name", "") for player in analysis.players] or ["", ""]
        decisions = decision_rows(analysis.decisions, names, review)
        players = player_rows(analysis.players)
    board_rows = [{key: row[key] for key in _BOARD_FIELDS} for row in decisions]
    return {"analysis": analysis, "live": False, "decisions": decisions, "players": players,
            "match": match, "tied": review is not None, "board_rows": board_rows}


#: What the page's script needs of each row (static/review_analysis.js).
_BOARD_FIELDS = ("number", "game", "player", "name", "kind", "frame", "event", "played_moves",
                 "best_moves", "chosen", "best", "chosen_text", "best_text", "mark", "sign",
                 "mark_text", "loss", "equities", "verdict", "verdict_text", "win",
                 "win_estimated", "dice", "resign")


@register.inclusion_tag("matches/_player_pr.html")
def player_performance(player: Player, viewer_user: Any = None) -> dict[str, Any]:
    """A player's PR in each analysed finished match they may be seen in (public tables,
    or the viewer's own matches), newest first, with averages and a graph over time."""
    visible = Q(match__table__is_public=True)
    if viewer_user is not None and getattr(viewer_user, "is_authenticated", False):
        visible |= Q(match__player0__user_id=viewer_user.pk) | Q(
            match__player1__user_id=viewer_user.pk)
    analyses = (MatchAnalysis.objects.filter(status=AnalysisStatus.DONE,
                                             match__status__gte=MatchStatus.FINISHED)
                .filter(Q(match__player0=player) | Q(match__player1=player)).filter(visible)
                .select_related("match__player0", "match__player1")
                .order_by("match__finished_at", "match_id"))
    rows = []
    for analysis in analyses:
        seat = analysis.match.seat_of(player)
        if seat is None or len(analysis.players) <= seat:
            continue
        summary = analysis.players[seat]
        if not summary.get("decisions"):
            continue
        opponent = analysis.match.players()[1 - seat]
        rows.append({"match": analysis.match, "opponent": opponent, "pr": summary["pr"],
                     "rating": analysis_word(summary.get("rating", "")),
                     "decisions": summary["decisions"]})
    prs = [row["pr"] for row in rows]
    graph = ""
    if len(rows) > 1:
        graph = rating_graph_svg(
            [RatingPoint(row["match"].finished_at, row["pr"]) for row in rows],
            title=gettext("PR per match (lower is better)"))
    return {
        "rows": list(reversed(rows))[:20],
        "average": sum(prs) / len(prs) if prs else None,
        "recent": sum(prs[-10:]) / len(prs[-10:]) if prs else None,
        "graph": mark_safe(graph),  # noqa: S308 - markup built by rating_graph_svg, escaped
    }
