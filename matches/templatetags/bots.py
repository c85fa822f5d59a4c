"""``{% play_bot_form %}``: the lobby's "Play the bot" form (matches/gnubg/bot_views.py)."""

from __future__ import annotations

from typing import Any

from django import template

from matches.gnubg.bot_views import BotForm

register = template.Library()


@register.inclusion_tag("matches/_play_bot.html", takes_context=True)
def play_bot_form(context: Any) -> dict[str, Any]:
    return {"bot_form": BotForm(), "csrf_token": context.get("csrf_token")}
