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

from django.contrib.auth import get_user_model
from django.db import transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext as _

from matches.errors import ServiceError
from matches.models import Player
from matches.players.accounts import player_for_user
from matches.rules import rule_names
from seasons.formats.league import LeagueError as FormatLeagueError
from seasons.formats.league import next_season
from seasons.models import League, LeagueMember, LeagueSeason
from seasons.services.tables import correspondence_refusal
from tournaments import selectors as tournament_selectors
from tournaments import services as tournament_services
from tournaments.models import Entry, Tournament, TournamentStatus

#: The longest a round may take: the no-show limit is stored in minutes (at most 32767).
MAX_ROUND_DAYS = 21


class LeagueError(ServiceError):
    """A league change the rules refuse (``code`` says which); nothing changed."""


#: Each setting of a league, with its smallest and largest value.
LIMITS = {"move": (0, 10), "divisions": (1, 10), "division_size": (2, 32),
          "match_length": (1, 25), "round_days": (1, MAX_ROUND_DAYS)}


def _whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def league_create(*, name: str, move: int = 1, creator: Player | None = None,
                  divisions: int = 1, division_size: int = 8, match_length: int = 3,
                  round_days: int = 7, **table_rules: Any) -> League:
    """A new league, no season yet: ``divisions`` divisions of at most ``division_size``
    players for the first season, matches to ``match_length``, ``round_days`` per round, the
    tables' rules ``table_rules`` (a tournament template's: a live clock, or
    ``correspondence_days`` 1 to 7)."""
    unknown = set(table_rules) - set(rule_names(template=True))
    if unknown:
        raise LeagueError("invalid_option", _("Unknown league options: %(names)s.")
                          % {"names": ", ".join(sorted(unknown))})
    name = (name or "").strip()
    if not name:
        raise LeagueError("invalid_option", _("A league needs a name."))
    settings = {"move": move, "divisions": divisions, "division_size": division_size,
                "match_length": match_length, "round_days": round_days}
    for field, value in settings.items():
        low, high = LIMITS[field]
        if not (_whole(value) and low <= value <= high):
            raise LeagueError("invalid_option", _("%(field)s must be from %(low)s to %(high)s.")
                              % {"field": field, "low": low, "high": high})
    refusal = correspondence_refusal(table_rules)
    if refusal is not None:
        raise LeagueError("invalid_option", refusal)
    if table_rules.get("correspondence_days") is not None:
        table_rules["clock_enabled"] = True  # the days are the clock's
    league = League(name=name[:80], created_by=creator, **settings, **table_rules)
    league.full_clean()
    league.save()
    return league


@transaction.atomic
def league_enrol(*, league_id: int, usernames: Iterable[str]) -> list[Player]:
    """Enrol the players of these user names: drawn into the first season, or joining the
    last division of the next one. All or nothing: one unknown name, one player enrolled
    already, or (before the first season) more players than the divisions hold, and nobody
    is enrolled; the error names every bad name."""
    league = _locked(league_id)
    names = _names(usernames)
    users = {u.username.lower(): u for u in get_user_model().objects.filter(
        username__in=names)}
    for name in names:  # a name typed in another case still finds its user
        if name.lower() not in users:
            user = get_user_model().objects.filter(username__iexact=name).first()
            if user is not None:
                users[name.lower()] = user
    enrolled = set(league.members.filter(left_at__isnull=True)
                   .values_list("player__user_id", flat=True))
    problems = []
    for name in names:
        user = users.get(name.lower())
        if user is None or not user.is_active:
            problems.append(_("No player has the user name %(name)s.") % {"name": name})
        elif user.pk in enrolled:
            problems.append(_("%(name)s is enrolled already.") % {"name": name})
    if problems:
        raise LeagueError("bad_players", " ".join(problems))
    room = league.divisions * league.division_size
    if not league.seasons.exists() and len(enrolled) + len(names) > room:
        raise LeagueError("league_full",
                          _("The first season's divisions hold %(room)s players; "
                            "%(count)s are enrolled.") % {"room": room, "count": len(enrolled)})
    players = [player_for_user(users[name.lower()]) for name in names]
    for player in players:
        # Back after a withdrawal: enrolled again, from now.
        LeagueMember.objects.update_or_create(
            league=league, player=player,
            defaults={"enrolled_at": timezone.now(), "left_at": None})
    return players


