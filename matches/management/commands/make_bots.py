"""``manage.py make_bots``: create the bot players (one per strength), so a director can
enter them in a practice tournament or seat them at a table from the admin."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand

from matches.gnubg.bots import bot_player
from tavla.analysis.levels import STRENGTHS


class Command(BaseCommand):
    help = "Create the GNU Backgammon bot players, one per strength."

    def handle(self, *args: Any, **options: Any) -> None:
        for key in STRENGTHS:
            player = bot_player(key)
            self.stdout.write(f"{player.display_name}: player {player.pk}, "
                              f"user {player.user.get_username()}")
