"""The fair-play list finds a planted case (a person who played gnubg's best move every
turn after a history of weak play) and never lists bots; the adjudication form shows and
records gnubg's match-winning chances; pages show the analysis only of a finished match."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import pytest
from django.contrib.auth.models import Group, User
from django.test import Client

from matches import services
from matches.bots import bot_player
from matches.evaluation import analysis_run, bot_act
from matches.fairplay import THRESHOLD, fair_play_cases
from matches.models import Event, LogKind, Match, MatchAnalysis, Player, Table
from matches.state import load_state
from tavla.analysis import bots as brain
from tavla.analysis import evaluator
from tavla.analysis.adjudication import match_winning_chances
from tavla.analysis.bots import cube_of
from tavla.analysis.evaluator import Level
from tavla.engine.actions import Double, Drop, PlayMove, Take
from tavla.engine.game import Phase
from tavla.engine.match import MatchState
from tavla.engine.rules import Rules


@pytest.fixture
def referee_client(db: None) -> Client:
    user = User.objects.create_user("ref", password="ref-pass", is_staff=True)
    user.groups.add(Group.objects.get(name="Referees"))
    client = Client()
    client.force_login(user)
    return client


def _human_choice(state: MatchState, seat: int, mode: str, rng: random.Random) -> Any:
    """``best``: gnubg's 0-ply choice every time (what the analysis calls best); ``weak``:
    gnubg's beginner, with its noise."""
    if mode == "weak":
        return brain.choose(state, seat, "beginner", rng)
    cube = cube_of(state, seat)
    if state.phase is Phase.MOVE:
        assert state.dice is not None
        best = evaluator.rank_plays(state.position, state.dice, cube, Level(0))[0][0]
        return PlayMove(next(p for p in state.legal_plays()
                             if (p.position.mover, p.position.opponent) == best), seat)
    if state.phase is Phase.CUBE_OFFERED:
        doubler = cube_of(state, 1 - seat)
        eqs = evaluator.cube_equities(state.position, doubler, Level(0))
        return Take(seat) if eqs.should_take else Drop(seat)
    if state.may_double() and cube.mover_may_double:
        if evaluator.cube_equities(state.position, cube, Level(0)).should_double:
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
            assert bot_act(match_id=match.pk, version=match.version, rng=rng)
            continue
        choice = _human_choice(state, 0, mode, rng)
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
    assert analysis.pr0 == pytest.approx(0.0, abs=1e-6)  # gnubg's best, every turn

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


@pytest.mark.django_db
def test_the_adjudication_form_shows_and_records_the_winning_chances(
    start_match: Callable[..., Match], referee_client: Client,
) -> None:
    match = start_match(match_length=3, dice=[[6, 1], [3, 1], [5, 2]])
    page = referee_client.get(f"/admin/matches/match/{match.pk}/adjudicate/")
    assert page.status_code == 200
    html = page.content.decode()
    assert 'id="winning-chances"' in html
    chances = [float(html.split(f'class="chance{i}">')[1].split("%")[0]) for i in (0, 1)]
    assert sum(chances) == pytest.approx(100.0, abs=0.11) and chances[0] != chances[1]
    response = referee_client.post(f"/admin/matches/match/{match.pk}/adjudicate/", {
        "winner": "0", "scope": "match", "reason": "Player 1 left the club", "points": "",
    })
    assert response.status_code == 302
    event = Event.objects.get(match=match, kind=LogKind.ADJUDICATE)
    text = str(event.payload)
    assert "Player 1 left the club" in text and "gnubg match-winning chances" in text
    assert f"{chances[0]:.1f}%" in text


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
