"""The fair-play list finds a planted case (a person who played gnubg's best move every
turn after a history of weak play) and never lists bots; the adjudication form shows and
records the match-winning chances a worker answered, for the version the referee saw and
never to a referee who plays in the match; pages show the analysis only of a finished
match."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import pytest
from django.contrib.auth.models import Group, Permission, User
from django.test import Client

from matches import services
from matches.gnubg.bots import bot_player
from matches.gnubg.evaluation import adjudication_chances, analysis_run, bot_act
from matches.models import Event, LogKind, Match, MatchAnalysis, Player, Table
from matches.referee.fairplay import THRESHOLD, fair_play_cases
from matches.state import load_state
from tavla.analysis import bots as brain
from tavla.analysis import checkerplay
from tavla.analysis.adjudication import match_winning_chances
from tavla.analysis.bots import cube_of
from tavla.analysis.cube import cube_decision
from tavla.analysis.evaluator import Level
from tavla.engine.actions import Double, Drop, PlayMove, Take
from tavla.engine.game import Phase
from tavla.engine.match import MatchState
from tavla.engine.rules import Rules
from tests.matches.conftest import act


@pytest.fixture
def referee_client(db: None) -> Client:
    user = User.objects.create_user("ref", password="ref-pass", is_staff=True)
    user.groups.add(Group.objects.get(name="Referees"))
    client = Client()
    client.force_login(user)
    return client


def _human_choice(state: MatchState, seat: int, mode: str) -> Any:
    """``best``: gnubg's 0-ply choice every time (what the analysis calls best); ``weak``:
    gnubg's beginner, with its noise."""
    if mode == "weak":
        return brain.choose(state, seat, "beginner")
    cube = cube_of(state, seat)
    if state.phase is Phase.MOVE:
        assert state.dice is not None
        best = checkerplay.rank_plays(state.position, state.dice, cube, Level(0))[0][0]
        return PlayMove(next(p for p in state.legal_plays()
                             if (p.position.mover, p.position.opponent) == best), seat)
    if state.phase is Phase.CUBE_OFFERED:
        doubler = cube_of(state, 1 - seat)
        eqs = cube_decision(state.position, doubler, Level(0))
        return Take(seat) if eqs.should_take else Drop(seat)
    if state.may_double() and cube.mover_may_double:
        if cube_decision(state.position, cube, Level(0)).should_double:
            return Double(seat)
    return None


def _human_vs_bot(human: Player, mode: str, seed: int, length: int = 3) -> Match:
    """A whole match through the services: ``human`` (seat 0) against the intermediate bot,
    on scripted dice from ``seed``."""
    rng = random.Random(seed)
    dice = [[rng.randint(1, 6), rng.randint(1, 6)] for _ in range(3000)]
    table = services.table_create(name=f"Practice {seed}", match_length=length)
    Table.objects.filter(pk=table.pk).update(scripted_dice=dice)
    services.table_sit(table_id=table.pk, player=human, seat=0)
    services.table_sit(table_id=table.pk, player=bot_player("intermediate"), seat=1)
    match = Match.objects.get(table=table)
    for _ in range(3000):
        match.refresh_from_db()
        if match.is_finished:
            return match
        state = load_state(match)
        if state.player_to_act == 1:
            assert bot_act(match_id=match.pk, version=match.version)
            continue
        choice = _human_choice(state, 0, mode)
        action, play = "roll", None
        if isinstance(choice, PlayMove):
            action, play = "play", choice.play.notation()  # type: ignore[union-attr]
        elif choice is not None:
            action = type(choice).__name__.lower()
        services.match_act(match_id=match.pk, player=human, action=action,
                           expected_version=match.version, play=play)
    raise AssertionError("the match did not end")


