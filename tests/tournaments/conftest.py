"""Factories for tournament tests: players, tournaments, and matches played out quickly
through the real match-play services (sit down, then resign or forfeit)."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import pytest
from django.contrib.auth.models import Group, User

from matches import services as match_services
from matches.models import Match, MatchStatus, Player
from tournaments import services
from tournaments.models import Entry, Pairing, PairingStatus, Tournament, TournamentStatus


@pytest.fixture
def director(make_player: Callable[..., Player]) -> User:
    user = User.objects.create_user(username="director", password="pw-director",
                                    is_staff=True, is_superuser=True)
    return user


@pytest.fixture
def referee(db: None) -> User:
    """A referee as ``manage.py make_referee`` makes one: staff, in the Referees group."""
    user = User.objects.create_user(username="referee", password="pw-referee", is_staff=True)
    user.groups.add(Group.objects.get(name="Referees"))
    return user


@pytest.fixture
def make_tournament(make_player: Callable[..., Player], director: User
                    ) -> Callable[..., Tournament]:
    """A tournament in registration with ``players`` registered (a number or a list)."""

    def make(players: int | list[Player] = 4, *, start: bool = False,
             **fields: Any) -> Tournament:
        fields.setdefault("name", "Test cup")
        fields.setdefault("match_lengths", [1])
        fields.setdefault("is_rated", False)
        fields.setdefault("seeding", "rating")
        tournament = Tournament.objects.create(director=director, **fields)
        services.tournament_open_registration(tournament_id=tournament.pk, actor=director)
        field = players if isinstance(players, list) else [
            make_player(rating=2000 - i) for i in range(players)
        ]
        for player in field:
            services.entry_register(tournament_id=tournament.pk, player=player)
        if start:
            services.tournament_start(tournament_id=tournament.pk, actor=director)
        tournament.refresh_from_db()
        return tournament

    return make


def open_pairings(tournament: Tournament) -> list[Pairing]:
    return list(tournament.pairings.filter(status=PairingStatus.PAIRED)
                .select_related("entry_a__player", "entry_b__player").order_by("order"))


def play_match(pairing: Pairing, loser: Entry, *, how: str = "resign") -> Match:
    """Both players sit at the pairing's table; then ``loser`` resigns (a 1-point match
    ends) or forfeits. Returns the finished match."""
    assert pairing.table_id is not None and pairing.entry_a and pairing.entry_b
    for entry in (pairing.entry_a, pairing.entry_b):
        match_services.table_sit(table_id=pairing.table_id, player=entry.player)
    match = Match.objects.filter(table_id=pairing.table_id).latest("pk")
    for _ in range(200):
        if match.status != MatchStatus.PLAYING:
            break
        if how == "forfeit":
            match_services.match_forfeit(match_id=match.pk, loser=loser.player, reason="test")
        else:
            match_services.match_act(match_id=match.pk, player=loser.player, action="resign",
                                     expected_version=match.version)
            match.refresh_from_db()
            if match.snapshot.get("resign_offer"):  # an "offer" table: the winner accepts
                winner = pairing.entry_a if loser == pairing.entry_b else pairing.entry_b
                match_services.match_act(match_id=match.pk, player=winner.player,
                                         action="accept_resign", expected_version=match.version)
        match.refresh_from_db()
    assert match.status >= MatchStatus.FINISHED
    return match


def play_out(tournament: Tournament, rng: random.Random | None = None, *,
             max_matches: int = 10_000, upsets: bool = True) -> int:
    """Play every open pairing until the tournament finishes; the better seed wins unless
    ``rng`` says otherwise. Returns the number of matches played."""
    played = 0
    while played < max_matches:
        tournament.refresh_from_db()
        if tournament.status == TournamentStatus.FINISHED:
            return played
        rows = open_pairings(tournament)
        assert rows, f"{tournament} is stuck: nothing to play, not finished"
        for row in rows:
            assert row.entry_a and row.entry_b
            better, worse = sorted((row.entry_a, row.entry_b), key=lambda e: e.seed or 0)
            loser = better if rng is not None and upsets and rng.random() < 0.3 else worse
            play_match(row, loser, how="forfeit" if rng and rng.random() < 0.2 else "resign")
            played += 1
    raise AssertionError("too many matches")
