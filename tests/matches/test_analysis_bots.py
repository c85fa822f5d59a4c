"""Bots play through the services; a finished match gets gnubg's analysis, served by the
API; nothing is analysed or shown for a match in progress."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import pytest
from django.test import Client

from matches import services
from matches.errors import ServiceError
from matches.gnubg.analysis import analysis_request
from matches.gnubg.bots import bot_player, bot_table_create
from matches.gnubg.evaluation import analysis_run, bot_act
from matches.models import AnalysisStatus, Event, LogKind, Match, MatchAnalysis, Player
from matches.state import load_state


def _play_out(match: Match, *, limit: int = 2000) -> Match:
    """Let the bots of ``match`` act until it ends (in this process, no worker)."""
    for _ in range(limit):
        match.refresh_from_db()
        if match.is_finished:
            return match
        assert bot_act(match_id=match.pk, version=match.version)
    raise AssertionError("the bots did not finish the match")


def _bot_match(length: int = 1, strengths: tuple[str, str] = ("beginner", "advanced")) -> Match:
    table = services.table_create(name="Bots", match_length=length)
    services.table_sit(table_id=table.pk, player=bot_player(strengths[0]), seat=0)
    services.table_sit(table_id=table.pk, player=bot_player(strengths[1]), seat=1)
    return Match.objects.get(table=table)


@pytest.mark.django_db
def test_two_bots_play_a_whole_match_through_the_services_unrated() -> None:
    match = _bot_match(length=3)
    assert match.has_bot
    ratings = {p.pk: p.rating for p in Player.objects.filter(is_bot=True)}
    match = _play_out(match)
    assert match.winner is not None and max(match.score0, match.score1) >= 3
    kinds = set(Event.objects.filter(match=match).values_list("kind", flat=True))
    assert {LogKind.PLAY, LogKind.MATCH_END} <= kinds
    # Bots' matches are unrated unless the table says so.
    for player in Player.objects.filter(is_bot=True):
        assert player.rating == ratings[player.pk]
    assert not match.rating_records.exists()


@pytest.mark.django_db
def test_a_bot_table_seats_the_human_and_the_bot_and_the_bot_waits_its_turn(
    make_player: Callable[..., Player],
) -> None:
    human = make_player("hannah")
    table = bot_table_create(human=human, strength="intermediate", match_length=1)
    assert not table.is_public and not table.bots_rated
    match = Match.objects.get(table=table)
    assert (match.player0, match.player1.is_bot) == (human, True)
    state = load_state(match)
    if state.player_to_act == 0:
        assert not bot_act(match_id=match.pk, version=match.version)
    else:
        assert bot_act(match_id=match.pk, version=match.version)
        match.refresh_from_db()
        assert load_state(match).player_to_act == 0 or match.is_finished
    # A late task (the match moved on) does nothing.
    assert not bot_act(match_id=match.pk, version=match.version - 1)
    with pytest.raises(ValueError, match="unknown bot strength"):
        bot_table_create(human=human, strength="godlike")


@pytest.mark.django_db
def test_a_finished_match_is_analysed_and_served(client: Client) -> None:
    match = _play_out(_bot_match(length=1))
    analysis = analysis_run(match.pk)
    assert analysis.status == AnalysisStatus.DONE and analysis.plies == 0
    assert len(analysis.players) == 2 and analysis.decisions
    assert analysis.pr0 is not None and analysis.pr0 >= 0
    response = client.get(f"/api/matches/{match.pk}/analysis/")
    assert response.status_code == 200
    data = response.json()
    assert data["status"] == "done" and data["plies"] == 0
    assert data["engine"].startswith("gnubg")
    assert {"pr", "errors", "blunders", "luck", "rating", "luck_rating"} <= set(
        data["players"][0])
    first = data["decisions"][0]
    assert {"kind", "chosen", "best", "loss", "mark", "luck"} <= set(first)


@pytest.mark.django_db
def test_nothing_is_analysed_or_served_for_a_live_match(
    client: Client, start_match: Callable[..., Match],
) -> None:
    match = start_match(match_length=3)
    response = client.get(f"/api/matches/{match.pk}/analysis/")
    assert response.status_code == 409 and response.json()["error"] == "match_live"
    assert analysis_request(match) is None
    with pytest.raises(ServiceError) as refused:
        analysis_run(match.pk)
    assert refused.value.code == "match_live"
    assert not MatchAnalysis.objects.filter(match=match).exists()
    assert client.get("/api/matches/999999/analysis/").status_code == 404


@pytest.mark.django_db
def test_the_end_of_a_match_queues_its_analysis_after_commit(
    start_match: Callable[..., Match], django_capture_on_commit_callbacks: Any,
) -> None:
    match = start_match(match_length=1)
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        services.match_act(match_id=match.pk, player=match.player0, action="resign",
                           expected_version=match.version)
    analysis = MatchAnalysis.objects.get(match=match)
    assert analysis.status == AnalysisStatus.PENDING
    assert any("enqueue" in getattr(cb, "__qualname__", "") for cb in callbacks)
    assert analysis_run(match.pk).status == AnalysisStatus.DONE


@pytest.mark.slow
@pytest.mark.celery
@pytest.mark.django_db(transaction=True)
def test_bots_play_on_a_real_worker_and_the_analysis_follows(settings: Any) -> None:
    from tests.conftest import start_celery_worker, subprocess_env

    settings.TAVLA_BOT_PAUSE = (0.0, 0.0)
    worker = start_celery_worker(subprocess_env(TAVLA_BOT_PAUSE="0,0"), name="bots",
                                 queues="bots,analysis")
    try:
        match = _bot_match(length=1)
        deadline = time.monotonic() + 240
        while time.monotonic() < deadline:
            analysis = MatchAnalysis.objects.filter(match=match,
                                                    status=AnalysisStatus.DONE).first()
            if analysis is not None:
                break
            time.sleep(0.5)
        else:
            pytest.fail(f"no analysis in time:\n{worker.log()[-3000:]}")
        match.refresh_from_db()
        assert match.is_finished and match.winner is not None
        assert analysis.decisions and analysis.seconds is not None
    finally:
        worker.stop()


@pytest.mark.django_db
def test_a_players_page_shows_their_pr_per_match_and_over_time(client: Client) -> None:
    first = _play_out(_bot_match(length=1))
    second = _play_out(_bot_match(length=1))
    for match in (first, second):
        analysis_run(match.pk)
    player = first.player0
    html = client.get(f"/players/{player.pk}/").content.decode()
    assert 'id="player-pr"' in html
    assert html.count('class="pr-row"') == 2
    assert f'data-match="{first.pk}"' in html and f'data-match="{second.pk}"' in html
    assert "<svg" in html.split('id="player-pr"')[1]
    prs = [MatchAnalysis.objects.get(match=m).players[0]["pr"] for m in (first, second)]
    assert f"{(prs[0] + prs[1]) / 2:.2f}" in html


@pytest.mark.django_db
def test_the_lobby_offers_the_bot_and_its_form_starts_a_match(
    make_player: Callable[..., Player],
) -> None:
    player = make_player("lena")
    client = Client()
    client.force_login(player.user)
    lobby = client.get("/lobby/").content.decode()
    assert 'id="play-bot"' in lobby and "World class" in lobby
    response = client.post("/lobby/bot/", {"strength": "advanced", "match_length": "3",
                                           "cube_enabled": "on"})
    assert response.status_code == 302
    match = Match.objects.get(player0=player)
    assert match.player1.bot_strength == "advanced" and match.has_bot
    assert not match.table.is_rated and not match.table.bots_rated
    assert response["Location"] == f"/tables/{match.table_id}/"
    rated = client.post("/lobby/bot/", {"strength": "beginner", "match_length": "1",
                                        "rated": "on"})
    assert rated.status_code == 302
    table = Match.objects.filter(player0=player).latest("pk").table
    assert table.is_rated and table.bots_rated
    bad = client.post("/lobby/bot/", {"strength": "godlike", "match_length": "1"})
    assert bad.status_code == 302 and Match.objects.filter(player0=player).count() == 2
