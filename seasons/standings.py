"""The club's standings over a season, for the home page: who gained the most rating, played
the most, and how well (average PR from gnubg's analyses).

A season is a calendar quarter (January–March, April–June, July–September,
October–December), in the site's time zone. Counted: finished matches at public tables
between people (bots' matches and private tables stay out), the rating changes made in the
quarter (matches and a director's corrections alike), and the PR of every analysed match.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from statistics import fmean

from django.utils import timezone
from django.utils.translation import gettext as _

from matches.models import AnalysisStatus, Match, MatchAnalysis, MatchStatus, Player, RatingRecord


@dataclass
class SeasonLine:
    player: Player
    played: int = 0
    wins: int = 0
    rating_change: float = 0.0
    prs: list[float] = field(default_factory=list)

    @property
    def average_pr(self) -> float | None:
        return round(fmean(self.prs), 2) if self.prs else None


@dataclass(frozen=True)
class Season:
    label: str
    since: datetime
    until: datetime  # exclusive
    lines: list[SeasonLine]  # by rating change, best first

    @property
    def most_active(self) -> list[SeasonLine]:
        return sorted(self.lines, key=lambda line: (-line.played, -line.wins,
                                                    line.player.display_name))


def quarter_of(now: datetime) -> tuple[datetime, datetime, int]:
    """The start and end (exclusive) of the calendar quarter holding ``now``, and its number."""
    local = timezone.localtime(now)
    number = (local.month - 1) // 3 + 1
    since = local.replace(month=3 * number - 2, day=1, hour=0, minute=0, second=0,
                          microsecond=0)
    until = (since.replace(year=since.year + 1, month=1) if number == 4
             else since.replace(month=3 * number + 1))
    return since, until, number


def club_season(now: datetime | None = None) -> Season:
    """The standings of the quarter holding ``now``."""
    since, until, number = quarter_of(now or timezone.now())
    matches = list(Match.objects.filter(
        finished_at__gte=since, finished_at__lt=until, status__gte=MatchStatus.FINISHED,
        table__is_public=True, has_bot=False).values_list("pk", "player0", "player1", "winner"))
    ratings = list(RatingRecord.objects.filter(created_at__gte=since, created_at__lt=until)
                   .values_list("player", "before", "after"))
    ids = {p for _m, a, b, _w in matches for p in (a, b)} | {p for p, _b, _a in ratings}
    people = {player.pk: player for player in Player.objects.filter(pk__in=ids, is_bot=False)}
    lines: dict[int, SeasonLine] = {}

    def line(player_id: int) -> SeasonLine | None:
        if player_id not in people:
            return None
        return lines.setdefault(player_id, SeasonLine(people[player_id]))

    counted: set[int] = set()
    for match_id, a, b, winner in matches:
        counted.add(match_id)
        for player in (a, b):
            entry = line(player)
            if entry is not None:
                entry.played += 1
                entry.wins += player == winner
    for player, before, after in ratings:
        entry = line(player)
        if entry is not None:
            entry.rating_change += after - before
    for a, b, pr0, pr1 in MatchAnalysis.objects.filter(
            match_id__in=counted, status=AnalysisStatus.DONE).values_list(
            "match__player0", "match__player1", "pr0", "pr1"):
        for player, pr in ((a, pr0), (b, pr1)):
            entry = line(player)
            if entry is not None and pr is not None:
                entry.prs.append(pr)
    ordered = sorted(lines.values(), key=lambda entry: (-entry.rating_change, -entry.played,
                                                        entry.player.display_name))
    label = _("%(year)s, quarter %(quarter)s") % {"year": since.year, "quarter": number}
    return Season(label, since, until, ordered)
