"""``{% match_analysis match %}``: gnubg's analysis of a finished match (the review page,
the referee's replay). Renders nothing for a match in progress, whatever is stored."""

from __future__ import annotations

from typing import Any

from django import template

from matches.models import Match, MatchAnalysis

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