@pytest.mark.slow
@pytest.mark.django_db
def test_the_fair_play_list_shows_a_planted_case_and_says_it_never_acts(
    make_player: Callable[..., Player], referee_client: Client,
) -> None:
    suspect = make_player("suspect")
    honest = make_player("honest")
    history = [_human_vs_bot(suspect, "weak", seed) for seed in (11, 12, 13, 14)]
    for seed in (21, 22, 23):
        analysis_run(_human_vs_bot(honest, "weak", seed).pk)
    for match in history:
        analysis_run(match.pk)
    planted = _human_vs_bot(suspect, "best", 99)
    analysis = analysis_run(planted.pk)
    # gnubg's best every turn, as Tavla's own evaluation finds it; the analysis takes a
    # standard table's cube verdicts from gnubg's own analysis in C, which in a rare
    # position judges a cube decision otherwise (tavla.analysis.native).
    assert analysis.pr0 < 1.0

    cases = fair_play_cases()
    listed = {(case.player.pk, case.match.pk) for case in cases}
    assert (suspect.pk, planted.pk) in listed
    assert all(not case.player.is_bot for case in cases)
    case = next(c for c in cases if c.match.pk == planted.pk)
    assert case.z >= THRESHOLD and case.history_matches == 4 and case.history_mean > 5
    # The planted match stands out most among the suspect's matches.
    assert case.z == max(c.z for c in cases if c.player.pk == suspect.pk)

    page = referee_client.get("/admin/matches/matchanalysis/fair-play/")
    assert page.status_code == 200
    html = page.content.decode()
    assert "never acts by itself" in html
    assert f'data-match="{planted.pk}"' in html and "suspect" in html
    assert f"/admin/matches/match/{planted.pk}/replay/" in html
    # One click away: the replay page shows the analysis.
    replay = referee_client.get(f"/admin/matches/match/{planted.pk}/replay/").content.decode()
    assert 'id="analysis"' in replay and "Blunders" in replay


@pytest.mark.django_db
def test_winning_chances_at_simple_positions() -> None:
    state = MatchState.new(Rules(match_length=5))
    chances = match_winning_chances(state)
    assert chances is not None and chances[0] == pytest.approx(0.5, abs=0.02)
    assert sum(chances) == pytest.approx(1.0)
    assert match_winning_chances(MatchState.new(Rules(match_length=None))) is None


def _figures(client: Client, match: Match, version: int) -> dict[str, Any]:
    response = client.get(f"/admin/matches/match/{match.pk}/adjudicate_figures/",
                          {"version": version})
    assert response.status_code == 200, response.content.decode()
    body: dict[str, Any] = response.json()
    return body


def _answer_as_the_worker_does(match: Match) -> tuple[float, float]:
    """What the analysis worker runs for the task (here on this process's main thread;
    tests/matches/test_adjudication_worker.py has a real worker answer a real daphne)."""
    chances = adjudication_chances(match_id=match.pk, version=match.version)
    assert chances is not None
    return chances


@pytest.mark.django_db
def test_the_form_asks_a_worker_and_records_the_figures_it_answers(
    start_match: Callable[..., Match], referee_client: Client,
) -> None:
    match = start_match(match_length=3, dice=[[6, 1], [3, 1], [5, 2]])
    url = f"/admin/matches/match/{match.pk}/adjudicate/"
    page = referee_client.get(url).content.decode()
    # Nothing is evaluated by the web request: the page waits for a worker.
    assert 'data-status="evaluating"' in page and "Evaluating" in page
    assert f'data-version="{match.version}"' in page and "adjudication.js" in page
    assert _figures(referee_client, match, match.version)["status"] == "evaluating"

    chances = _answer_as_the_worker_does(match)
    figures = _figures(referee_client, match, match.version)
    assert figures["status"] == "ready"
    assert figures["chances"] == [round(100 * c, 1) for c in chances]
    assert sum(figures["chances"]) == pytest.approx(100.0, abs=0.11)
    html = referee_client.get(url).content.decode()
    shown = [float(html.split(f'class="chance{i}">')[1].split("%")[0]) for i in (0, 1)]
    assert shown == figures["chances"] and shown[0] != shown[1]

    response = referee_client.post(url, {
        "winner": "0", "scope": "match", "reason": "Player 1 left the club", "points": "",
        "version": str(match.version),
    })
    assert response.status_code == 302
    text = str(Event.objects.get(match=match, kind=LogKind.ADJUDICATE).payload)
    assert "Player 1 left the club" in text and "gnubg match-winning chances" in text
    assert f"{shown[0]:.1f}%" in text and f"{shown[1]:.1f}%" in text


