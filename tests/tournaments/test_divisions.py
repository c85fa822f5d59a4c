"""One event, several divisions, run as a director would: players placed by rating and by
experience, one assigned by the director, each division its own bracket and format, the
event finished when every division is."""

from __future__ import annotations

import random

import pytest
from django.test import Client
from rest_framework.test import APIClient

from tests.tournaments.conftest import play_out
from tournaments import services
from tournaments.models import Entry, Tournament, TournamentStatus

pytestmark = pytest.mark.django_db


def make_event(director) -> tuple[Tournament, dict[str, Tournament]]:
    event = Tournament.objects.create(name="Club Open 2026", director=director)
    common = {"director": director, "event": event, "match_lengths": [1], "is_rated": False,
              "seeding": "rating"}
    divisions = {
        "Open": Tournament.objects.create(name="Open", division_order=1, eligibility="rating",
                                          min_rating=1700, format="single_elimination",
                                          **common),
        "Intermediate": Tournament.objects.create(
            name="Intermediate", division_order=2, eligibility="rating", min_rating=1500,
            max_rating=1700, format="swiss", format_options={"rounds": 2}, **common),
        "Novice": Tournament.objects.create(
            name="Novice", division_order=3, eligibility="experience", max_experience=30,
            format="round_robin", **common),
        "Guests": Tournament.objects.create(name="Guests", division_order=4,
                                            eligibility="assigned", **common),
    }
    return event, divisions


def expected_division(player) -> str | None:
    """The rules, restated: Open 1700+, Intermediate 1500 to under 1700, Novice under 30
    points of experience; nobody else is placed by themselves."""
    if player.rating >= 1700:
        return "Open"
    if player.rating >= 1500:
        return "Intermediate"
    if player.experience < 30:
        return "Novice"
    return None


def test_a_whole_event_with_divisions(director, make_player):
    event, divisions = make_event(director)
    services.tournament_open_registration(tournament_id=event.pk, actor=director)
    assert all(d.status == TournamentStatus.DRAFT for d in divisions.values())
    for division in divisions.values():
        division.refresh_from_db()
        assert division.status == TournamentStatus.REGISTRATION

    players = [make_player(f"open{i}", rating=1750 + 30 * i) for i in range(5)]
    players += [make_player(f"mid{i}", rating=1520 + 40 * i) for i in range(4)]
    players += [make_player(f"new{i}", rating=1300 + 30 * i) for i in range(3)]
    veteran = make_player("veteran", rating=1200)
    veteran.experience = 400
    veteran.save()
    for player in [*players, veteran]:
        services.entry_register(tournament_id=event.pk, player=player)
    for player in players:
        entry = Entry.objects.select_related("tournament").get(player=player)
        assert entry.tournament.name == expected_division(player), player
    # The veteran is eligible for no division by rating or experience: waiting in the event.
    waiting = Entry.objects.get(player=veteran)
    assert waiting.tournament_id == event.pk and expected_division(veteran) is None

    # Registering again, or straight into a division one is not eligible for, is refused.
    with pytest.raises(services.TournamentError) as error:
        services.entry_register(tournament_id=event.pk, player=players[0])
    assert error.value.code == "already_registered"
    stranger = make_player("stranger", rating=1600)
    with pytest.raises(services.TournamentError) as error:
        services.entry_register(tournament_id=divisions["Open"].pk, player=stranger)
    assert error.value.code == "not_eligible"
    assert not Entry.objects.filter(player=stranger).exists()

    # The director's assignment: the veteran plays with the novices.
    with pytest.raises(services.TournamentError):
        services.division_assign(entry_id=waiting.pk, division_id=divisions["Novice"].pk,
                                 actor=players[0].user)
    services.division_assign(entry_id=waiting.pk, division_id=divisions["Novice"].pk,
                             actor=director, reason="plays socially")
    waiting.refresh_from_db()
    assert waiting.tournament_id == divisions["Novice"].pk

    # A player sees their division on the event page.
    client = Client()
    client.force_login(players[6].user)
    page = client.get(f"/tournaments/{event.pk}/").content.decode()
    assert "You play in the Intermediate division." in page
    assert "rating 1500 to under 1700" in page and "experience under 30" in page

    services.tournament_start(tournament_id=event.pk, actor=director)
    event.refresh_from_db()
    assert event.status == TournamentStatus.RUNNING
    members = {name: set(d.entries.values_list("player_id", flat=True))
               for name, d in divisions.items()}
    assert members["Open"] == {p.pk for p in players[:5]}
    assert members["Intermediate"] == {p.pk for p in players[5:9]}
    assert members["Novice"] == {p.pk for p in players[9:]} | {veteran.pk}
    assert not members["Guests"]
    guests = divisions["Guests"]
    guests.refresh_from_db()
    assert guests.status == TournamentStatus.REGISTRATION  # nobody: not started

    for name in ("Open", "Intermediate", "Novice"):
        division = divisions[name]
        play_out(division, random.Random(name))
        division.refresh_from_db()
        assert division.status == TournamentStatus.FINISHED
        # Every match of a division is between two of its own players.
        for row in division.pairings.select_related("entry_a", "entry_b"):
            for entry in row.entries():
                assert entry.player_id in members[name]
        assert division.champion.player_id in members[name]
        event.refresh_from_db()
        assert (event.status == TournamentStatus.FINISHED) == (name == "Novice")
    novice = divisions["Novice"]
    assert novice.pairings.count() == 6  # four players, everyone meets everyone

    api = APIClient().get(f"/api/tournaments/{event.pk}/").json()
    assert [d["name"] for d in api["divisions"]] == ["Open", "Intermediate", "Novice", "Guests"]
    assert api["entries"] == 13 and [d["entries"] for d in api["divisions"]] == [5, 4, 4, 0]
    entries = APIClient().get(f"/api/tournaments/{event.pk}/entries/").json()
    assert {e["name"]: e["division"] for e in entries}["veteran"] == "Novice"
    assert APIClient().get(f"/api/tournaments/{divisions['Open'].pk}/").json()["event"] \
        == event.pk
