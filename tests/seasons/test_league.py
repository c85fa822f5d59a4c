"""A league of 3 divisions × 6 players over two seasons, through the services: each season is
a tournament event of round robins, its matches played at the tables (resigned or
forfeited, the tournaments' test helpers); the standings recomputed here from the stored
results agree with the league's; promotions and relegations are the rules restated here."""

from __future__ import annotations

import random
from collections.abc import Callable
from datetime import timedelta

import pytest
from django.contrib.auth.models import User
from django.utils import timezone

from matches.models import Player
from seasons import services
from seasons.models import Arena, Ladder, League, LeagueSeason
from seasons.services import ArenaError, LadderError, LeagueError
from seasons.services.league import division_list, final_standings
from tests.tournaments.conftest import play_out
from tournaments.models import EntryStatus, PairingStatus, Tournament, TournamentStatus

pytestmark = pytest.mark.django_db

MOVE = 2


@pytest.fixture
def director(db: None) -> User:
    return User.objects.create_user(username="director", password="pw-director",
                                    is_staff=True, is_superuser=True)


def standings_by_hand(division: Tournament) -> list[int]:
    """The round robin's order restated: wins, then wins against the players on the same
    number of wins, then match points difference, then seed. Player ids, best first."""
    entries = {e.pk: e for e in division.entries.exclude(seed__isnull=True)}
    assert len(entries) == 6 and all(e.status == EntryStatus.ACTIVE for e in entries.values())
    wins = dict.fromkeys(entries, 0)
    difference = dict.fromkeys(entries, 0)
    results = []
    for row in division.pairings.all():
        assert row.status == PairingStatus.DECIDED, row  # 6 players: no byes
        results.append((row.winner_id, row.loser_id))
        wins[row.winner_id] += 1
        if row.winner_points is not None and row.loser_points is not None:
            difference[row.winner_id] += row.winner_points - row.loser_points
            difference[row.loser_id] -= row.winner_points - row.loser_points
    assert len(results) == 15  # everyone met everyone once
    head = dict.fromkeys(entries, 0)
    for winner, loser in results:
        if wins[winner] == wins[loser]:
            head[winner] += 1
    order = sorted(entries, key=lambda e: (-wins[e], -head[e], -difference[e],
                                           entries[e].seed))
    return [entries[e].player_id for e in order]


def moves_by_hand(finals: list[list[int]]) -> list[set[int]]:
    """Next season's divisions: the top two of each but the first up, the bottom two of
    each but the last down."""
    nxt: list[set[int]] = [set() for _ in finals]
    for number, division in enumerate(finals):
        for place, player in enumerate(division):
            if number > 0 and place < MOVE:
                nxt[number - 1].add(player)
            elif number < len(finals) - 1 and place >= len(division) - MOVE:
                nxt[number + 1].add(player)
            else:
                nxt[number].add(player)
    return nxt


def members(season: LeagueSeason) -> list[set[int]]:
    return [set(d.entries.filter(status=EntryStatus.ACTIVE).values_list("player_id", flat=True))
            for d in division_list(season)]


def play_season(season: LeagueSeason, rng: random.Random) -> list[list[int]]:
    for division in division_list(season):
        assert division.status == TournamentStatus.RUNNING
        play_out(division, rng)
        division.refresh_from_db()
        assert division.status == TournamentStatus.FINISHED
    finals = final_standings(season)
    assert finals == [standings_by_hand(d) for d in division_list(season)]
    return finals


