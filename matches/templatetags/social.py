"""``{% follow_button player %}`` (the profile page's "Follow" button) and ``{% find_game %}``
(the lobby's seeks, challenges, friends and online players)."""

from __future__ import annotations

from typing import Any

from django import template
from django.utils.translation import gettext_lazy as _

from matches.forms import SeekForm
from matches.models import Player
from matches.services import player_for_user
from matches.services.follows import follows

register = template.Library()


@register.inclusion_tag("matches/_follow_button.html", takes_context=True)
def follow_button(context: Any, player: Player) -> dict[str, Any]:
    """Shown to a logged-in visitor of another player's page."""
    request = context.get("request")
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {"show": False}
    me = player_for_user(user)
    if me.pk == player.pk:
        return {"show": False}
    return {"show": True, "player": player, "following": follows(me, player),
            "csrf_token": context.get("csrf_token")}


@register.inclusion_tag("matches/_find_game.html", takes_context=True)
def find_game(context: Any) -> dict[str, Any]:
    """The lobby's "Find a game": a seek form, the open seeks, challenges, friends' tables
    and who is online (``static/find_game.js`` keeps them live)."""
    request = context.get("request")
    user = getattr(request, "user", None)
    strings = {
        "seeking": _("Seeking a game: you are paired as soon as someone seeks the same."),
        "paired": _("Paired with {name}: opening the table…"),
        "no_seeks": _("No open seeks: post one, and others see it here."),
        "no_online": _("Nobody else is online."),
        "no_friends": _("You follow nobody yet: follow players from their page."),
        "no_challenges": _("No challenges."),
        "play": _("Play"),
        "cancel": _("Cancel"),
        "accept": _("Accept"),
        "decline": _("Decline"),
        "challenge": _("Challenge"),
        "watch": _("Watch"),
        "join": _("Join"),
        "you": _("you"),
        "online": _("online"),
        "not_at_table": _("not at a table"),
        "challenge_from": _("{name} challenges you"),
        "challenge_to": _("You challenged {name}"),
        "challenge_sent": _("Challenge sent to {name}: waiting for the answer."),
        "declined": _("{name} declined your challenge."),
        "cancelled": _("{name} withdrew the challenge."),
        "terms_length": _("Match to {n}"),
        "rated": _("rated"),
        "unrated": _("unrated"),
        "failed": _("That did not work: {reason}"),
        "clock_none": _("no clock"),
        "clock_fast": _("fast clock"),
        "clock_normal": _("normal clock"),
        "clock_casual": _("casual clock"),
        "clock_usbgf": _("tournament clock"),
    }
    return {"authenticated": bool(user is not None and user.is_authenticated),
            "form": SeekForm(), "csrf_token": context.get("csrf_token"),
            "strings": {key: str(value) for key, value in strings.items()}}
