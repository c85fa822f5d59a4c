"""No-shows: a paired player who has not sat down at their table in time loses by forfeit.
The beat sweep (:func:`tournaments.tasks.forfeit_no_shows`) calls :func:`forfeit_no_shows`."""

from __future__ import annotations

from datetime import datetime, timedelta

from django.db import transaction
from django.utils import timezone

from matches.models import Match, MatchStatus, Table
from tournaments.models import Entry, Pairing, PairingStatus, ResultSource, TournamentStatus
from tournaments.services.bracket import settle
from tournaments.services.common import locked, played_at
from tournaments.services.withdrawals import withdraw_absent


def no_show_due(now: datetime | None = None) -> list[int]:
    """Ids of online pairings whose no-show limit has passed with no match started."""
    now = now or timezone.now()
    rows = Pairing.objects.filter(
        status=PairingStatus.PAIRED, table__isnull=False, paired_at__isnull=False,
        tournament__status=TournamentStatus.RUNNING,
        tournament__no_show_minutes__isnull=False,
    ).values_list("pk", "paired_at", "tournament__no_show_minutes", "table_id")
    due = [(pk, table_id) for pk, paired_at, minutes, table_id in rows
           if paired_at is not None and minutes is not None
           and paired_at + timedelta(minutes=minutes) <= now]
    started = set(Match.objects.filter(table_id__in=[t for _, t in due])
                  .exclude(status=MatchStatus.VOIDED)
                  .values_list("table_id", flat=True))
    return [pk for pk, table_id in due if table_id not in started]


def forfeit_no_shows(*, now: datetime | None = None) -> list[int]:
    """Forfeit every due no-show (see :func:`pairing_forfeit_no_show`); the ids decided."""
    now = now or timezone.now()
    return [pk for pk in no_show_due(now) if pairing_forfeit_no_show(pairing_id=pk, now=now)]


def pairing_forfeit_no_show(*, pairing_id: int, now: datetime | None = None) -> bool:
    """If the pairing's limit has passed and its match has not started, the player who did
    not sit down loses by forfeit; if neither sat down, both lose (a double forfeit: in
    elimination nobody goes through and the next opponent has a bye). A player absent
    without notice is withdrawn from later rounds; a referee can reinstate them
    (:func:`~tournaments.services.withdrawals.entry_reinstate`). Idempotent: re-checks
    everything under the locks; True when it decided the pairing."""
    now = now or timezone.now()
    row = Pairing.objects.filter(pk=pairing_id).only("tournament_id").first()
    if row is None:
        return False
    with transaction.atomic():
        tournament = locked(row.tournament_id)
        row = Pairing.objects.select_related("entry_a__player", "entry_b__player").get(
            pk=pairing_id)
        limit = tournament.no_show_minutes
        if (row.status != PairingStatus.PAIRED or row.table_id is None or limit is None
                or tournament.status != TournamentStatus.RUNNING or row.paired_at is None
                or row.paired_at + timedelta(minutes=limit) > now):
            return False
        table = Table.objects.select_for_update().get(pk=row.table_id)
        if played_at(table.pk):
            return False
        assert row.entry_a is not None and row.entry_b is not None
        seated = {table.seat0_id, table.seat1_id} - {None}
        present = [e for e in (row.entry_a, row.entry_b) if e.player_id in seated]
        winner: Entry | None
        if len(present) == 1:
            winner = present[0]
            absent = [row.entry_b if winner == row.entry_a else row.entry_a]
            reason = f"{absent[0].player} did not sit down within {limit} minutes"
            source = ResultSource.NO_SHOW
        else:
            winner, absent = None, [row.entry_a, row.entry_b]
            reason = f"neither player sat down within {limit} minutes: both lose"
            source = ResultSource.DOUBLE_FORFEIT
        Table.objects.filter(pk=table.pk).update(seat0=None, seat1=None)
        # Withdrawn before the format is asked what comes next: they are not paired again.
        for entry in absent:
            withdraw_absent(tournament, entry, slot=row.slot)
        settle(tournament, row, winner, source, reason=reason)
        return True


