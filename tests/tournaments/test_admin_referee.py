"""A referee (``manage.py make_referee``: staff in the Referees group) in charge of a
tournament through the admin: enter a result, correct a confirmed one, record a double
forfeit, reinstate a player, each with a reason in the log. Staff status alone grants
nothing."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.core.management import call_command
from django.test import Client

from tests.tournaments.conftest import open_pairings
from tournaments import services
from tournaments.models import EntryStatus, PairingStatus, ResultSource, TournamentStatus

pytestmark = pytest.mark.django_db

PAIRINGS = "/admin/tournaments/pairing/"
ENTRIES = "/admin/tournaments/entry/"


def act(client: Client, url: str, action: str, *pks: int, **extra: str):
    return client.post(url, {"action": action, "_selected_action": [str(pk) for pk in pks],
                             **extra}, follow=True)


@pytest.fixture
def referee_client(make_player) -> tuple[Client, User]:
    user = make_player("referee").user
    call_command("make_referee", "referee", stdout=open("/dev/null", "w"))
    client = Client()
    client.force_login(user)
    return client, user


def test_a_referee_sees_the_tournament_pages(make_tournament, referee_client):
    client, _user = referee_client
    tournament = make_tournament(4, start=True, over_the_board=True)
    for url in ("/admin/tournaments/tournament/",
                f"/admin/tournaments/tournament/{tournament.pk}/change/", ENTRIES, PAIRINGS,
                "/admin/tournaments/tournamentlog/"):
        assert client.get(url).status_code == 200, url
    page = client.get(PAIRINGS).content.decode()
    for action in ("override_result", "double_forfeit"):
        assert f'value="{action}"' in page
    assert 'value="reinstate"' in client.get(ENTRIES).content.decode()
    # The director's actions are not a referee's.
    assert 'value="start"' not in client.get("/admin/tournaments/tournament/").content.decode()


def test_staff_status_alone_grants_nothing(make_tournament, make_player):
    tournament = make_tournament(2, start=True, over_the_board=True)
    staff = User.objects.create_user("staff", password="pw", is_staff=True)
    client = Client()
    client.force_login(staff)
    assert client.get(PAIRINGS).status_code == 403
    (row,) = open_pairings(tournament)
    act(client, PAIRINGS, "override_result", row.pk, apply="1",
        winner=str(row.entry_a_id), reason="I am staff")
    row.refresh_from_db()
    assert row.status == PairingStatus.PAIRED


def test_a_referee_corrects_a_confirmed_result_in_the_admin(make_tournament, referee_client):
    client, referee = referee_client
    tournament = make_tournament(4, start=True, over_the_board=True, match_lengths=[3])
    first, second = open_pairings(tournament)  # seeds 1v4, 2v3
    # The players report and confirm: seed 4 "won" 3-1.
    services.pairing_report(pairing_id=first.pk, user=first.entry_b.player.user,
                            winner_entry_id=first.entry_b_id, winner_points=3, loser_points=1)
    services.pairing_confirm(pairing_id=first.pk, user=first.entry_a.player.user)
    first.refresh_from_db()
    assert (first.status, first.winner_id, first.result_source) == (
        PairingStatus.DECIDED, first.entry_b_id, ResultSource.REPORT)

    # The referee enters the other match's result from the score card.
    form = act(client, PAIRINGS, "override_result", second.pk)
    assert 'name="reason"' in form.content.decode()
    bad = act(client, PAIRINGS, "override_result", second.pk, apply="1",
              winner=str(second.entry_a_id), winner_points="2", loser_points="1",
              reason="score card")
    assert "cannot end a 3-point match" in bad.content.decode()
    second.refresh_from_db()
    assert second.status == PairingStatus.PAIRED
    act(client, PAIRINGS, "override_result", second.pk, apply="1",
        winner=str(second.entry_a_id), winner_points="3", loser_points="0",
        reason="score card signed by both")
    second.refresh_from_db()
    assert (second.winner_id, second.result_source) == (second.entry_a_id, ResultSource.REFEREE)
    final = tournament.pairings.get(slot="M2-1")
    assert {final.entry_a_id, final.entry_b_id} == {first.entry_b_id, second.entry_a_id}

    # The score card of the first match shows seed 1 won: the referee corrects it; the
    # final, where nobody has played yet, is paired again with the right player.
    done = act(client, PAIRINGS, "override_result", first.pk, apply="1",
               winner=str(first.entry_a_id), winner_points="3", loser_points="2",
               reason="wrong winner confirmed: the score card says 3-2 to A")
    assert "Result corrected" in done.content.decode()
    first.refresh_from_db()
    assert (first.winner_id, first.winner_points, first.loser_points, first.result_source) == (
        first.entry_a_id, 3, 2, ResultSource.OVERRIDE)
    final.refresh_from_db()
    assert {final.entry_a_id, final.entry_b_id} == {first.entry_a_id, second.entry_a_id}
    log = tournament.log.filter(action="result", pairing=first).latest("pk")
    assert log.actor == referee and "score card says 3-2" in log.reason
    assert log.data["previous_winner_entry"] == first.entry_b_id


def test_a_referee_records_a_double_forfeit_and_reinstates_in_the_admin(
        make_tournament, referee_client):
    client, referee = referee_client
    tournament = make_tournament(4, start=True, format="swiss", format_options={"rounds": 2},
                                 over_the_board=True)
    first, second = open_pairings(tournament)
    no_reason = act(client, PAIRINGS, "double_forfeit", first.pk, apply="1", reason="")
    assert "This field is required" in no_reason.content.decode()
    act(client, PAIRINGS, "double_forfeit", first.pk, apply="1",
        reason="neither came to board 1")
    first.refresh_from_db()
    assert (first.status, first.result_source) == (PairingStatus.DECIDED,
                                                  ResultSource.DOUBLE_FORFEIT)
    log = tournament.log.get(action="result", pairing=first)
    assert log.actor == referee and log.reason == "neither came to board 1"
    # A double forfeit recorded by a referee does not withdraw anyone by itself; a player
    # who is out is reinstated from the entries page.
    entry = first.entry_a
    services.entry_withdraw(entry_id=entry.pk, actor=entry.player.user, reason="went home")
    act(client, ENTRIES, "reinstate", entry.pk, apply="1", reason="came back before round 2")
    entry.refresh_from_db()
    assert entry.status == EntryStatus.ACTIVE
    reinstated = tournament.log.get(action="reinstated")
    assert reinstated.actor == referee and reinstated.reason == "came back before round 2"
    tournament.refresh_from_db()
    assert tournament.status == TournamentStatus.RUNNING
