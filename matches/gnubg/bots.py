"""Bots at the table: players marked as bots whose moves gnubg chooses
(:mod:`tavla.analysis.bots`), made through the same services as everyone's.

After every change of a match with a bot (``Match.has_bot``) :func:`schedule_bot_turn`
queues a task on the bot queue, with a human-like pause, for the version the bot must act
on. The task (:func:`matches.gnubg.evaluation.bot_act`, in the bot worker) acts through
:func:`matches.services.match_act` like any player; a task that arrives late (the match
moved on) does nothing. The web processes never evaluate anything: this module names the
strengths without loading gnubg.

Starting a match against a bot (:func:`bot_table_create`: the lobby's "Play the bot" and
``POST /api/bot-matches/``) is bounded per account by ``TAVLA_BOT_MATCHES_PER_PLAYER``
matches being played at once (``too_many_bot_matches``).
"""

from __future__ import annotations

import logging
import random
from dataclasses import dataclass, field
from typing import Any, Final

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import transaction
from django.db.models import Q
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from matches import services, validation
from matches.errors import ServiceError
from matches.models import Match, MatchStatus, Player, Table
from matches.rules import rule_names
from tavla.analysis.levels import STRENGTHS
from tavla.analysis.levels import strength as bot_strength
from tavla.celery import app
from tavla.engine.clock import PRESETS

logger = logging.getLogger(__name__)

_RNG = random.SystemRandom()


def bot_player(strength: str, number: int = 1) -> Player:
    """The bot player of ``strength`` (a key of ``STRENGTHS``), created on first use with a
    user who cannot log in. ``number`` 2, 3, ... are more bots of the same strength, for
    events where one player may stand only once (an arena, a ladder): "GNU Backgammon
    (Beginner) 2"."""
    level = bot_strength(strength)
    if not (isinstance(number, int) and number >= 1):
        raise ValueError(f"a bot's number is 1 or more, not {number!r}")
    username = f"{BOT_NAME_PREFIX}{level.key.replace('_', '-')}"
    display_name = f"GNU Backgammon ({level.label})"
    if number > 1:
        username, display_name = f"{username}-{number}", f"{display_name} {number}"
    user, created = get_user_model().objects.get_or_create(username=username)
    if created:
        user.set_unusable_password()
        user.save(update_fields=["password"])
    player, _created = Player.objects.get_or_create(
        user=user,
        defaults={"display_name": display_name, "is_bot": True, "bot_strength": level.key},
    )
    return player


#: Table options a bot match fixes: its table is private, and rated only with ``rated``.
FIXED_RULES: Final = frozenset({"is_public", "is_rated"})
#: The options of a bot match besides the table's rules (:data:`matches.rules.RULES`).
BOT_MATCH_OPTIONS: Final = ("strength", "rated", "clock_preset")


@dataclass(frozen=True, slots=True)
class BotMatchOptions:
    """A checked request for a match against a bot (see :func:`bot_match_options`)."""

    strength: str
    rated: bool = False
    clock_preset: str = "none"
    rules: dict[str, Any] = field(default_factory=dict)


def bot_match_options(data: Any) -> BotMatchOptions:
    """A bot match's options from a request body: ``strength`` (required, a key of
    :data:`tavla.analysis.levels.STRENGTHS`), ``rated`` (default false), ``clock_preset``
    (default ``"none"``) and any table rule but ``is_public`` and ``is_rated``
    (``match_length`` defaults to 1). Raises ``bad_request`` for a body that is not an
    object and ``invalid_option``, naming the field, for anything else wrong."""
    data = validation.message_object(data)
    allowed = {*BOT_MATCH_OPTIONS, *(name for name in rule_names() if name not in FIXED_RULES)}
    unknown = sorted(str(key) for key in set(data) - allowed)
    if unknown:
        raise ServiceError("invalid_option", _("Unknown options of a bot match: %(names)s.")
                           % {"names": ", ".join(unknown)}, field=unknown[0])
    key = data.get("strength")
    if not isinstance(key, str) or key not in STRENGTHS:
        raise ServiceError("invalid_option", _("strength is one of: %(names)s.")
                           % {"names": ", ".join(STRENGTHS)}, field="strength")
    rated = data.get("rated", False)
    if not isinstance(rated, bool):
        raise ServiceError("invalid_option", _("rated is true or false."), field="rated")
    preset = data.get("clock_preset", "none")
    if not isinstance(preset, str) or preset not in PRESETS:
        raise ServiceError("invalid_option",
                           _("clock_preset is one of: %(names)s.") % {"names": ', '.join(PRESETS)},
                           field="clock_preset")
    rules = validation.rule_values({name: value for name, value in data.items()
                                    if name not in BOT_MATCH_OPTIONS})
    return BotMatchOptions(key, rated, preset, rules)


def bot_matches_playing(player: Player) -> int:
    """How many matches against a bot ``player`` is playing now."""
    return Match.objects.filter(Q(player0=player) | Q(player1=player), has_bot=True,
                                status=MatchStatus.PLAYING).count()


def bot_match_limit() -> int:
    """``TAVLA_BOT_MATCHES_PER_PLAYER``: the most matches against bots one account plays at
    once (0: no bound)."""
    return int(getattr(settings, "TAVLA_BOT_MATCHES_PER_PLAYER", 3))


@transaction.atomic
def bot_table_create(*, human: Player, strength: str, rated: bool = False,
                     clock_preset: str | None = "none", **rules: Any) -> Table:
    """A private table where ``human`` plays the bot of ``strength``; the match starts at
    once. ``rules`` are the table's (any of :data:`matches.rules.RULES` but ``is_public``
    and ``is_rated``; ``match_length`` 1 unless given); it changes ratings only with
    ``rated`` (``Table.bots_rated``). The lobby's page and ``POST /api/bot-matches/`` both
    start bot matches here.

    Refused, with nothing changed: ``too_many_bot_matches`` when ``human`` already plays
    ``TAVLA_BOT_MATCHES_PER_PLAYER`` matches against bots, ``invalid_option`` for a bot or
    a fixed option; ValueError for an unknown strength. The human's player row is locked
    first, so two requests of one account at the same moment are counted one after the
    other, never both against the same count.
    """
    level = bot_strength(strength)
    if human.is_bot:
        raise ServiceError("invalid_option", _("A bot cannot invite a bot this way."))
    fixed = sorted(FIXED_RULES & set(rules))
    if fixed:
        raise ServiceError("invalid_option",
                           _("A bot match is private and rated only with rated: %(names)s "
                             "cannot be set.") % {"names": ", ".join(fixed)}, field=fixed[0])
    Player.objects.select_for_update().filter(pk=human.pk).first()
    limit = bot_match_limit()
    playing = bot_matches_playing(human)
    if limit and playing >= limit:
        raise ServiceError(
            "too_many_bot_matches",
            ngettext("You are already playing %(playing)s match against bots; at most %(limit)s "
                     "at once. Finish or resign it first.",
                     "You are already playing %(playing)s matches against bots; at most %(limit)s "
                     "at once. Finish or resign one first.", playing)
            % {"playing": playing, "limit": limit})
    bot = bot_player(level.key)
    rules.setdefault("match_length", 1)
    table = services.table_create(
        name=f"{human.display_name} – {bot.display_name}", creator=human, is_public=False,
        is_rated=rated, clock_preset=clock_preset, **rules,
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


#: Every bot's user name begins so; sign-up refuses such names (matches.forms.SignUpForm).
BOT_NAME_PREFIX: Final = "gnubg-"

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
