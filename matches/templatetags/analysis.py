"""``{% match_analysis match %}``: gnubg's analysis of a finished match (the review page,
the referee's replay). Renders nothing for a match in progress, whatever is stored."""

from __future__ import annotations

from typing import Any

from django import template
from django.db.models import Q
from django.utils.safestring import mark_safe
from django.utils.translation import gettext

from matches.models import AnalysisStatus, Match, MatchAnalysis, MatchStatus, Player
from matches.players.rating_graph import RatingPoint, rating_graph_svg

register = template.Library()


@register.inclusion_tag("matches/_analysis.html")
def match_analysis(match: Match) -> dict[str, Any]:
    if not match.is_finished:
        return {"analysis": None, "live": True}
    analysis = MatchAnalysis.objects.filter(match=match).first()
    decisions = []
    if analysis is not None:
        names = [player.get("name", "") for player in analysis.players] or ["", ""]
        for decision in analysis.decisions:
            if decision["kind"] == "no_double" and not decision["counted"]:
                continue  # an uneventful "no double" before most rolls: not worth a row
            decisions.append({**decision, "name": names[decision["player"]],
                              "loss_milli": round(1000 * decision["loss"]),
                              "dice_text": "".join(map(str, decision["dice"] or []))})
    return {"analysis": analysis, "live": False, "decisions": decisions, "match": match}


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
                     "rating": summary.get("rating", ""), "decisions": summary["decisions"]})
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
