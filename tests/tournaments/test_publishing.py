"""Publishing a whole event played online with real moves: the standings and results CSVs,
the zip of every ``.mat`` (imported clean by GNU Backgammon) and the public results page."""

from __future__ import annotations

import csv
import io
import random
import re
import zipfile

import pytest
from django.test import Client

from matches import services as match_services
from matches.models import Match, MatchStatus
from matches.state import load_state
from tavla.engine.game import Phase
from tests.engine.gnubg_ref import gnubg_path
from tests.engine.test_matfile import assert_gnubg_agrees, import_in_gnubg
from tests.tournaments.conftest import open_pairings
from tournaments.models import PairingStatus, Tournament, TournamentStatus

pytestmark = pytest.mark.django_db


def play_for_real(row, rng: random.Random) -> Match:
    """Both players sit down and play the match out with random legal plays (the server
    rolls the dice), doubling now and then."""
    for entry in (row.entry_a, row.entry_b):
        match_services.table_sit(table_id=row.table_id, player=entry.player)
    match = Match.objects.filter(table_id=row.table_id).latest("pk")
    for _ in range(5000):
        match.refresh_from_db()
        if match.status != MatchStatus.PLAYING:
            return match
        state = load_state(match)
        seat = state.player_to_act
        assert seat is not None
        player = match.players()[seat]
        kwargs = {"match_id": match.pk, "player": player, "expected_version": match.version}
        if state.phase is Phase.TURN_START:
            action = "double" if state.may_double() and rng.random() < 0.1 else "roll"
            match_services.match_act(action=action, **kwargs)
        elif state.phase is Phase.CUBE_OFFERED:
            match_services.match_act(action="take" if rng.random() < 0.7 else "drop", **kwargs)
        elif state.phase is Phase.MOVE:
            play = rng.choice(state.legal_plays())
            match_services.match_act(action="play", play=play.notation(), **kwargs)
        else:
            raise AssertionError(f"unexpected phase {state.phase}")
    raise AssertionError("the match did not end")


def finished_event(make_tournament) -> Tournament:
    tournament = make_tournament(
        5, start=True, name="Spring Open: club, cup", format="single_elimination",
        format_options={"third_place": True}, match_lengths=[1, 3], cube_enabled=True)
    rng = random.Random(7)
    for _ in range(20):
        tournament.refresh_from_db()
        if tournament.status == TournamentStatus.FINISHED:
            return tournament
        for row in open_pairings(tournament):
            play_for_real(row, rng)
    raise AssertionError("the event did not finish")


def check_results_csv(finished_event):
    response = Client().get(f"/tournaments/{finished_event.pk}/results.csv")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/csv")
    assert "attachment" in response["Content-Disposition"]
    rows = list(csv.DictReader(io.StringIO(response.content.decode())))
    decided = finished_event.pairings.filter(
        status__in=[PairingStatus.DECIDED, PairingStatus.BYE]).select_related(
        "winner__player", "match")
    assert len(rows) == decided.count() == 5 - 1 + 3 + 1  # 4 main, 3 byes, third place
    by_slot = {row["slot"]: row for row in rows}
    for pairing in decided:
        line = by_slot[pairing.slot]
        assert line["winner"] == pairing.winner.player.display_name
        if pairing.match is not None:
            # The match's own record, not the pairing's copy of it.
            winner = pairing.match.winner.display_name
            assert line["winner"] == winner
            points = max(pairing.match.score0, pairing.match.score1)
            assert int(line["winner_points"]) == points
    assert by_slot["3P"]["round_name"] == "Third place, Third-place match"
    assert by_slot["M3-1"]["round_name"] == "Bracket, Final"
    assert by_slot["M3-1"]["match_length"] == "3"