@transaction.atomic
def league_withdraw(*, league_id: int, usernames: Iterable[str]) -> list[Player]:
    """Withdraw enrolled players: out of the next season (and of the first, before it is
    drawn); their games in the current season stand. All or nothing: a name of no enrolled
    player refuses them all, the error naming each."""
    league = _locked(league_id)
    names = _names(usernames)
    members = {m.player.user.username.lower(): m for m in league.members.filter(
        left_at__isnull=True, player__user__isnull=False).select_related("player__user")}
    problems = [_("%(name)s is not enrolled in this league.") % {"name": name}
                for name in names if name.lower() not in members]
    if problems:
        raise LeagueError("bad_players", " ".join(problems))
    chosen = [members[name.lower()] for name in names]
    LeagueMember.objects.filter(pk__in=[m.pk for m in chosen]).update(left_at=timezone.now())
    return [m.player for m in chosen]


def _names(usernames: Iterable[str]) -> list[str]:
    """The user names given, without blanks and repeats (in any case)."""
    names: list[str] = []
    for raw in usernames:
        name = (raw or "").strip()
        if name and name.lower() not in {n.lower() for n in names}:
            names.append(name)
    if not names:
        raise LeagueError("invalid_option", _("Give the user name of a player."))
    return names


@transaction.atomic
def league_start_season(*, league_id: int, actor: Any,
                        starts_at: datetime | None = None) -> LeagueSeason:
    """The next season with the league's settings: the first draws the enrolled players
    into the league's divisions by rating (the best in division 1; the divisions as even
    as can be, the stronger ones one player larger); a later one closes the last season
    (:func:`league_next_season`: promotion and relegation) with the players enrolled since
    joining the last division and the players withdrawn leaving."""
    league = _locked(league_id)
    last = league.seasons.order_by("-number").first()
    members = list(Player.objects.filter(league_members__league=league,
                                         league_members__left_at__isnull=True)
                   .order_by("-rating", "league_members__enrolled_at", "pk"))
    if last is None:
        count = league.divisions
        if len(members) < 2 * count:
            raise LeagueError("too_few_players",
                              _("%(count)s divisions need at least %(least)s players; "
                                "%(enrolled)s are enrolled.")
                              % {"count": count, "least": 2 * count,
                                 "enrolled": len(members)})
        size, extra = divmod(len(members), count)
        divisions, at = [], 0
        for number in range(count):
            take = size + (1 if number < extra else 0)
            divisions.append(members[at:at + take])
            at += take
        return league_first_season(league_id=league.pk, divisions=divisions, actor=actor,
                                   starts_at=starts_at)
    played = season_players(last)
    ranked = {pk for division in final_standings(last) for pk in division}
    withdrawn = Player.objects.filter(league_members__league=league,
                                      league_members__left_at__isnull=False, pk__in=ranked)
    return league_next_season(league_id=league.pk, actor=actor, starts_at=starts_at,
                              joining=[p for p in members if p.pk not in played],
                              leaving=list(withdrawn))


@transaction.atomic
def league_first_season(*, league_id: int, divisions: Sequence[Sequence[Player]], actor: Any,
                        starts_at: datetime | None = None, round_days: int | None = None,
                        match_length: int | None = None) -> LeagueSeason:
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
                       round_days: int | None = None,
                       match_length: int | None = None) -> LeagueSeason:
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


def season_players(season: LeagueSeason) -> set[int]:
    """Every player (id) of the season: registered on its event or in one of its divisions,
    withdrawn or not."""
    return set(Entry.objects.filter(Q(tournament=season.event_id)
                                    | Q(tournament__event=season.event_id))
               .values_list("player_id", flat=True))


def division_list(season: LeagueSeason) -> list[Tournament]:
    """The season's divisions, the strongest first."""
    return list(season.event.divisions.order_by("division_order", "pk"))


def final_standings(season: LeagueSeason) -> list[list[int]]:
    """Each division's players (ids) in the order of its standings, best first: the round
    robin's ranks and tiebreaks, unranked players (results annulled) last."""
    return [[line["player_id"] for line in tournament_selectors.standings(division)]
            for division in division_list(season)]


def _create_season(league: League, number: int, divisions: list[list[Player]], *, actor: Any,
                   starts_at: datetime | None, round_days: int | None,
                   match_length: int | None) -> LeagueSeason:
    """The season's event and divisions; ``round_days`` and ``match_length`` are the league's
    unless given."""
    round_days = league.round_days if round_days is None else round_days
    match_length = league.match_length if match_length is None else match_length
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
    # The round's deadline is the tournaments' no-show rule, and the tables' rules are the
    # league's (no tournaments service sets either: a director sets them in the admin; the
    # league sets them once, before registration opens).
    Tournament.objects.filter(pk__in=[event.pk, *(d.pk for d in rows)]).update(
        no_show_minutes=round_days * 24 * 60, **league.rule_values())
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