def test_two_seasons_of_three_divisions(director: User,
                                        make_player: Callable[..., Player]) -> None:
    rng = random.Random(26)
    players = [make_player(f"league{i}", rating=1900 - 20 * i) for i in range(18)]
    league: League = services.league_create(name="Club league", move=MOVE)
    first = services.league_first_season(
        league_id=league.pk, divisions=[players[0:6], players[6:12], players[12:18]],
        actor=director, round_days=7, match_length=1)
    assert members(first) == [{p.pk for p in players[i:i + 6]} for i in (0, 6, 12)]
    for division in division_list(first):
        assert division.no_show_minutes == 7 * 24 * 60
        assert division.rounds.get(number=1).starts_at is not None
    with pytest.raises(LeagueError) as early:
        services.league_next_season(league_id=league.pk, actor=director)
    assert early.value.code == "season_not_finished"
    assert league.seasons.count() == 1

    finals = play_season(first, rng)
    second = services.league_next_season(league_id=league.pk, actor=director,
                                         match_length=1)
    assert second.number == 2
    assert members(second) == moves_by_hand(finals)

    finals = play_season(second, rng)
    newcomer = make_player("newcomer")
    leaver = Player.objects.get(pk=finals[0][0])
    third = services.league_next_season(league_id=league.pk, actor=director,
                                        joining=[newcomer], leaving=[leaver], match_length=1)
    expected = moves_by_hand(finals)
    expected[0].discard(leaver.pk)
    expected[2].add(newcomer.pk)
    assert members(third) == expected
    assert [s.number for s in league.seasons.all()] == [1, 2, 3]


def test_refusals_change_nothing(director: User, make_player: Callable[..., Player]) -> None:
    league = services.league_create(name="Small", move=1)
    a, b, c = (make_player(n) for n in "abc")
    for call, code in (
            (lambda: services.league_create(name=""), "invalid_option"),
            (lambda: services.league_create(name="x", move=-1), "invalid_option"),
            (lambda: services.league_next_season(league_id=league.pk, actor=director),
             "no_season"),
            (lambda: services.league_first_season(league_id=league.pk, divisions=[[a]],
                                                  actor=director), "division_too_small"),
            (lambda: services.league_first_season(league_id=league.pk,
                                                  divisions=[[a, b], [b, c]], actor=director),
             "player_twice"),
            (lambda: services.league_first_season(league_id=league.pk, divisions=[[a, b]],
                                                  actor=director, round_days=0),
             "invalid_option"),
    ):
        tournaments = Tournament.objects.count()
        with pytest.raises(LeagueError) as error:
            call()
        assert error.value.code == code
        assert Tournament.objects.count() == tournaments
        assert not league.seasons.exists()


# -- a league's settings, enrolment and seasons as its pages run them ------------------------


def test_a_correspondence_league_from_enrolment_to_its_second_season(
        director: User, make_player: Callable[..., Player]) -> None:
    rng = random.Random(7)
    league = services.league_create(name="Letters", move=1, divisions=2, division_size=4,
                                    match_length=1, round_days=10, clock_enabled=True,
                                    correspondence_days=2)
    assert league.correspondence_days == 2 and league.clock_enabled
    players = [make_player(f"corr{i}", rating=1800 - 10 * i) for i in range(7)]
    # Out of order on purpose: the draw is by rating, not by enrolment.
    enrolled = services.league_enrol(league_id=league.pk,
                                     usernames=[p.user.username for p in reversed(players)])
    assert {p.pk for p in enrolled} == {p.pk for p in players}
    first = services.league_start_season(league_id=league.pk, actor=director)
    # 7 players in 2 divisions: the stronger one larger.
    assert members(first) == [{p.pk for p in players[:4]}, {p.pk for p in players[4:]}]
    for division in division_list(first):
        assert division.correspondence_days == 2 and division.no_show_minutes == 10 * 24 * 60
        tables = [row.table for row in division.pairings.exclude(table=None)]
        assert tables and all(t.correspondence_days == 2 for t in tables)
    late = make_player("late", rating=2500)
    services.league_enrol(league_id=league.pk, usernames=["LATE"])  # any case finds the user
    # The director withdraws one player: out of the next season; a bad name refuses all.
    quitter = players[1]
    with pytest.raises(LeagueError) as bad:
        services.league_withdraw(league_id=league.pk,
                                 usernames=[quitter.user.username, "stranger"])
    assert bad.value.code == "bad_players" and "stranger" in bad.value.detail
    assert not league.members.filter(left_at__isnull=False).exists()
    services.league_withdraw(league_id=league.pk, usernames=[quitter.user.username])
    with pytest.raises(LeagueError) as early:
        services.league_start_season(league_id=league.pk, actor=director)
    assert early.value.code == "season_not_finished"
    for division in division_list(first):
        play_out(division, rng)
        division.refresh_from_db()
        assert division.status == TournamentStatus.FINISHED
    finals = final_standings(first)
    second = services.league_start_season(league_id=league.pk, actor=director)
    expected = [set(finals[0][:-1]) | {finals[1][0]},
                set(finals[1][1:]) | {finals[0][-1], late.pk}]
    for division in expected:
        division.discard(quitter.pk)
    assert members(second) == expected


