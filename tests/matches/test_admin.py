"""The referee admin: review (replay, verify, export), adjudicate and void; no editing."""

from __future__ import annotations

import io
import json
import zipfile
from typing import Any

import pytest
from django.contrib.auth.models import Group, User
from django.test import Client

from matches import services
from matches.demo.tables import FINISHED_TABLE, seed_match_demo
from matches.models import Event, GameEnding, LogKind, Match, MatchStatus, Table
from tests.matches.conftest import act

pytestmark = pytest.mark.django_db


@pytest.fixture
def referee() -> User:
    user = User.objects.create_user("ref", password="ref-pass-123", is_staff=True)
    user.groups.add(Group.objects.get(name="Referees"))
    return user


@pytest.fixture
def referee_client(referee: User) -> Client:
    client = Client()
    assert client.login(username="ref", password="ref-pass-123")
    return client


def test_the_referees_group_comes_from_a_migration():
    group = Group.objects.get(name="Referees")
    codenames = set(group.permissions.filter(content_type__app_label="matches")
                    .values_list("codename", flat=True))
    assert codenames == {"view_player", "view_table", "view_match", "view_game", "view_event",
                         "view_ratingrecord", "adjudicate_match",
                         # gnubg's analyses and the fair-play review
                         "view_matchanalysis",
                         # table chat: read, review reports, remove (logged)
                         "moderate_chat", "view_chatmessage", "view_chatreport",
                         "change_chatreport", "view_chatmoderation"}


def test_referee_reviews_the_replay_and_adjudicates_the_game(start_match, referee,
                                                             referee_client):
    match = start_match(dice=[[3, 1], [6, 4]], match_length=3, cube_enabled=False)
    match = act(match, 0, "play", "8/5 6/5")
    base = f"/admin/matches/match/{match.pk}"

    listing = referee_client.get("/admin/matches/match/")
    assert listing.status_code == 200 and str(match.player0) in listing.content.decode()
    for query in (f"?status__exact={MatchStatus.PLAYING}", f"?player={match.player1_id}",
                  f"?table__id__exact={match.table_id}"):
        filtered = referee_client.get(f"/admin/matches/match/{query}")
        assert filtered.status_code == 200
        assert f"{base}/change/" in filtered.content.decode()
    change = referee_client.get(f"{base}/change/").content.decode()
    assert f"{base}/replay/" in change and f"{base}/adjudicate/" in change
    assert 'name="_save"' not in change  # read-only

    replay = referee_client.get(f"{base}/replay/")
    html = replay.content.decode()
    assert replay.status_code == 200 and "<svg" in html
    assert "Opening roll" in html and "Played 8/5 6/5" in html and "rolled 6-4" in html
    first = referee_client.get(f"{base}/replay/?step=1").content.decode()
    assert "Opening roll" in first and 'rel="next"' in first
    # the same board component as the players' review page: one frame per log entry
    assert 'id="review-data"' in first and "review.js" in first and 'data-start="1"' in first
    frames = json.loads(first.split('id="review-data" type="application/json">')[1]
                        .split("</script>")[0])["frames"]
    assert len(frames) == first.count("data-step-row=")
    assert frames[1]["kind"] == "Opening roll" and frames[1]["dice"] == [3, 1]

    form = referee_client.get(f"{base}/adjudicate/").content.decode()
    assert "Game 1 is in progress, cube at 1." in form and 'name="reason"' in form
    assert 'value="Adjudicate"' in form and f"{base}/replay/" in form
    void_form = referee_client.get(f"{base}/void/").content.decode()
    assert "ends without a result" in void_form and 'value="Void the match"' in void_form

    response = referee_client.post(f"{base}/adjudicate/", {
        "winner": "1", "scope": "game", "points": "", "reason": "Player 0's phone died.",
        "version": str(match.version),
    })
    assert response.status_code == 302, response.content.decode()
    match.refresh_from_db()
    assert match.status == MatchStatus.PLAYING and (match.score0, match.score1) == (0, 1)
    assert match.games.get(number=1).ending == GameEnding.ADJUDICATED
    decision = Event.objects.get(match=match, kind=LogKind.ADJUDICATE)
    assert decision.actor == referee
    # The reason; no worker answered here, so no figures were shown or recorded (see
    # tests/matches/test_adjudication_figures.py for figures from a worker).
    assert decision.payload["action"]["reason"] == "Player 0's phone died."
    assert services.match_verify(match_id=match.pk).ok
    # The decision shows in the replay with the referee as actor.
    html = referee_client.get(f"{base}/replay/").content.decode()
    assert "Referee awarded the game" in html and "ref" in html


def test_adjudicating_the_match_needs_a_reason_and_ends_it(start_match, referee_client):
    match = start_match(dice=[[3, 1]], match_length=5)
    url = f"/admin/matches/match/{match.pk}/adjudicate/"
    version = str(match.version)
    refused = referee_client.post(url, {"winner": "0", "scope": "match", "reason": "",
                                        "version": version})
    assert refused.status_code == 200 and "This field is required" in refused.content.decode()
    assert referee_client.post(url, {"winner": "0", "scope": "match", "version": version,
                                     "reason": "Opponent no-show"}).status_code == 302
    match.refresh_from_db()
    assert match.status == MatchStatus.ADJUDICATED and match.winner == match.player0
    assert match.score0 == 5
    # Over now: no second decision.
    again = referee_client.get(url)
    assert again.status_code == 302


