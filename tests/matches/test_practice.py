"""Practise your mistakes: drill items from a real analysis (gnubg in this process, as the
worker runs it), answered over REST, on the Leitner schedule."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.test import Client
from django.utils import timezone

from matches import services
from matches.gnubg.bots import bot_player
from matches.gnubg.evaluation import analysis_run, bot_act, collect_drill
from matches.gnubg.practice import BOX_DAYS, RETRY_MINUTES, schedule
from matches.models import DrillItem, Match, Player
from tavla.analysis import analyse
from tavla.engine import Position, decode_match_id, legal_plays


def _played_out_with_a_person() -> tuple[Match, Player]:
    """A 3-point match the beginner bot and the advanced bot play out; then the beginner is
    taken for a person (drill items are made for people only) and the match analysed."""
    table = services.table_create(name="Drill", match_length=3)
    beginner = bot_player("beginner")
    services.table_sit(table_id=table.pk, player=beginner, seat=0)
    services.table_sit(table_id=table.pk, player=bot_player("advanced"), seat=1)
    match = Match.objects.get(table=table)
    for _ in range(3000):
        match.refresh_from_db()
        if match.is_finished:
            break
        assert bot_act(match_id=match.pk, version=match.version)
    assert match.is_finished
    Player.objects.filter(pk=beginner.pk).update(is_bot=False)
    beginner.refresh_from_db()
    return match, beginner


@pytest.fixture
def drilled(db: None, settings: Any) -> tuple[Match, Player]:
    settings.TAVLA_ANALYSE_FINISHED_MATCHES = False
    match, person = _played_out_with_a_person()
    analysis = analysis_run(match.pk)
    mistakes = [d for d in analysis.decisions
                if d["player"] == 0 and d["mark"] in ("error", "blunder")]
    assert mistakes, "the beginner made no error to practise"
    return match, person


@pytest.mark.django_db
def test_each_error_and_blunder_of_a_person_becomes_one_item(
    drilled: tuple[Match, Player],
) -> None:
    match, person = drilled
    analysis = match.analysis
    mistakes = [d for d in analysis.decisions
                if d["player"] == 0 and d["mark"] in ("error", "blunder")]
    items = DrillItem.objects.filter(player=person)
    assert items.count() == len(mistakes)
    assert not DrillItem.objects.exclude(player=person).exists()  # the bot gets none
    for item in items:
        assert item.box == 1 and item.due_at <= timezone.now()
        assert item.mark in ("error", "blunder") and item.loss >= analyse.ERROR
        info = decode_match_id(item.gnubg_match_id)
        assert info.match_length == 3
        if item.kind == "move":
            position = Position.from_id(item.position_id)
            plays = item.answers["plays"]
            assert {p["play"] for p in plays} == {
                p.notation() for p in legal_plays(position, *info.dice)}
            played = next(p for p in plays if p["play"] == item.played)
            assert played["loss"] == pytest.approx(item.loss, abs=1e-3)
            assert plays[0]["play"] == item.best and plays[0]["loss"] == 0
        else:
            assert item.answers["verdict"]
    # Collecting again makes nothing twice.
    assert collect_drill(person.pk) == 0


@pytest.mark.django_db
def test_answering_over_rest_moves_items_through_the_boxes(
    client: Client, drilled: tuple[Match, Player],
) -> None:
    _match, person = drilled
    client.force_login(person.user)
    data = client.get("/api/practice/").json()
    assert data["due"] == data["items"] >= 1 and data["item"] is not None
    item = data["item"]
    first = DrillItem.objects.get(pk=item["id"])
    assert "best" not in item and "played" not in item  # nothing of the answer beforehand

    # A bad answer changes nothing.
    bad = client.post(f"/api/practice/{item['id']}/answer/", {"answer": "25/1"},
                      content_type="application/json")
    assert bad.status_code == 400 and bad.json()["error"] in ("invalid_play", "invalid_option")
    first.refresh_from_db()
    assert (first.box, first.reviews) == (1, 0)

    right = first.best if first.kind == "move" else (
        first.answers["response"] if first.kind in ("take", "drop") else first.answers["best"])
    before = timezone.now()
    result = client.post(f"/api/practice/{first.pk}/answer/", {"answer": right},
                         content_type="application/json").json()
    assert result["right"] is True and result["loss"] == pytest.approx(0, abs=0.005)
    assert result["box"] == 2 and result["played"] == first.played
    first.refresh_from_db()
    assert first.due_at >= before + timedelta(days=BOX_DAYS[2]) - timedelta(seconds=5)
    assert first.reviews == 1 and first.right == 1

    # The item is no longer due; the next one comes; answering it wrong keeps it in box 1.
    data = client.get("/api/practice/").json()
    assert data["due"] == data["items"] - 1
    if data["item"] is not None:
        second = DrillItem.objects.get(pk=data["item"]["id"])
        wrong = second.played if second.kind == "move" else (
            "pass" if second.answers["response"] == "take" else "take"
        ) if second.kind in ("take", "drop") else (
            "no_double" if second.answers["best"] == "double" else "double")
        result = client.post(f"/api/practice/{second.pk}/answer/", {"answer": wrong},
                             content_type="application/json").json()
        assert result["right"] is False and result["loss"] >= 0.005
        assert result["box"] == 1 and result["best"] != wrong
        second.refresh_from_db()
        assert second.due_at <= timezone.now() + timedelta(minutes=RETRY_MINUTES)

    # Nobody else may see or answer these items.
    other = services.player_for_user(type(person.user).objects.create_user("other", password="x"))
    client.force_login(other.user)
    assert client.get("/api/practice/").json()["items"] == 0
    response = client.post(f"/api/practice/{first.pk}/answer/", {"answer": right},
                           content_type="application/json")
    assert response.status_code == 404


@pytest.mark.django_db
def test_the_practice_page_embeds_the_next_item(
    client: Client, drilled: tuple[Match, Player],
) -> None:
    _match, person = drilled
    client.force_login(person.user)
    page = client.get("/practice/")
    assert page.status_code == 200
    assert b'id="practice-data"' in page.content and b"drill-actions" in page.content


def test_the_leitner_schedule() -> None:
    now = timezone.now()
    assert schedule(1, True, now) == (2, now + timedelta(days=2))
    assert schedule(4, True, now) == (5, now + timedelta(days=16))
    assert schedule(5, True, now) == (5, now + timedelta(days=16))
    assert schedule(4, False, now) == (1, now + timedelta(minutes=RETRY_MINUTES))