def test_enrolment_is_all_or_nothing_and_names_every_bad_name(
        director: User, make_player: Callable[..., Player]) -> None:
    league = services.league_create(name="Small", divisions=1, division_size=3)
    a, b, c, d = (make_player(n) for n in ("ann", "ben", "cat", "dan"))
    services.league_enrol(league_id=league.pk, usernames=["ann"])
    for names, code, words in (
            (["ben", "nobody", "ann", "ghost"], "bad_players",
             ("nobody", "ghost", "ann is enrolled already")),
            ([" ", ""], "invalid_option", ("user name",)),
            (["ben", "cat", "dan"], "league_full", ("3 players",)),
    ):
        with pytest.raises(LeagueError) as error:
            services.league_enrol(league_id=league.pk, usernames=names)
        assert error.value.code == code
        assert all(word in error.value.detail for word in words), error.value.detail
        assert list(league.members.values_list("player__user__username", flat=True)) == ["ann"]
    with pytest.raises(LeagueError) as few:
        services.league_start_season(league_id=league.pk, actor=director)
    assert few.value.code == "too_few_players" and not league.seasons.exists()
    services.league_enrol(league_id=league.pk, usernames=["ben", "ben", "BEN"])
    assert league.members.count() == 2


@pytest.mark.parametrize("bad", [
    {"divisions": 0}, {"divisions": 11}, {"division_size": 1}, {"match_length": 0},
    {"round_days": 22}, {"move": True}, {"correspondence_days": 8},
    {"correspondence_days": 0}, {"correspondence_days": "3"}, {"no_such_rule": 1},
])
def test_a_league_with_a_bad_setting_is_refused(bad: dict[str, object]) -> None:
    with pytest.raises(LeagueError) as error:
        services.league_create(name="Bad", **bad)  # type: ignore[arg-type]
    assert error.value.code == "invalid_option"
    assert not League.objects.exists()


def test_arenas_are_live_and_ladders_take_one_to_seven_days(
        make_player: Callable[..., Player]) -> None:
    now = timezone.now()
    with pytest.raises(ArenaError):
        services.arena_create(name="A", starts_at=now, ends_at=now + timedelta(hours=1),
                              correspondence_days=3)
    assert not Arena.objects.exists()
    for days in (0, 8, True):
        with pytest.raises(LadderError):
            services.ladder_create(name="L", correspondence_days=days)
    assert not Ladder.objects.exists()
    ladder = services.ladder_create(name="L", clock_enabled=True, correspondence_days=5)
    assert ladder.time_control() is not None
    assert ladder.time_control().delay == 5 * 24 * 3600  # type: ignore[union-attr]
    top, challenger = make_player("top"), make_player("challenger")
    for player in (top, challenger):
        services.ladder_join(ladder_id=ladder.pk, player=player)
    challenge = services.ladder_challenge(ladder_id=ladder.pk, challenger=challenger,
                                          defender_id=top.pk)
    accepted = services.ladder_accept(challenge_id=challenge.pk, player=top)
    assert accepted.match is not None
    assert accepted.match.table.correspondence_days == 5  # the ladder's table is by letters
