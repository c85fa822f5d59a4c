"""One rights table (:mod:`tournaments.permissions`): the services check it, the admin and
the desk offer exactly what it allows. A referee marks fees paid; nobody is offered an
action the service would refuse them."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.core.management import call_command
from django.test import Client

from tournaments import services
from tournaments.models import Tournament
from tournaments.permissions import RIGHTS, allowed_actions
from tournaments.services import TournamentError

pytestmark = pytest.mark.django_db

ENTRIES = "/admin/tournaments/entry/"


@pytest.fixture
def referee_user(make_player) -> User:
    user = make_player("referee").user
    call_command("make_referee", "referee", stdout=open("/dev/null", "w"))
    return User.objects.get(pk=user.pk)


REFEREE_ACTIONS = {"entry_reinstate", "pairing_enter_result", "pairing_override",
                   "pairing_double_forfeit", "pairing_confirm", "pairing_reject_report",
                   "pairing_set_board", "entry_set_paid", "side_pool_enter"}


def test_the_table_gives_referees_the_results_the_room_and_the_money_desk():
    assert {a for a, role in RIGHTS.items() if role == "referee"} == REFEREE_ACTIONS
    for action in ("pairing_swap", "round_repair", "round_undo", "division_assign",
                   "entry_disqualify", "tournament_start"):
        assert RIGHTS[action] == "director"
    for action in ("player_set_rating", "players_import", "players_export"):
        assert RIGHTS[action] == "club"


def test_allowed_actions_follow_the_role_and_the_stage(make_tournament, director,
                                                       referee_user, make_player):
    registration = make_tournament(4)
    assert "tournament_start" in allowed_actions(director, registration)
    assert "pairing_swap" not in allowed_actions(director, registration)
    assert allowed_actions(referee_user, registration) <= REFEREE_ACTIONS
    running = make_tournament(4, start=True, name="Running", format="swiss",
                              format_options={"rounds": 2})
    directing = allowed_actions(director, running)
    assert {"pairing_swap", "round_repair", "round_undo", "entry_set_paid",
            "player_set_rating"} <= directing
    assert "tournament_start" not in directing
    refereeing = allowed_actions(referee_user, running)
    assert "entry_set_paid" in refereeing and "pairing_override" in refereeing
    assert not refereeing & {"pairing_swap", "round_undo", "division_assign",
                             "entry_disqualify", "player_set_rating"}
    assert allowed_actions(make_player("nobody").user, running) == set()
    knockout = make_tournament(4, start=True, name="KO")
    assert "pairing_swap" in allowed_actions(director, knockout)
    assert not {"round_undo", "round_repair"} & allowed_actions(director, knockout)


def test_what_is_offered_is_what_the_service_does(make_tournament, director, referee_user):
    tournament = make_tournament(4)
    entry = tournament.entries.first()
    assert entry is not None
    # A referee marks the fee paid (offered and done) ...
    assert "entry_set_paid" in allowed_actions(referee_user, tournament)
    services.entry_set_paid(entry_id=entry.pk, paid=True, actor=referee_user)
    entry.refresh_from_db()
    assert entry.paid
    # ... and is not offered a division, which the service refuses.
    event = Tournament.objects.create(name="Event", director=director)
    division = Tournament.objects.create(name="Open", event=event, director=director)
    services.tournament_open_registration(tournament_id=event.pk, actor=director)
    assert "division_assign" not in allowed_actions(referee_user, event)
    assert "division_assign" in allowed_actions(director, event)
    with pytest.raises(TournamentError) as error:
        services.division_assign(entry_id=entry.pk, division_id=division.pk,
                                 actor=referee_user)
    assert error.value.code == "forbidden"


def test_the_admin_offers_a_referee_the_paid_marks_and_not_the_directors_actions(
        make_tournament, referee_user):
    tournament = make_tournament(2)
    client = Client()
    client.force_login(referee_user)
    page = client.get(ENTRIES).content.decode()
    for action in ("mark_paid", "mark_unpaid", "reinstate"):
        assert f'value="{action}"' in page
    for action in ("assign_division", "withdraw", "disqualify"):
        assert f'value="{action}"' not in page
    entry = tournament.entries.first()
    assert entry is not None
    client.post(ENTRIES, {"action": "mark_paid", "_selected_action": [str(entry.pk)]})
    entry.refresh_from_db()
    assert entry.paid
