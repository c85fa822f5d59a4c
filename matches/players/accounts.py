"""A user's player: the row every seat, rating and chat message hangs on."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext as _

from matches.errors import ServiceError
from matches.models import Player


def player_for_user(user: Any) -> Player:
    """The player of ``user``, created on first use (display name: the username)."""
    if user is None or not getattr(user, "is_authenticated", False):
        raise ServiceError("not_authenticated", _("Log in to play."))
    player, _created = Player.objects.get_or_create(
        user=user, defaults={"display_name": user.get_username()[:40]}
    )
    return player
