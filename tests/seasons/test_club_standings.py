"""The club's standings over a season on the home page: rating change, matches, wins,
average PR and the most active, counted for the quarter only, people at public tables only."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

import pytest
from django.test import Client
from django.utils import timezone

from matches.models import AnalysisStatus, Match, MatchAnalysis, MatchStatus, Player, RatingRecord
from seasons.standings import club_season, quarter_of
from tests.matches.conftest import start_match  # noqa: F401 - the fixture

pytestmark = pytest.mark.django_db


def finished(match: Match, winner: Player, when: datetime) -> Match:
    # The matches are made by the services; only their end is moved into the quarter wanted,
    # with a queryset update (the one door refuses a Match save outside the services).
    Match.objects.filter(pk=match.pk).update(status=MatchStatus.FINISHED, winner=winner,
                                             finished_at=when)
    match.refresh_from_db()
    return match


def test_quarters_start_and_end_where_the_calendar_says() -> None:
    tz = timezone.get_current_timezone()
    since, until, number = quarter_of(datetime(2026, 12, 3, 12, tzinfo=tz))
    assert (since.month, since.day, until.year, until.month, number) == (10, 1, 2027, 1, 4)
    since, until, number = quarter_of(datetime(2026, 2, 28, tzinfo=tz))
    assert (since.month, until.month, number) == (1, 4, 1)


def test_the_season_counts_its_quarter_people_and_public_tables_only(
        make_player: Callable[..., Player], start_match: Callable[..., Match],  # noqa: F811
        client: Client) -> None:
    now = timezone.now()
    since, _until, _n = quarter_of(now)
    ana, bert, cem, bot = (make_player(name) for name in ("ana", "bert", "cem", "botty"))
    Player.objects.filter(pk=bot.pk).update(is_bot=True)
    inside = since + timedelta(hours=1)
    m1 = finished(start_match(players=(ana, bert)), ana, inside)
    m2 = finished(start_match(players=(ana, cem)), ana, inside)
    finished(start_match(players=(bert, cem)), cem, inside)
    finished(start_match(players=(ana, bert)), bert, since - timedelta(hours=1))  # last quarter
    finished(start_match(players=(ana, bert), is_public=False), bert, inside)  # private
    Match.objects.filter(pk=finished(start_match(players=(cem, bot)), cem, inside).pk).update(
        has_bot=True)
    for player, before, after in ((ana, 1500, 1520), (bert, 1500, 1490), (ana, 1520, 1530)):
        record = RatingRecord.objects.create(player=player, before=before, after=after)
        RatingRecord.objects.filter(pk=record.pk).update(created_at=inside)
    MatchAnalysis.objects.create(match=m1, status=AnalysisStatus.DONE, pr0=4.0, pr1=8.0)
    MatchAnalysis.objects.create(match=m2, status=AnalysisStatus.DONE, pr0=6.0, pr1=2.0)

    season = club_season(now)
    got: dict[str, Any] = {line.player.display_name: (line.played, line.wins,
                                                      line.rating_change, line.average_pr)
                           for line in season.lines}
    assert got == {"ana": (2, 2, 30.0, 5.0), "bert": (2, 0, -10.0, 8.0),
                   "cem": (2, 1, 0.0, 2.0)}
    assert [line.player.display_name for line in season.lines] == ["ana", "cem", "bert"]
    assert "botty" not in got

    page = client.get("/").content.decode()
    assert "This season" in page and "Most active" in page
    assert page.index(">ana<") < page.index(">cem<") < page.index(">bert<")
