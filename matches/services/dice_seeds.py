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

from django.utils import timezone
from django.utils.translation import gettext as _

from matches import services, validation
from matches.errors import ServiceError
from matches.models import Match, MatchStatus, Player
from matches.state import awaiting_client_seeds


def _close(change: services.MatchChange) -> None:
    """Record a missing seed as empty and make the first roll."""
    match = change.match
    match.client_seed0 = "" if match.client_seed0 is None else match.client_seed0
    match.client_seed1 = "" if match.client_seed1 is None else match.client_seed1
    match.client_seeds_due = None
    change.advance()


def match_client_seed(*, match_id: int, player: Player, seed: str,
                      now: datetime | None = None) -> Match:
    """Record ``player``'s client seed (hex, 0 to 64 bytes) for ``match_id``; once both
    players' seeds are in, the first roll is made at once. Either way a change of the
    match: a new version, pushed to its boards.

    Raises :class:`~matches.errors.ServiceError`: ``not_found``, ``match_over``,
    ``not_a_player``, ``invalid_seed``, ``seed_already_sent`` and ``seeds_closed`` (the dice
    are fixed already: the first roll has been made). Nothing changes on an error.
    """
    seed = validation.client_seed(seed)
    with services.match_change(match_id, now=now) as change:
        match = change.match
        seat = match.seat_of(player)
        if seat is None:
            raise ServiceError("not_a_player", _("Only the two players contribute to the dice."))
        if not awaiting_client_seeds(match):
            raise ServiceError("seeds_closed", _("The dice are fixed already: client seeds are "
                               "taken only before the first roll of the match."))
        field = f"client_seed{seat}"
        if getattr(match, field) is not None:
            raise ServiceError("seed_already_sent", _("You have sent your client seed already."))
        setattr(match, field, seed.lower())
        if match.client_seed0 is not None and match.client_seed1 is not None:
            _close(change)
        else:
            change.touch()
    return change.match


def close_due_client_seeds(*, now: datetime | None = None) -> int:
    """Close every client-seed window that has run out (missing seeds recorded empty) and
    make those matches' first rolls. Idempotent; returns how many it closed."""
    now = now or timezone.now()
    due = list(Match.objects.filter(status=MatchStatus.PLAYING, client_seeds_due__lte=now)
               .values_list("pk", flat=True)[:500])
    closed = 0
    for match_id in due:
        try:
            with services.match_change(match_id, now=now) as change:
                due_at = change.match.client_seeds_due
                if due_at is not None and due_at <= now:  # else someone closed it first
                    _close(change)
                    closed += 1
        except ServiceError:
            continue  # finished or gone meanwhile
    return closed
