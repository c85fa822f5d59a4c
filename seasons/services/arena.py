"""Arena services: create, join, pause, pair the free players, score a finished match, close.

Pairing happens whenever players may have become free — a player joins or comes back from a
pause, an arena match ends (after its transaction commits) — and on the beat's sweep
(:func:`arena_sweep`), which also closes arenas whose time is up and whose last match ended.
Pairing locks the arena's row, so two pairings of one arena never run at once and nobody is
paired twice. The rules are :mod:`seasons.formats.arena`'s.

Bots (:func:`arena_add_bots`): a director seats gnubg bots of a chosen strength as players.
They are paired like anyone (nothing here tells them apart) and never pause; their matches
are tables with a bot (``Match.has_bot``), so the bot worker plays every turn, the first
included (:func:`matches.gnubg.bots.on_match_changed` runs on the match's start too).
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from matches.errors import ServiceError
from matches.gnubg.bots import bot_player
from matches.models import Match, Player
from matches.rules import rule_names
from matches.services.broadcast import broadcast_on_commit
from seasons.formats.arena import ArenaResult, last_opponents, pair_free, scores
from seasons.models import Arena, ArenaEntry, ArenaGame
from seasons.services.tables import start_match
from tavla.analysis.levels import STRENGTHS

#: The longest arena: a club evening.
MAX_DURATION = timedelta(hours=12)
#: The most bots one request adds (an arena may hold more, a request at a time).
MAX_BOTS_AT_ONCE = 20


class ArenaError(ServiceError):
    """An arena change the rules refuse (``code`` says which); nothing changed."""


def arena_create(*, name: str, starts_at: datetime, ends_at: datetime, match_length: int = 3,
                 creator: Player | None = None, **rules: Any) -> Arena:
    """A new arena with the table rules ``rules`` (any of a tournament template's rules)."""
    unknown = set(rules) - set(rule_names(template=True))
    if unknown:
        raise ArenaError("invalid_option",
                         _("Unknown arena options: %(names)s.")
                         % {"names": ', '.join(sorted(unknown))})
    if rules.get("correspondence_days") is not None:
        # An arena lasts hours and pairs players at once: its matches are played live.
        raise ArenaError("invalid_option", _("An arena is played with a live clock."))
    name = (name or "").strip()
    if not name:
        raise ArenaError("invalid_option", _("An arena needs a name."))
    if not (isinstance(match_length, int) and 1 <= match_length <= 25):
        raise ArenaError("invalid_option", _("An arena's matches are played to 1 to 25 points."))
    if not ends_at > starts_at:
        raise ArenaError("invalid_option", _("An arena ends after it starts."))
    if ends_at - starts_at > MAX_DURATION:
        raise ArenaError("invalid_option", _("An arena lasts at most 12 hours."))
    arena = Arena(name=name[:80], starts_at=starts_at, ends_at=ends_at,
                  match_length=match_length, created_by=creator, **rules)
    arena.full_clean()
    arena.save()
    return arena


def arena_join(*, arena_id: int, player: Player | None, now: datetime | None = None) -> ArenaEntry:
    """``player`` joins the arena (before it ends); paired at once if it is running."""
    if player is None:
        raise ArenaError("not_authenticated", _("Log in to join the arena."))
    now = now or timezone.now()
    with transaction.atomic():
        arena = _locked(arena_id)
        if arena.closed_at is not None or now >= arena.ends_at:
            raise ArenaError("arena_over", _("This arena is over."))
        entry, created = ArenaEntry.objects.get_or_create(
            arena=arena, player=player, defaults={"free_since": now})
        if not created:
            raise ArenaError("already_joined", _("You are already in this arena."))
        _pair_on_commit(arena.pk, now)
    return entry


def arena_pause(*, arena_id: int, player: Player | None, paused: bool,
                now: datetime | None = None) -> ArenaEntry:
    """Pause (not paired until back; points kept) or come back."""
    now = now or timezone.now()
    if player is not None and player.is_bot:
        raise ArenaError("bot_never_pauses", _("A bot never pauses."))
    with transaction.atomic():
        arena = _locked(arena_id)
        entry = ArenaEntry.objects.filter(arena=arena, player=player).first()
        if entry is None:
            raise ArenaError("not_in_arena", _("You are not in this arena."))
        if entry.paused != paused:
            entry.paused = paused
            if not paused:
                entry.free_since = now
            entry.save(update_fields=["paused", "free_since"])
            _pair_on_commit(arena.pk, now)
    return entry


def arena_add_bots(*, arena_id: int, strength: str, count: int, actor: Player | None,
                   now: datetime | None = None) -> list[ArenaEntry]:
    """The director ``actor`` adds ``count`` gnubg bots of ``strength`` to the arena (before
    it ends): the lowest-numbered bots of that strength not in it yet
    (:func:`matches.gnubg.bots.bot_player`), paired at once if it is running. Only the
    arena's creator or whoever may create arenas (``seasons.add_arena``) may.

    Refused, nothing changed: ``not_allowed``, ``invalid_option`` (an unknown strength, a
    count not from 1 to :data:`MAX_BOTS_AT_ONCE`), ``arena_over``, ``not_found``."""
    now = now or timezone.now()
    level = _bot_strength(strength)
    if isinstance(count, bool) or not isinstance(count, int) or not (
            1 <= count <= MAX_BOTS_AT_ONCE):
        raise ArenaError("invalid_option", _("Add from 1 to %(most)s bots at a time.")
                         % {"most": MAX_BOTS_AT_ONCE})
    with transaction.atomic():
        arena = _locked(arena_id)
        if not may_direct(arena, actor):
            raise ArenaError("not_allowed", _("Only the arena's director may add bots."))
        if arena.closed_at is not None or now >= arena.ends_at:
            raise ArenaError("arena_over", _("This arena is over."))
        taken = set(arena.entries.values_list("player_id", flat=True))
        added: list[ArenaEntry] = []
        number = 0
        while len(added) < count:
            number += 1
            bot = bot_player(level, number)
            if bot.pk in taken or not bot.is_bot:
                continue  # already in (or the name is a person's: never seat them)
            added.append(ArenaEntry.objects.create(arena=arena, player=bot, free_since=now))
        _pair_on_commit(arena.pk, now)
    return added


def may_direct(arena: Arena, player: Player | None) -> bool:
    """Whether ``player`` directs the arena: its creator, or whoever may create arenas."""
    if player is None or player.is_bot:
        return False
    if arena.created_by_id is not None and arena.created_by_id == player.pk:
        return True
    return bool(player.user.is_active and player.user.has_perm("seasons.add_arena"))


def _bot_strength(strength: str) -> str:
    if not isinstance(strength, str) or strength not in STRENGTHS:
        raise ArenaError("invalid_option", _("A bot's strength is one of: %(strengths)s.")
                         % {"strengths": ", ".join(STRENGTHS)})
    return strength


def arena_pair(*, arena_id: int, now: datetime | None = None) -> list[ArenaGame]:
    """Pair the arena's free players now (nobody, outside its time) and start their matches."""
    now = now or timezone.now()
    with transaction.atomic():
        arena = _locked(arena_id)
        if not arena.is_running(now):
            return []
        everyone = list(arena.entries.select_related("player"))
        entries = [e for e in everyone if not e.paused]
        busy: set[int] = set()
        for a, b in arena.games.filter(finished_at__isnull=True).values_list("player_a",
                                                                           "player_b"):
            busy.update((a, b))
        free = sorted((e for e in entries if e.player_id not in busy),
                      key=lambda e: (e.free_since, e.pk))
        results = finished_results(arena)
        points = {player: score.points for player, score in scores(
            [e.player_id for e in everyone], results).items()}
        last = last_opponents(results)
        players = {e.player_id: e.player for e in free}
        games = []
        for a, b in pair_free([e.player_id for e in free], points, last):
            games.append(_start_game(arena, players[a], players[b], now))
        if games:
            _changed(arena.pk)
    return games


def arena_sweep(*, now: datetime | None = None) -> dict[str, int]:
    """The beat's round: pair every running arena's free players; close every arena whose
    time is up and whose matches have all ended."""
    now = now or timezone.now()
    paired = closed = 0
    for arena_id in Arena.objects.filter(closed_at__isnull=True, starts_at__lte=now,
                                         ends_at__gt=now).values_list("pk", flat=True):
        paired += len(arena_pair(arena_id=arena_id, now=now))
    for arena in Arena.objects.filter(closed_at__isnull=True, ends_at__lte=now):
        with transaction.atomic():
            arena = _locked(arena.pk)
            if arena.closed_at is None and not arena.games.filter(
                    finished_at__isnull=True).exists():
                arena.closed_at = now
                arena.save(update_fields=["closed_at"])
                _changed(arena.pk)
                closed += 1
    return {"paired": paired, "closed": closed}


def on_match_finished(sender: Any, match: Match, **kwargs: Any) -> None:
    """The ``match_finished`` receiver: an arena match scores, its players are free again,
    and once the match's transaction commits the arena pairs them."""
    game = ArenaGame.objects.filter(match=match).select_related("arena").first()
    if game is None or game.finished_at is not None:
        return
    now = timezone.now()
    game.winner_id = match.winner_id
    game.finished_at = now
    game.save(update_fields=["winner", "finished_at"])
    ArenaEntry.objects.filter(arena_id=game.arena_id,
                              player__in=(game.player_a_id, game.player_b_id)).update(
        free_since=now)
    _pair_on_commit(game.arena_id, None)


def finished_results(arena: Arena) -> list[ArenaResult]:
    """The arena's decided matches as the formats read them (a voided match scores nothing)."""
    rows = (arena.games.filter(finished_at__isnull=False, winner__isnull=False)
            .order_by("finished_at", "pk").values_list("player_a", "player_b", "winner"))
    # ``finished`` only orders the results: their sequence number is enough.
    return [ArenaResult(winner, b if winner == a else a, float(number))
            for number, (a, b, winner) in enumerate(rows)]


def _locked(arena_id: int) -> Arena:
    arena = Arena.objects.select_for_update().filter(pk=arena_id).first()
    if arena is None:
        raise ArenaError("not_found", _("No such arena."))
    return arena


def arena_group(arena_id: int) -> str:
    """The channel-layer group of every page showing one arena."""
    return f"arena.{arena_id}"


def _changed(arena_id: int) -> None:
    """Tell the arena's pages, once this transaction commits, that its board changed."""
    broadcast_on_commit(arena_group(arena_id), {"type": "arena.changed", "arena_id": arena_id})


def _pair_on_commit(arena_id: int, now: datetime | None) -> None:
    _changed(arena_id)
    transaction.on_commit(lambda: arena_pair(arena_id=arena_id, now=now))


def _start_game(arena: Arena, a: Player, b: Player, now: datetime) -> ArenaGame:
    """A table with the arena's rules, both players seated: the match starts at once."""
    match = start_match(name=f"{arena.name} · {a} – {b}", match_length=arena.match_length,
                        rules=arena.rule_values(), a=a, b=b)
    return ArenaGame.objects.create(arena=arena, match=match, player_a=a, player_b=b,
                                    created_at=now)
