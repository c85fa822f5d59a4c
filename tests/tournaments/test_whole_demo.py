"""The demo tournament that ``make run`` opens with: a director can start it and the demo
players can play it to the end."""

from __future__ import annotations

import pytest
from django.core.management import call_command

from tests.tournaments.conftest import play_out
from tournaments import services
from tournaments.demo import DEMO_TOURNAMENT
from tournaments.models import Tournament, TournamentStatus

pytestmark = pytest.mark.django_db


def test_seed_demo_creates_one_tournament_in_registration_and_runs_again_harmlessly(settings):
    settings.DEBUG = True
    for _run in range(2):  # the first run must enter everyone; the second changes nothing
        call_command("seed_demo")
        tournament = Tournament.objects.get(name=DEMO_TOURNAMENT)
        assert tournament.status == TournamentStatus.REGISTRATION
        names = sorted(e.player.user.username for e in tournament.entries.all())
        assert names == ["alice", "bob", "carol", "dave"]
    assert tournament.director is not None and tournament.director.username == "admin"

    services.tournament_start(tournament_id=tournament.pk, actor=tournament.director)
    assert play_out(tournament) == 3
    tournament.refresh_from_db()
    assert tournament.status == TournamentStatus.FINISHED
    final = tournament.pairings.get(slot="M2-1")
    assert final.round.match_length == 3 and final.match is not None
    call_command("seed_demo")  # a finished demo tournament is left alone
    assert Tournament.objects.filter(name=DEMO_TOURNAMENT).count() == 1