def test_void_verify_and_export(start_match, referee, referee_client):
    match = start_match(dice=[[3, 1]], match_length=3)
    other = start_match(dice=[[4, 2]], match_length=1)
    other = act(other, 0, "resign")
    base = f"/admin/matches/match/{match.pk}"

    verified = referee_client.post(f"{base}/verify/", follow=True)
    assert "verified: 2 events replay to the stored state" in verified.content.decode()
    assert referee_client.get(f"{base}/verify/").status_code == 405

    mat = referee_client.get(f"{base}/mat/")
    assert mat.status_code == 200 and "3 point match" in mat.content.decode()
    assert f"tavla-match-{match.pk}.mat" in mat["Content-Disposition"]

    bulk = referee_client.post("/admin/matches/match/", {
        "action": "export_mat", "_selected_action": [match.pk, other.pk]})
    assert bulk["Content-Type"] == "application/zip"
    names = zipfile.ZipFile(io.BytesIO(bulk.content)).namelist()
    assert sorted(names) == sorted([f"tavla-match-{match.pk}.mat",
                                    f"tavla-match-{other.pk}.mat"])
    checked = referee_client.post("/admin/matches/match/", {
        "action": "verify_matches", "_selected_action": [match.pk, other.pk]}, follow=True)
    assert checked.content.decode().count("verified:") == 2

    assert referee_client.post(f"{base}/void/", {"reason": ""}).status_code == 200
    voided = referee_client.post(f"{base}/void/", {"reason": "Wrong players seated."})
    assert voided.status_code == 302
    match.refresh_from_db()
    assert match.status == MatchStatus.VOIDED
    event = match.events.get(kind=LogKind.VOID)
    assert event.actor == referee and event.payload["reason"] == "Wrong players seated."


def test_referee_cannot_edit_tables_users_or_matches(start_match, referee_client):
    match = start_match(dice=[[3, 1]])
    table = Table.objects.get(pk=match.table_id)
    page = referee_client.get(f"/admin/matches/table/{table.pk}/change/")
    html = page.content.decode()
    assert page.status_code == 200 and 'name="_save"' not in html
    assert "Cube and scoring" in html and "Match and clock" in html
    denied = referee_client.post(f"/admin/matches/table/{table.pk}/change/",
                                 {"name": "Renamed", "match_length": 1})
    assert denied.status_code == 403
    assert Table.objects.get(pk=table.pk).name == "Test table"
    assert referee_client.get("/admin/matches/table/add/").status_code == 403
    assert referee_client.get("/admin/auth/user/").status_code == 403
    assert referee_client.post(f"/admin/matches/match/{match.pk}/change/",
                               {"status": MatchStatus.VOIDED}).status_code == 403
    assert referee_client.get(f"/admin/matches/match/{match.pk}/delete/").status_code == 403


def test_staff_without_the_permission_cannot_adjudicate(start_match):
    match = start_match(dice=[[3, 1]])
    viewer = User.objects.create_user("viewer", password="viewer-pass-1", is_staff=True)
    from django.contrib.auth.models import Permission

    viewer.user_permissions.add(Permission.objects.get(codename="view_match"))
    client = Client()
    client.force_login(viewer)
    assert client.get(f"/admin/matches/match/{match.pk}/replay/").status_code == 200
    assert "adjudicate/" not in client.get(
        f"/admin/matches/match/{match.pk}/change/").content.decode()
    response = client.post(f"/admin/matches/match/{match.pk}/adjudicate/",
                           {"winner": "0", "scope": "match", "reason": "x"})
    assert response.status_code == 403
    assert Match.objects.get(pk=match.pk).status == MatchStatus.PLAYING
    assert Client().get(f"/admin/matches/match/{match.pk}/replay/").status_code == 302


def test_an_admin_creates_a_table_through_the_service(admin_client: Any):
    response = admin_client.post("/admin/matches/table/add/", {
        "name": "Club night", "is_public": "on", "is_rated": "on", "cube_enabled": "on",
        "match_length": "7", "crawford": "on", "clock_delay": "12",
        "clock_reserve_seconds": "0", "clock_reserve_per_point": "120",
        "grace_seconds": "60", "flag_penalty": "game", "resignation": "single",
        "scripted_dice": "[]",
    })
    assert response.status_code == 302, response.content.decode()[:3000]
    table = Table.objects.get(name="Club night")
    assert table.match_length == 7 and table.cube_enabled and not table.gammons_enabled


def test_the_demo_club_has_a_finished_match_to_replay(referee_client):
    from django.core.management import call_command

    call_command("seed_demo", force=True, stdout=io.StringIO())
    lines: list[str] = []
    seed_match_demo(lines.append)  # again: idempotent
    assert lines == []
    match = Match.objects.get(table__name=FINISHED_TABLE)
    assert match.status == MatchStatus.FINISHED and match.winner is not None
    assert services.match_verify(match_id=match.pk).ok
    assert Table.objects.filter(clock_enabled=True).exists()
    assert Table.objects.filter(match_length__isnull=True).exists()
    replay = referee_client.get(f"/admin/matches/match/{match.pk}/replay/")
    assert replay.status_code == 200 and "Match over" in replay.content.decode()


def test_matches_filter_by_tournament(start_match, referee_client):
    from tournaments.models import Pairing, Round, Tournament

    paired = start_match(dice=[[3, 1]])
    casual = start_match(dice=[[4, 2]])
    cup = Tournament.objects.create(name="Club cup")
    first = Round.objects.create(tournament=cup, number=1, match_length=3)
    Pairing.objects.create(tournament=cup, round=first, slot="1", side_a="a", side_b="b",
                           match=paired)
    html = referee_client.get(
        f"/admin/matches/match/?tournament={cup.pk}"
    ).content.decode()
    assert f"/admin/matches/match/{paired.pk}/change/" in html
    assert f"/admin/matches/match/{casual.pk}/change/" not in html
    assert "Club cup" in html
