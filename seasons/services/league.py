"""Season leagues on the tournaments' machinery: a season is a tournament event whose
divisions are round robins (:mod:`tournaments.services.divisions`); the next season's
divisions come from the last one's final standings (the round robin's standings and
tiebreaks, :func:`tournaments.selectors.standings`) by :func:`seasons.formats.league.next_season`.

A season is built the way a director builds an event, through the tournaments' services:
the event and one round robin per division (eligibility "assigned", division 1 the
strongest), registration opened, each player registered and assigned to their division,
then started. Rounds have deadlines by the tournaments' own forfeit rule: a paired player who
has not sat down within ``round_days`` of the pairing loses by forfeit and is withdrawn
(their results stand or are annulled as the round robin says); the first round is called
for the season's start.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Any, cast

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from matches.errors import ServiceError
from matches.models import Player
from seasons.formats.league import LeagueError as FormatLeagueError
from seasons.formats.league import next_season
from seasons.models import League, LeagueSeason
from tournaments import selectors as tournament_selectors
from tournaments import services as tournament_services
from tournaments.models import Tournament, TournamentStatus

#: The longest a round may take: the no-show limit is stored in minutes (at most 32767).
MAX_ROUND_DAYS = 21


class LeagueError(ServiceError):
    """A league change the rules refuse (``code`` says which); nothing changed."""


def league_create(*, name: str, move: int = 1, creator: Player | None = None) -> League:
    name = (name or "").strip()
    if not name:
        raise LeagueError("invalid_option", _("A league needs a name."))
    if not (isinstance(move, int) and 0 <= move <= 10):
        raise LeagueError("invalid_option", _("From 0 to 10 players move up and down."))
    return League.objects.create(name=name[:80], move=move, created_by=creator)


@transaction.atomic
def league_first_season(*, league_id: int, divisions: Sequence[Sequence[Player]], actor: Any,
                        starts_at: datetime | None = None, round_days: int = 7,
                        match_length: int = 3) -> LeagueSeason:
    """Season 1 with these divisions (the first the strongest), started at once."""
    league = _locked(league_id)
    if league.seasons.exists():
        raise LeagueError("already_started", _("This league has its first season."))
    return _create_season(league, 1, [list(d) for d in divisions], actor=actor,
                          starts_at=starts_at, round_days=round_days,
                          match_length=match_length)


@transaction.atomic
def league_next_season(*, league_id: int, actor: Any, joining: Iterable[Player] = (),
                       leaving: Iterable[Player] = (), starts_at: datetime | None = None,
                       round_days: int = 7, match_length: int = 3) -> LeagueSeason:
    """The next season, from the last one's final standings: the top ``move`` of every
    division but the first go up, the bottom ``move`` of every division but the last go
    down; ``leaving`` leave, ``joining`` join the last division. Refused until every
    division of the last season has finished (``season_not_finished``)."""
    league = _locked(league_id)
    last = league.seasons.select_related("event").order_by("-number").first()
    if last is None:
        raise LeagueError("no_season", _("Start the league's first season first."))
    finals = final_standings(last)
    divisions = division_list(last)
    if any(d.status != TournamentStatus.FINISHED for d in divisions):
        raise LeagueError("season_not_finished",
                          _("Every division of the season must have finished."))
    players = {p.pk: p for p in Player.objects.filter(
        pk__in=[p for division in finals for p in division])}
    newcomers = list(joining)
    players.update({p.pk: p for p in newcomers})
    try:
        ids = next_season(finals, league.move, joining=[p.pk for p in newcomers],
                          leaving=[p.pk for p in leaving])
    except FormatLeagueError as error:
        raise LeagueError(error.code, _(error.template) % error.params) from None
    chosen = [[players[cast(int, pk)] for pk in division] for division in ids if division]
    return _create_season(league, last.number + 1, chosen, actor=actor, starts_at=starts_at,
                          round_days=round_days, match_length=match_length)


def division_list(season: LeagueSeason) -> list[Tournament]:
    """The season's divisions, the strongest first."""
    return list(season.event.divisions.order_by("division_order", "pk"))


def final_standings(season: LeagueSeason) -> list[list[int]]:
    """Each division's players (ids) in the order of its standings, best first: the round
    robin's ranks and tiebreaks, unranked players (results annulled) last."""
    return [[line["player_id"] for line in tournament_selectors.standings(division)]
            for division in division_list(season)]


def _create_season(league: League, number: int, divisions: list[list[Player]], *, actor: Any,
                   starts_at: datetime | None, round_days: int,
                   match_length: int) -> LeagueSeason:
    if not divisions or any(len(division) < 2 for division in divisions):
        raise LeagueError("division_too_small", _("Every division needs two players or more."))
    seen = [p.pk for division in divisions for p in division]
    if len(set(seen)) != len(seen):
        raise LeagueError("player_twice", _("A player stands in two divisions."))
    if not (isinstance(round_days, int) and 1 <= round_days <= MAX_ROUND_DAYS):
        raise LeagueError("invalid_option",
                          _("A round lasts 1 to %(max_round_days)s days.")
                          % {"max_round_days": MAX_ROUND_DAYS})
    event = tournament_services.tournament_create_from_template(
        template="round_robin", name=f"{league.name} · {number}", actor=actor,
        match_lengths=[match_length])
    rows = []
    for order, _players in enumerate(divisions, start=1):
        division = tournament_services.tournament_create_from_template(
            template="round_robin", name=f"{league.name} · {number} · {order}", actor=actor,
            match_lengths=[match_length], event=event.pk, eligibility="assigned",
            division_order=order)
        rows.append(division)
    # The round's deadline is the tournaments' no-show rule (no service sets this limit: a
    # director sets it in the admin; the league sets it once, before registration opens).
    Tournament.objects.filter(pk__in=[event.pk, *(d.pk for d in rows)]).update(
        no_show_minutes=round_days * 24 * 60)
    tournament_services.tournament_open_registration(tournament_id=event.pk, actor=actor)
    for division, players in zip(rows, divisions, strict=True):
        for player in players:
            entry = tournament_services.entry_register(tournament_id=event.pk, player=player,
                                                       actor=actor)
            tournament_services.division_assign(entry_id=entry.pk, division_id=division.pk,
                                                actor=actor, reason="league season")
    tournament_services.tournament_start(tournament_id=event.pk, actor=actor)
    start = starts_at or timezone.now()
    for division in rows:
        tournament_services.round_set_start(tournament_id=division.pk, bracket="main",
                                            number=1, starts_at=start, actor=actor)
    return LeagueSeason.objects.create(league=league, number=number, event=event)


def _locked(league_id: int) -> League:
    league = League.objects.select_for_update().filter(pk=league_id).first()
    if league is None:
        raise LeagueError("not_found", _("No such league."))
    return league