def check_standings_csv(finished_event):
    response = Client().get(f"/tournaments/{finished_event.pk}/standings.csv")
    rows = list(csv.DictReader(io.StringIO(response.content.decode())))
    assert len(rows) == 5
    assert rows[0]["player"] == finished_event.champion.player.display_name
    assert [int(r["rank"]) for r in rows][:4] == [1, 2, 3, 4]
    third = finished_event.pairings.select_related("winner__player").get(slot="3P")
    assert rows[2]["player"] == third.winner.player.display_name
    assert list(rows[0]) == ["rank", "player", "seed", "rating", "wins", "losses", "byes",
                             "tiebreak_wins", "status"]


def check_match_zip(finished_event):
    response = Client().get(f"/tournaments/{finished_event.pk}/matches.zip")
    assert response.status_code == 200
    assert response["Content-Type"] == "application/zip"
    archive = zipfile.ZipFile(io.BytesIO(response.content))
    names = archive.namelist()
    played = Match.objects.filter(table__tournament_pairing__tournament=finished_event)
    assert len(names) == played.count() == 5
    texts, states = [], []
    for name in names:
        text = archive.read(name).decode()
        match = played.get(pk=int(re.search(r"-(\d+)\.mat$", name).group(1)))
        assert '; [Event "Spring Open club, cup"]' in text  # colons are not allowed there
        assert re.search(r'; \[Round "[^"]+"\]', text)
        assert f'; [EventDate "{match.started_at:%Y.%m.%d}"]' in text
        texts.append(text)
        states.append(load_state(match))
    for name, state, answer in zip(names, states, import_in_gnubg(texts, processes=2),
                                   strict=True):
        assert_gnubg_agrees(state, answer, name)


def check_results_page(finished_event):
    page = Client().get(f"/tournaments/{finished_event.pk}/results/").content.decode()
    assert finished_event.champion.player.display_name in page
    for link in ("standings.csv", "results.csv", "matches.zip", "draw-sheet"):
        assert link in page
    assert "Placings" in page
    assert "Third-place match" in page


@pytest.mark.slow
@pytest.mark.skipif(gnubg_path() is None, reason="gnubg is not installed")
def test_a_whole_event_publishes_csvs_a_clean_mat_zip_and_a_results_page(make_tournament):
    """One event, five matches played move by move (playing them is the slow part)."""
    event = finished_event(make_tournament)
    check_results_csv(event)
    check_standings_csv(event)
    check_match_zip(event)
    check_results_page(event)


def test_a_draft_is_not_published(make_tournament):
    tournament = Tournament.objects.create(name="Secret")
    for path in ("results/", "results.csv", "standings.csv", "matches.zip"):
        assert Client().get(f"/tournaments/{tournament.pk}/{path}").status_code == 404
    running = make_tournament(2, start=True)
    assert Client().get(f"/tournaments/{running.pk}/matches.zip").status_code == 200


@pytest.mark.parametrize("fmt", ["single_elimination", "progressive_consolation",
                                 "double_elimination", "swiss"])
def test_every_published_page_survives_a_double_forfeit(make_tournament, fmt):
    from tests.tournaments.conftest import play_out
    from tournaments import services

    options = {"swiss": {"rounds": 2},
               "progressive_consolation": {"last_chance_rounds": 1, "third_place": True}}
    tournament = make_tournament(8, start=True, format=fmt, format_options=options.get(fmt, {}))
    row = open_pairings(tournament)[0]
    services.pairing_double_forfeit(pairing_id=row.pk, actor=tournament.director,
                                    reason="neither came")
    play_out(tournament)
    for path in ("", "results/", "draw-sheet/", "projector/", "score-cards/", "results.csv",
                 "standings.csv", "matches.zip"):
        assert Client().get(f"/tournaments/{tournament.pk}/{path}").status_code == 200, path
    lines = list(csv.DictReader(io.StringIO(
        Client().get(f"/tournaments/{tournament.pk}/results.csv").content.decode())))
    (forfeit,) = [line for line in lines if line["slot"] == row.slot]
    assert forfeit["winner"] == "" and forfeit["result"] == "double_forfeit"
