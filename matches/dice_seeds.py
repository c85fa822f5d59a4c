"""Client seeds: both players' contributions to the dice (``docs/dice.md``).

When a match starts, the server's commitment (``sha256(seed)``) is already published; then
each player may send a client seed, once, until the first roll. The first opening roll
waits until both have sent one, or until ``TAVLA_CLIENT_SEED_SECONDS`` have passed (a
missing seed is then recorded empty). From then on every die derives from the server seed
and both client seeds (:mod:`tavla.engine.dice`), and nobody, the server included, could
have chosen them: the server fixed its seed before it saw the client seeds, and a player
who does not know the server seed cannot aim.

Callers: the table socket (``client_seed``), ``POST /api/matches/<id>/seed/`` and the clock
sweep (:func:`close_due_client_seeds`, which closes windows that ran out).
"""

from __future__ import annotations

from datetime import datetime

from django.db import transaction
from django.utils import timezone

from matches import services, validation
from matches.errors import ServiceError
from matches.models import Match, MatchStatus, Player
from matches.state import awaiting_client_seeds


def _close_locked(match: Match, now: datetime) -> None:
    """Record a missing seed as empty and make the first roll. Caller holds the lock."""
    match.client_seed0 = "" if match.client_seed0 is None else match.client_seed0
    match.client_seed1 = "" if match.client_seed1 is None else match.client_seed1
    match.client_seeds_due = None
    services.match_advance_locked(match, now)


def match_client_seed(*, match_id: int, player: Player, seed: str,
                      now: datetime | None = None) -> Match:
    """Record ``player``'s client seed (hex, 0 to 64 bytes) for ``match_id``; once both
    players' seeds are in, the first roll is made at once.

    Raises :class:`~matches.errors.ServiceError`: ``not_found``, ``match_over``,
    ``not_a_player``, ``invalid_seed``, ``seed_already_sent`` and ``seeds_closed`` (the dice
    are fixed already: the first roll has been made). Nothing changes on an error.
    """
    seed = validation.client_seed(seed)
    with transaction.atomic():
        match = (Match.objects.select_for_update().select_related("table")
                 .filter(pk=match_id).first())
        if match is None:
            raise ServiceError("not_found", f"There is no match {match_id}.")
        if match.is_finished:
            raise ServiceError("match_over", "This match is over.")
        seat = match.seat_of(player)
        if seat is None:
            raise ServiceError("not_a_player", "Only the two players contribute to the dice.")
        if not awaiting_client_seeds(match):
            raise ServiceError("seeds_closed", "The dice are fixed already: client seeds are "
                               "taken only before the first roll of the match.")
        field = f"client_seed{seat}"
        if getattr(match, field) is not None:
            raise ServiceError("seed_already_sent", "You have sent your client seed already.")
        setattr(match, field, seed.lower())
        now = now or timezone.now()
        if match.client_seed0 is not None and match.client_seed1 is not None:
            _close_locked(match, now)
        else:
            match.save(update_fields=[field])
        return match


def close_due_client_seeds(*, now: datetime | None = None) -> int:
    """Close every client-seed window that has run out (missing seeds recorded empty) and
    make those matches' first rolls. Idempotent; returns how many it closed."""
    now = now or timezone.now()
    due = list(Match.objects.filter(status=MatchStatus.PLAYING, client_seeds_due__lte=now)
               .values_list("pk", flat=True)[:500])
    closed = 0
    for match_id in due:
        with transaction.atomic():
            match = (Match.objects.select_for_update().select_related("table")
                     .filter(pk=match_id, status=MatchStatus.PLAYING).first())
            if (match is None or match.client_seeds_due is None
                    or match.client_seeds_due > now):
                continue  # someone closed it first
            _close_locked(match, now)
            closed += 1
    return closed