@pytest.mark.django_db
def test_figures_of_an_earlier_version_are_never_shown_or_recorded(
    start_match: Callable[..., Match], referee_client: Client,
) -> None:
    match = start_match(match_length=3, dice=[[6, 1], [3, 1], [5, 2]])
    seen = match.version
    url = f"/admin/matches/match/{match.pk}/adjudicate/"
    referee_client.get(url)
    _answer_as_the_worker_does(match)
    assert _figures(referee_client, match, seen)["status"] == "ready"
    match = act(match, 0, "play", "8/2 6/5")
    assert match.version > seen

    old = _figures(referee_client, match, seen)
    assert old["status"] == "moved_on" and old["chances"] is None
    page = referee_client.get(url).content.decode()
    assert f'data-version="{match.version}"' in page and 'data-status="evaluating"' in page
    assert 'class="chance0"></td>' in page  # no figures of the earlier position
    # A decision made on the earlier position is refused, and nothing changes.
    refused = referee_client.post(url, {"winner": "0", "scope": "match", "points": "",
                                        "reason": "Seen earlier", "version": str(seen)})
    assert refused.status_code == 200 and "has moved on" in refused.content.decode()
    assert f'name="version" value="{match.version}"' in refused.content.decode()
    assert not Event.objects.filter(match=match, kind=LogKind.ADJUDICATE).exists()
    # At the current version, without a worker's answer for it, no figures are recorded.
    assert referee_client.post(url, {"winner": "0", "scope": "match", "points": "",
                                     "reason": "Seen now", "version": str(match.version),
                                     }).status_code == 302
    event = Event.objects.get(match=match, kind=LogKind.ADJUDICATE)
    assert event.payload["action"]["reason"] == "Seen now"


@pytest.mark.django_db
def test_a_referee_who_plays_in_the_match_sees_no_figures(
    start_match: Callable[..., Match], make_player: Callable[..., Player],
) -> None:
    user = User.objects.create_user("playing-ref", password="x", is_staff=True)
    user.groups.add(Group.objects.get(name="Referees"))
    referee = services.player_for_user(user)
    match = start_match(match_length=3, dice=[[6, 1], [3, 1]],
                        players=(referee, make_player()))
    client = Client()
    client.force_login(user)
    url = f"/admin/matches/match/{match.pk}/adjudicate/"
    page = client.get(url).content.decode()
    assert "You play in this match" in page and 'id="winning-chances"' not in page
    assert "adjudication.js" not in page
    # Even with figures a worker made for another referee, none reach this one.
    _answer_as_the_worker_does(match)
    figures = _figures(client, match, match.version)
    assert figures["status"] == "withheld" and figures["chances"] is None
    assert client.post(url, {"winner": "0", "scope": "game", "points": "", "reason": "Mine",
                             "version": str(match.version)}).status_code == 302
    event = Event.objects.get(match=match, kind=LogKind.ADJUDICATE)
    assert event.payload["action"]["reason"] == "Mine"


@pytest.mark.django_db
def test_without_an_answer_in_time_the_page_says_so_and_the_referee_decides(
    start_match: Callable[..., Match], referee_client: Client, settings: Any,
) -> None:
    settings.TAVLA_ADJUDICATION_HELP_SECONDS = 0
    match = start_match(match_length=3, dice=[[6, 1], [3, 1]])
    url = f"/admin/matches/match/{match.pk}/adjudicate/"
    assert 'data-status="evaluating"' in referee_client.get(url).content.decode()
    figures = _figures(referee_client, match, match.version)
    assert figures["status"] == "timed_out" and "No analysis worker answered" in figures["detail"]
    assert referee_client.post(url, {"winner": "1", "scope": "game", "points": "",
                                     "reason": "No help", "version": str(match.version),
                                     }).status_code == 302
    assert Event.objects.get(match=match, kind=LogKind.ADJUDICATE).payload["action"][
        "reason"] == "No help"


@pytest.mark.django_db
def test_the_figures_endpoint_refuses_bad_input_and_other_staff(
    start_match: Callable[..., Match], referee_client: Client,
) -> None:
    match = start_match(match_length=3, dice=[[6, 1]])
    url = f"/admin/matches/match/{match.pk}/adjudicate_figures/"
    for bad in ("", "x", "-1", "1.5"):
        response = referee_client.get(url, {"version": bad})
        assert response.status_code == 400 and response.json()["error"] == "invalid_version"
    viewer = User.objects.create_user("viewer", password="x", is_staff=True)
    viewer.user_permissions.add(Permission.objects.get(codename="view_match"))
    client = Client()
    client.force_login(viewer)
    assert client.get(url, {"version": match.version}).status_code == 403


@pytest.mark.django_db
def test_pages_show_no_analysis_of_a_live_match(
    start_match: Callable[..., Match], referee_client: Client,
) -> None:
    match = start_match(match_length=3)
    # Even a row planted for a live match is never shown.
    MatchAnalysis.objects.create(match=match, status="done", players=[{"name": "x",
                                 "pr": 1.0}], decisions=[])
    replay = referee_client.get(f"/admin/matches/match/{match.pk}/replay/").content.decode()
    assert "A match is analysed only once it is over." in replay
    assert "analysis-players" not in replay
    anonymous = Client().get(f"/matches/{match.pk}/")
    assert anonymous.status_code == 302  # a live match's review opens its table instead
