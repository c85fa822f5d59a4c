"""Rematch: when a match is over, both of its players agree and the next one starts at once.

Either player asks (``match_rematch``); the other accepts by asking too, and a new match
begins at the same table with the same rules and the same seats. Either may withdraw or
decline (``accept=False``), which clears the offers. The offers are part of the finished
match's state (``rematch``), so both boards show "X wants a rematch" live. A tournament
pairing's table has no rematch (``tournaments`` refuses through ``rematch_requested``).
"""

from __future__ import annotations

from django.utils.translation import gettext as _

from matches import services
from matches.errors import ServiceError
from matches.models import Match, Player, Table
from matches.signals import rematch_requested


def rematch_refusal(table: Table) -> str | None:
    """Why no match at ``table`` ever has a rematch (a tournament pairing's table), or None.
    The board asks too, so that it never offers what :func:`match_rematch` refuses."""
    for _receiver, reason in rematch_requested.send(sender=Table, table=table):
        if reason:
            return str(reason)
    return None


def match_rematch(*, match_id: int, player: Player | None, accept: bool = True) -> Match:
    """Ask for (or accept) a rematch of the finished ``match_id``; returns the new match
    when both players agreed, else the finished match with the offers updated (a change of
    that match: a new version, pushed). Raises :class:`ServiceError`: ``not_authenticated``,
    ``not_found``, ``match_in_progress``, ``not_a_player``, ``rematch_unavailable``."""
    if player is None:
        raise ServiceError("not_authenticated", _("Log in to ask for a rematch."))
    with services.match_change(match_id, finished=True) as change:
        match = change.match
        if not match.is_finished:
            raise ServiceError("match_in_progress", _("The match is still being played."))
        seat = match.seat_of(player)
        if seat is None:
            raise ServiceError("not_a_player", _("Only the match's players can play a rematch."))
        table = Table.objects.select_for_update().get(pk=match.table_id)
        newer = table.matches.filter(pk__gt=match.pk).exists()
        if newer or table.seat0_id not in (None, match.player0_id) \
                or table.seat1_id not in (None, match.player1_id):
            raise ServiceError("rematch_unavailable", _("The table has moved on since this match."))
        reason = rematch_refusal(table)
        if reason is not None:
            raise ServiceError("rematch_unavailable", reason)
        offers = sorted({*match.rematch_offers, seat}) if accept else []
        if offers != [0, 1]:
            if offers != match.rematch_offers:
                match.rematch_offers = offers
                change.touch()
            return match
        # Both agreed. The finished match stays as it was (one offer, shown until now);
        # the new match starts at the same table with the same seats, and its state is
        # what the table's boards get.
        table.seat0_id, table.seat1_id = match.player0_id, match.player1_id
        table.save(update_fields=["seat0", "seat1"])
        return services.match_start(table=table)
