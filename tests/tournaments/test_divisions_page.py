"""The event page of an event with divisions: each division with its format by name (in
the reader's language), its players, status, champion and a link to its standings — no raw
format keys, no empty "0 players" table of the event itself."""

from __future__ import annotations

import pytest
from django.test import Client
from django.utils import translation

from tests.tournaments.conftest import play_out
from tournaments import services
from tournaments.models import Tournament, TournamentStatus

pytestmark = pytest.mark.django_db


def finished_event(director, make_player) -> tuple[Tournament, list[Tournament]]:
    event = Tournament.objects.create(name="Club day", director=director)
    common = {"director": director, "event": event, "match_lengths": [1], "is_rated": False,
              "seeding": "rating"}
    divisions = [
        Tournament.objects.create(name="Open", division_order=1, eligibility="rating",
                                  min_rating=1700, format="single_elimination", **common),
        Tournament.objects.create(name="Rest", division_order=2, format="swiss_cut",
                                  format_options={"rounds": 2, "cut": 2}, **common),
    ]
    services.tournament_open_registration(tournament_id=event.pk, actor=director)
    for i in range(4):
        services.entry_register(tournament_id=event.pk,
                                player=make_player(f"strong{i}", rating=1800 + i))
        services.entry_register(tournament_id=event.pk,
                                player=make_player(f"weak{i}", rating=1400 + i))
    services.tournament_start(tournament_id=event.pk, actor=director)
    for division in divisions:
        play_out(division)
        division.refresh_from_db()
    event.refresh_from_db()
    assert event.status == TournamentStatus.FINISHED
    return event, divisions


def test_the_event_page_lists_divisions_with_champions_and_standings(director, make_player):
    event, divisions = finished_event(director, make_player)
    client = Client()
    for path in (f"/tournaments/{event.pk}/", f"/tournaments/{event.pk}/results/"):
        page = client.get(path).content.decode()
        for division in divisions:
            assert division.champion is not None
            assert f'href="/tournaments/{division.pk}/results/#standings"' in page
            assert division.champion.player.display_name in page
        assert "Single elimination" in page and "Swiss, then a knockout" in page
        assert "single_elimination" not in page and "swiss_cut" not in page
        assert "0 players" not in page and "Nobody has registered yet" not in page
    with translation.override("fa"):
        page = client.get(f"/tournaments/{event.pk}/", HTTP_ACCEPT_LANGUAGE="fa").content.decode()
    assert "Single elimination" not in page
    standings = client.get(f"/tournaments/{divisions[0].pk}/results/").content.decode()
    assert 'id="standings"' in standings


def test_the_api_gives_each_division_its_format_name_and_champion(director, make_player):
    event, divisions = finished_event(director, make_player)
    data = Client().get(f"/api/tournaments/{event.pk}/").json()
    by_name = {d["name"]: d for d in data["divisions"]}
    assert by_name["Open"]["format_label"] == "Single elimination"
    assert by_name["Open"]["players"] == 4
    assert by_name["Open"]["champion"]["id"] == divisions[0].champion_id
    assert by_name["Rest"]["champion"]["id"] == divisions[1].champion_id
