"""A director creates, configures, starts and runs a tournament through the admin pages."""

from __future__ import annotations

import pytest
from django.test import Client

from tests.tournaments.conftest import open_pairings, play_match
from tournaments.models import (
    EntryStatus,
    PairingStatus,
    ResultSource,
    Tournament,
    TournamentStatus,
)

pytestmark = pytest.mark.django_db

CHANGELIST = "/admin/tournaments/tournament/"


def management(prefix: str, total: int = 0) -> dict[str, str]:
    return {f"{prefix}-TOTAL_FORMS": str(total), f"{prefix}-INITIAL_FORMS": "0",
            f"{prefix}-MIN_NUM_FORMS": "0", f"{prefix}-MAX_NUM_FORMS": "1000"}


def tournament_form(director, players, **changes) -> dict[str, str]:
    data = {
        "name": "Thursday Swiss", "description": "", "director": str(director.pk),
        "format": "swiss", "format_options": '{"rounds": 2}', "seeding": "rating",
        "max_entries": "", "match_lengths": "[1, 3]", "no_show_minutes": "20",
        "late_penalty_points": "0", "late_penalty_minutes": "5",
        "is_public": "on", "cube_enabled": "on", "gammons_enabled": "on", "crawford": "on",
        "clock_enabled": "on", "clock_delay": "8", "clock_reserve_seconds": "0",
        "clock_reserve_per_point": "90", "grace_seconds": "60", "flag_penalty": "match",
        "resignation": "offer",
        **management("entries", len(players)), **management("rounds"), **management("log"),
        **management("side_pools"),
    }
    for index, player in enumerate(players):
        data[f"entries-{index}-player"] = str(player.pk)
        data[f"entries-{index}-seed"] = ""
    data.update(changes)
    return data


def act(client: Client, url: str, action: str, *pks: int, **extra: str):
    return client.post(url, {"action": action, "_selected_action": [str(pk) for pk in pks],
                             **extra}, follow=True)


def test_a_director_runs_a_tournament_from_the_admin(client, director, make_player):
    client.force_login(director)
    players = [make_player(rating=1600 + 10 * i) for i in range(5)]
    assert client.get(f"{CHANGELIST}add/").status_code == 200

    # A format option the format does not know is refused, with the format's own words.
    bad = client.post(f"{CHANGELIST}add/", tournament_form(
        director, players, format_options='{"rounds": 2, "colour": 1}'))
    assert bad.status_code == 200 and "Unknown option colour" in bad.content.decode()
    assert not Tournament.objects.exists()

    response = client.post(f"{CHANGELIST}add/", tournament_form(director, players))
    assert response.status_code == 302, response.content.decode()[:3000]
    tournament = Tournament.objects.get()
    assert tournament.entries.count() == 5 and tournament.flag_penalty == "match"
    assert tournament.resignation == "offer"
    assert not tournament.auto_pair  # left unticked: the director pairs each round

    page = act(client, CHANGELIST, "open_registration", tournament.pk)
    assert "Registration opened" in page.content.decode()
    act(client, CHANGELIST, "reseed", tournament.pk)
    tournament.refresh_from_db()
    seeds = {e.player.rating: e.seed for e in tournament.entries.select_related("player")}
    assert seeds[1640] == 1 and seeds[1600] == 5

    page = act(client, CHANGELIST, "start", tournament.pk)
    assert "Started" in page.content.decode()
    tournament.refresh_from_db()
    assert tournament.status == TournamentStatus.RUNNING
    change = client.get(f"{CHANGELIST}{tournament.pk}/change/")
    assert change.status_code == 200 and "Table template" in change.content.decode()

    round_one = open_pairings(tournament)
    assert len(round_one) == 2
    assert round_one[0].table and round_one[0].table.clock_delay == 8
    for row in round_one:
        play_match(row, row.entry_b)
    assert open_pairings(tournament) == []
    page = act(client, CHANGELIST, "pair_next_round", tournament.pk)
    assert "Paired" in page.content.decode()
    round_two = open_pairings(tournament)
    assert {r.round.number for r in round_two} == {2}
    assert round_two[0].table and round_two[0].table.match_length == 3

    # Override a round-one result through the intermediate form.
    target = round_one[0]
    form = act(client, "/admin/tournaments/pairing/", "override_result", target.pk)
    assert "Enter or correct the result" in form.content.decode()
    assert 'name="reason"' in form.content.decode()
    no_reason = act(client, "/admin/tournaments/pairing/", "override_result", target.pk,
                    apply="1", winner=str(target.entry_b_id), reason="")
    assert "This field is required" in no_reason.content.decode()
    done = act(client, "/admin/tournaments/pairing/", "override_result", target.pk,
               apply="1", winner=str(target.entry_b_id), winner_points="1", loser_points="0",
               reason="A conceded before the match")
    assert "Result corrected" in done.content.decode()
    target.refresh_from_db()
    assert (target.winner_id, target.result_source) == (target.entry_b_id,
                                                        ResultSource.OVERRIDE)
    log = tournament.log.get(action="result", data__source="override")
    assert log.actor == director and log.reason == "A conceded before the match"

    # Disqualify a player with a reason: their open match is forfeited.
    victim = round_two[0].entry_a
    assert victim is not None
    form = act(client, "/admin/tournaments/entry/", "disqualify", victim.pk)
    assert 'name="reason"' in form.content.decode()
    act(client, "/admin/tournaments/entry/", "disqualify", victim.pk, apply="1",
        reason="late twice")
    victim.refresh_from_db()
    assert victim.status == EntryStatus.DISQUALIFIED
    round_two[0].refresh_from_db()
    assert round_two[0].status == PairingStatus.DECIDED
    assert round_two[0].loser_id == victim.pk

    for row in open_pairings(tournament):
        play_match(row, row.entry_b)
    tournament.refresh_from_db()
    assert tournament.status == TournamentStatus.FINISHED
    assert client.get("/admin/tournaments/tournamentlog/").status_code == 200
    assert client.get(f"/admin/tournaments/pairing/?tournament__id__exact={tournament.pk}"
                      ).status_code == 200


def test_actions_in_the_wrong_state_show_the_reason(client, director, make_tournament):
    client.force_login(director)
    tournament = make_tournament(2, start=True)
    page = act(client, CHANGELIST, "reseed", tournament.pk)
    assert "Seeds can be changed only before the start" in page.content.decode()
