"""A player's match history: every match they played, filtered and paged.

Read-only selectors; the page (``matches.views.player_matches``) and the REST API
(``GET /api/players/<id>/matches/``) both validate their input with
:class:`matches.forms.MatchHistoryForm` and read through :func:`history_page`, so they show
the same rows and give the same error for the same mistake.

Who sees what follows the player's profile: matches at public tables, and any match the viewer
played themselves. A private table's match never shows to anybody else, nor counts in the
number of matches or pages.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from enum import StrEnum
from typing import Final

from django.core.paginator import Page, Paginator
from django.db.models import Q, QuerySet
from django.urls import reverse
from django.utils import timezone

from matches.models import Match, MatchStatus, Player, RatingRecord

PAGE_SIZE: Final = 20
MAX_PAGE_SIZE: Final = 100


class Outcome(StrEnum):
    """A match's result for the player whose history it is (the ``result`` filter)."""

    WON = "won"
    LOST = "lost"
    PLAYING = "playing"  # still being played
    NONE = "none"  # over without a winner: voided, or a money session ended


@dataclass(frozen=True, slots=True)
class HistoryFilters:
    """What to keep of a history; ``None`` keeps everything. ``money`` keeps money sessions
    only (``length`` is then ``None``). Dates are the local days the matches started,
    both included."""

    opponent: Player | None = None
    result: Outcome | None = None
    length: int | None = None
    money: bool = False
    rated: bool | None = None
    since: date | None = None
    until: date | None = None


@dataclass(frozen=True, slots=True)
class HistoryRow:
    match: Match
    opponent: Player
    score: tuple[int, int]  # the player's, the opponent's
    outcome: Outcome
    rating_change: float | None
    tournament_id: int | None
    tournament_name: str | None

    @property
    def finished(self) -> bool:
        return self.match.status != MatchStatus.PLAYING


@dataclass(frozen=True, slots=True)
class HistoryPage:
    rows: list[HistoryRow]
    page: Page[Match]

    @property
    def count(self) -> int:
        return self.page.paginator.count

    @property
    def pages(self) -> int:
        return self.page.paginator.num_pages


_SENTINEL: Final = 918273645


def link_maker(name: str) -> Callable[[int], str]:
    """The URL named ``name`` for any id, reversed once: a page of 100 rows needs 300 links,
    and reversing each one was a fifth of the page's time."""
    head, tail = reverse(name, args=[_SENTINEL]).split(str(_SENTINEL))
    return lambda pk: f"{head}{pk}{tail}"


class PageOutOfRange(ValueError):
    """A page number past the last page of the history (``last`` is the last one)."""

    def __init__(self, number: int, last: int) -> None:
        super().__init__(f"page {number} of {last}")
        self.number = number
        self.last = last


def visible_history(player: Player, viewer: Player | None) -> QuerySet[Match]:
    """Every match of ``player`` that ``viewer`` (``None``: anonymous) may see on the profile:
    public tables' matches, and all the matches the viewer played in."""
    mine = Q(player0=player) | Q(player1=player)
    shown = Q(table__is_public=True)
    if viewer is not None:
        shown |= Q(player0=viewer) | Q(player1=viewer)
    return Match.objects.filter(mine).filter(shown)


def _day_start(day: date) -> datetime:
    return timezone.make_aware(datetime.combine(day, time.min))


def filtered_history(player: Player, viewer: Player | None,
                     filters: HistoryFilters) -> QuerySet[Match]:
    """:func:`visible_history` narrowed by ``filters``, newest first (ties by id)."""
    queryset = visible_history(player, viewer)
    if filters.opponent is not None:
        them = filters.opponent
        queryset = queryset.filter((Q(player0=player) & Q(player1=them))
                                   | (Q(player1=player) & Q(player0=them)))
    over = Q(status__gt=MatchStatus.PLAYING)
    if filters.result is Outcome.WON:
        queryset = queryset.filter(winner=player)
    elif filters.result is Outcome.LOST:
        queryset = queryset.filter(over, winner__isnull=False).exclude(winner=player)
    elif filters.result is Outcome.PLAYING:
        queryset = queryset.filter(status=MatchStatus.PLAYING)
    elif filters.result is Outcome.NONE:
        queryset = queryset.filter(over, winner__isnull=True)
    if filters.money:
        queryset = queryset.filter(match_length__isnull=True)
    elif filters.length is not None:
        queryset = queryset.filter(match_length=filters.length)
    if filters.rated is not None:
        queryset = queryset.filter(rated=filters.rated)
    # Whole local days; the first and last days a date can name have no bound beyond them.
    if filters.since is not None and filters.since > date.min:
        queryset = queryset.filter(started_at__gte=_day_start(filters.since))
    if filters.until is not None and filters.until < date.max:
        queryset = queryset.filter(started_at__lt=_day_start(filters.until + timedelta(days=1)))
    return queryset.order_by("-started_at", "-pk")


def history_page(player: Player, viewer: Player | None, filters: HistoryFilters, *,
                 number: int = 1, size: int = PAGE_SIZE) -> HistoryPage:
    """Page ``number`` (from 1) of ``size`` rows of ``player``'s history as ``viewer`` sees
    it. Three queries whatever the size: the count, the rows with both players and the
    tournament, and the player's rating changes for those rows.

    Raises :class:`PageOutOfRange` for a page past the last (page 1 of an empty history is
    an empty page, not an error).
    """
    queryset = (filtered_history(player, viewer, filters)
                .select_related("player0", "player1", "tournament_pairing__tournament")
                # The engine state is the one large column, and no row needs it.
                .defer("snapshot", "clock", "scripted_dice"))
    paginator = Paginator(queryset, size, allow_empty_first_page=True)
    if number > paginator.num_pages:
        raise PageOutOfRange(number, paginator.num_pages)
    page = paginator.page(number)
    matches: list[Match] = list(page.object_list)
    changes = {record.match_id: record.delta for record in RatingRecord.objects.filter(
        player=player, match__in=[match.pk for match in matches])}
    return HistoryPage([_row(player, match, changes.get(match.pk)) for match in matches], page)


def _row(player: Player, match: Match, rating_change: float | None) -> HistoryRow:
    first = match.player0_id == player.pk
    opponent = match.player1 if first else match.player0
    score = (match.score0, match.score1) if first else (match.score1, match.score0)
    if match.status == MatchStatus.PLAYING:
        outcome = Outcome.PLAYING
    elif match.winner_id is None:
        outcome = Outcome.NONE
    else:
        outcome = Outcome.WON if match.winner_id == player.pk else Outcome.LOST
    # The reverse one-to-one was joined: no query, and no import of the tournaments app.
    pairing = getattr(match, "tournament_pairing", None)
    tournament = pairing.tournament if pairing is not None else None
    return HistoryRow(match=match, opponent=opponent, score=score, outcome=outcome,
                      rating_change=rating_change,
                      tournament_id=tournament.pk if tournament is not None else None,
                      tournament_name=tournament.name if tournament is not None else None)
