"""Bots at the table: players marked as bots whose moves gnubg chooses
(:mod:`tavla.analysis.bots`), made through the same services as everyone's.

After every change of a match with a bot (``Match.has_bot``) :func:`schedule_bot_turn`
queues a task on the bot queue, with a human-like pause, for the version the bot must act
on. The task (:func:`matches.gnubg.evaluation.bot_act`, in the bot worker) acts through
:func:`matches.services.match_act` like any player; a task that arrives late (the match
moved on) does nothing. The web processes never evaluate anything: this module names the
strengths without loading gnubg.
"""

from __future__ import annotations

import logging
import random
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import transaction

from matches import services
from matches.errors import ServiceError
from matches.models import Match, Player, Table
from tavla.analysis.levels import strength as bot_strength
from tavla.celery import app

logger = logging.getLogger(__name__)

_RNG = random.SystemRandom()


def bot_player(strength: str) -> Player:
    """The bot player of ``strength`` (a key of ``STRENGTHS``), created on first use with a
    user who cannot log in."""
    level = bot_strength(strength)
    username = f"gnubg-{level.key.replace('_', '-')}"
    user, created = get_user_model().objects.get_or_create(username=username)
    if created:
        user.set_unusable_password()
        user.save(update_fields=["password"])
    player, _created = Player.objects.get_or_create(
        user=user,
        defaults={"display_name": f"GNU Backgammon ({level.label})", "is_bot": True,
                  "bot_strength": level.key},
    )
    return player


@transaction.atomic
def bot_table_create(*, human: Player, strength: str, match_length: int | None = 1,
                     cube_enabled: bool = True, rated: bool = False) -> Table:
    """A private table where ``human`` plays the bot of ``strength``; the match starts at
    once. It changes ratings only with ``rated`` (``Table.bots_rated``)."""
    bot = bot_player(strength)
    if human.is_bot:
        raise ServiceError("invalid_option", "A bot cannot invite a bot this way.")
    table = services.table_create(
        name=f"{human.display_name} – {bot.display_name}", creator=human, is_public=False,
        is_rated=rated, match_length=match_length, cube_enabled=cube_enabled,
        clock_preset="none",
    )
    table.bots_rated = rated
    table.save(update_fields=["bots_rated"])
    services.table_sit(table_id=table.pk, player=human, seat=0)
    services.table_sit(table_id=table.pk, player=bot, seat=1, invite=table.invite_token)
    return table


def bot_seated(table: Table, *, seat: int, strength: str) -> Table:
    """Seat the bot of ``strength`` at a free ``seat`` (a director filling a practice
    bracket, or a player inviting a bot to their table)."""
    return services.table_sit(table_id=table.pk, player=bot_player(strength), seat=seat,
                              invite=table.invite_token)


def pause_seconds() -> float:
    low, high = getattr(settings, "TAVLA_BOT_PAUSE", (0.8, 2.0))
    return _RNG.uniform(float(low), float(high))


# The bot queue's task (:mod:`matches.gnubg.tasks`), asked for by its registered name.
BOT_TURN_TASK = "matches.bot_turn"


def on_match_changed(sender: Any, *, match: Match, state: Any, **_kwargs: Any) -> None:
    """After each change of a match with a bot (:data:`matches.signals.match_changed`),
    queue the bot's turn; the task itself checks whether the bot must act."""
    if match.has_bot and not state.is_over:
        schedule_bot_turn(match)


def schedule_bot_turn(match: Match) -> None:
    """After the transaction commits, queue the bot's turn for ``match`` at its current
    version. Caller holds the match lock and has just saved it; the task checks again
    whether a bot must act."""
    match_id, version = match.pk, match.version

    def enqueue() -> None:
        try:
            app.signature(BOT_TURN_TASK, args=(match_id, version)).apply_async(
                countdown=pause_seconds())
        except Exception:  # noqa: BLE001 - a broker outage must not fail a player's move
            logger.exception("could not queue the bot's turn in match %s", match_id)

    transaction.on_commit(enqueue)
