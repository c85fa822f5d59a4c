"""Vacations from correspondence play: an allowance of days per player per calendar year.

The exact model (docs/correspondence.md):

* The allowance is ``TAVLA_VACATION_DAYS`` days (UTC) per calendar year. A vacation is
  charged to the year it starts in, for the time from its start to its end.
* Starting one (:func:`vacation_start`, for ``days`` whole days, or all that is left) reserves
  that time: its latest end is ``ends_by``. Asking for more than is left is refused and
  changes nothing.
* While it runs, every correspondence turn of the player runs until ``ends_by`` before its own
  N days begin to count: a turn already running when the vacation starts has its deadline
  moved by the whole vacation, a turn that begins during it by the vacation's rest
  (:func:`matches.services.correspondence.vacation_extension`, asked by the one door).
* Coming back earlier (:func:`vacation_stop`) ends it now: the part not used goes back to
  the allowance, and the deadlines of the turns still waiting for the player move back by
  that part. So each turn is extended by exactly the vacation time that overlapped it.
* At ``ends_by`` the vacation is over by itself; nothing needs to run then.

A player on vacation may still play; a live table's clock ignores vacations.

Known limit: a turn handed to the player in the same instant as their vacation starts (both
transactions open together) may miss the extension: the hand-over does not see the vacation
yet, and the start does not see the new turn yet. The next turn has it, and ending the
vacation never takes that turn below its own N days.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from matches.errors import ServiceError
from matches.models import Match, MatchStatus, Player, Vacation
from matches.services.change import match_change
from matches.services.correspondence import active_vacation
from tavla.engine.clock import SECONDS_PER_DAY


def allowance_days() -> int:
    return int(getattr(settings, "TAVLA_VACATION_DAYS", 14))


def _year_start(year: int) -> datetime:
    return datetime(year, 1, 1, tzinfo=UTC)


def used_seconds(player: Player, year: int, now: datetime) -> float:
    """Vacation time ``player`` used (or reserved, for one running) in ``year``: vacations
    that started in that year, each to its end or latest end."""
    used = 0.0
    for vacation in Vacation.objects.filter(player=player, started_at__gte=_year_start(year),
                                            started_at__lt=_year_start(year + 1)):
        used += max(0.0, (vacation.end() - vacation.started_at).total_seconds())
    return used


def seconds_left(player: Player, now: datetime) -> float:
    """Vacation time ``player`` may still take in ``now``'s calendar year."""
    return max(0.0, allowance_days() * SECONDS_PER_DAY - used_seconds(player, now.year, now))


def _waiting_matches(player: Player) -> list[int]:
    """Correspondence matches being played in which it is ``player``'s turn."""
    return list(Match.objects.filter(to_act=player, status=MatchStatus.PLAYING,
                                     table__correspondence_days__isnull=False)
                .order_by("pk").values_list("pk", flat=True))


def _extend_all(player: Player, seconds: float, now: datetime) -> None:
    for match_id in _waiting_matches(player):
        with match_change(match_id, now=now) as change:
            match = change.match
            if match.to_act_id != player.pk or match.clock is None:  # re-checked under the lock
                continue
            started = match.clock.get("started_at")
            moved = seconds
            if moved < 0 and match.turn_since is not None and started is not None:
                # Giving time back never moves a turn's start before it began (a turn
                # that missed its extension, see the module's known limit).
                moved = max(moved, match.turn_since.timestamp() - float(started))
            if moved:
                change.extend_clock(moved)


def vacation_start(*, player: Player | None, days: Any = None,
                   now: datetime | None = None) -> Vacation:
    """Start a vacation of ``days`` whole days (None: all the allowance left this year).

    Raises :class:`ServiceError`: ``not_authenticated``; ``on_vacation`` (one is running);
    ``invalid_option`` (``days`` not a whole number of at least 1); ``no_vacation_left``
    (``days`` more than is left this year, or nothing left). Nothing changes then.
    """
    if player is None:
        raise ServiceError("not_authenticated", _("Log in first."))
    now = now or timezone.now()
    if days is not None and (isinstance(days, bool) or not isinstance(days, int) or days < 1):
        raise ServiceError("invalid_option",
                           _("A vacation lasts a whole number of days, 1 or more."))
    with transaction.atomic():
        # The player's row serialises their vacations: two starts at once make one.
        Player.objects.select_for_update().filter(pk=player.pk).first()
        if active_vacation(player.pk, now) is not None:
            raise ServiceError("on_vacation", _("You are on vacation already."))
        left = seconds_left(player, now)
        length = left if days is None else days * SECONDS_PER_DAY
        if length <= 0 or length > left:
            raise ServiceError(
                "no_vacation_left",
                _("You have %(left).1f days of vacation left this year (of %(allowance)s).")
                % {"left": left / SECONDS_PER_DAY, "allowance": allowance_days()})
        vacation = Vacation.objects.create(player=player, started_at=now,
                                           ends_by=now + timedelta(seconds=length))
        _extend_all(player, length, now)
    return vacation


def vacation_stop(*, player: Player | None, now: datetime | None = None) -> Vacation:
    """End ``player``'s vacation now: the unused part goes back to the allowance and to the
    deadlines of the turns waiting for them. Raises ``not_on_vacation`` when none runs."""
    if player is None:
        raise ServiceError("not_authenticated", _("Log in first."))
    now = now or timezone.now()
    with transaction.atomic():
        Player.objects.select_for_update().filter(pk=player.pk).first()
        vacation = active_vacation(player.pk, now)
        if vacation is None:
            raise ServiceError("not_on_vacation", _("You are not on vacation."))
        unused = (vacation.ends_by - now).total_seconds()
        vacation.ended_at = now
        vacation.save(update_fields=["ended_at"])
        _extend_all(player, -unused, now)
    return vacation
