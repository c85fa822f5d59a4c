"""The analysis tied to the review's board (matches/analysis_review.py): each decision's row
shows the position it was taken in, with the dice; the played and best plays resolve to
moves; marks get their signs; the graph gets a point per decision; cube decisions their
equities and verdict. The words shown are ours and translated; the profile's links land on
the one visible analysis section.

The real-match test plays a 3-point match between two gnubg bots and analyses it with gnubg
(no mock): the dice are the server's, so the assertions hold for any match.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.utils import translation

from matches import services
from matches.analysis_review import cube_verdict, decision_rows, player_rows
from matches.analysis_words import MARK_SIGNS, analysis_word
from matches.gnubg.bots import bot_player
from matches.gnubg.evaluation import analysis_run, bot_act
from matches.models import Match, MatchAnalysis
from matches.review import review_data
from matches.selectors import board_dict
from tavla.engine import Position


def _analysed_bot_match(length: int = 3) -> tuple[Match, MatchAnalysis]:
    table = services.table_create(name="Bots", match_length=length)
    services.table_sit(table_id=table.pk, player=bot_player("beginner"), seat=0)
    services.table_sit(table_id=table.pk, player=bot_player("intermediate"), seat=1)
    match = Match.objects.get(table=table)
    for _ in range(3000):
        match.refresh_from_db()
        if match.is_finished:
            break
        assert bot_act(match_id=match.pk, version=match.version)
    assert match.is_finished
    return match, analysis_run(match.pk)


def _seen_board(row: dict[str, Any]) -> dict[str, Any]:
    """The board (player 0's side) of the decision's position, read from its Position ID."""
    position = Position.from_id(row["position_id"])
    return board_dict(position if row["player"] == 0 else position.swap())


@pytest.mark.django_db
def test_every_decision_of_a_real_analysed_match_is_tied_to_its_position(
        client: Client) -> None:
    match, analysis = _analysed_bot_match()
    review = review_data(match)
    rows = decision_rows(analysis.decisions, ["a", "b"], review)
    shown = [d for d in analysis.decisions if d["kind"] != "no_double" or d["counted"]]
    assert [row["number"] for row in rows] == list(range(len(shown)))
    assert len(rows) == len(shown) > 10
    for row in rows:
        frame = review["frames"][row["frame"]]
        # the board shows the position the decision was taken in
        assert frame["board"] == _seen_board(row), row
        if row["kind"] == "move":
            # the move list entry is the play itself, and it resolves to the played moves
            game, place = row["event"]
            event = review["games"][game]["events"][place]
            assert event["type"] in ("play", "auto_pass") and event["player"] == row["player"]
            if event["type"] == "play":  # a roll that passes at once has no frame of its own
                assert frame["phase"] == "move" and frame["player_on_roll"] == row["player"]
                assert sorted(frame["dice"]) == sorted(row["dice"])
            if row["chosen"]:
                assert row["played_moves"], row
                assert all(25 >= a > b >= 0 for a, b in row["played_moves"])
            if row["best"] and row["best"] != row["chosen"]:
                assert row["best_moves"] and row["best_moves"] != row["played_moves"]
        elif row["kind"] in ("take", "drop"):
            assert frame["phase"] == "cube_offered" and frame["player_to_act"] == row["player"]
        else:  # double, or a counted no double: before the roll
            assert frame["phase"] == "turn_start" and frame["player_on_roll"] == row["player"]
            game, place = row["event"]
            event = review["games"][game]["events"][place]
            # a missed double's mark goes on the roll that followed it
            assert event["type"] == ("roll" if row["kind"] == "no_double" else "double")
            assert event.get("player") in (row["player"], None)
        assert row["sign"] == MARK_SIGNS.get(row["mark"], "")
        # gnubg's own cubeless winning chance, not the older analyses' estimate
        assert row["win"] is not None and 0.0 <= row["win"] <= 1.0 and not row["win_estimated"]
        if row["kind"] != "move":
            assert row["equities"] and row["verdict"] in (
                "no_double_take", "double_take", "double_pass", "too_good_pass")
            assert row["played_moves"] == [] and row["best_moves"] == []
    assert any(row["kind"] == "move" and row["mark"] in ("error", "blunder") for row in rows)

    # the page: one visible #analysis, each row tied to its frame, the data for the script
    html = client.get(f"/matches/{match.pk}/").content.decode()
    assert html.count('id="analysis"') == 1
    assert 'id="analysis" hidden' not in html and 'data-slot="analysis"' not in html
    data = json.loads(re.search(r'<script id="analysis-data" type="application/json">(.*?)'
                                r"</script>", html, re.S).group(1))
    assert [(d["number"], d["frame"]) for d in data] == [(r["number"], r["frame"])
                                                          for r in rows]
    for row in rows:
        assert f'data-decision="{row["number"]}"' in html

    # the referee's replay ties the same rows to its own (every event) frames
    User.objects.create_superuser("ref", password="x")
    client.force_login(User.objects.get(username="ref"))
    html = client.get(f"/admin/matches/match/{match.pk}/replay/").content.decode()
    assert html.count('id="analysis"') == 1 and 'id="analysis-data"' in html
    replay = review_data(match, with_log=True)
    for row in decision_rows(analysis.decisions, ["a", "b"], replay):
        assert replay["frames"][row["frame"]]["board"] == _seen_board(row)

    # in Persian and Turkish the words come from our catalogue, not gnubg's English
    for language in ("fa", "tr"):
        client.cookies["django_language"] = language
        page = client.get(f"/matches/{match.pk}/").content.decode()
        table = page[page.index('id="analysis"'):page.index("</section>",
                                                           page.index('id="analysis"'))]
        for player in analysis.players:
            with translation.override(language):
                assert analysis_word(player["rating"]) in table
            assert f">{player['rating']}<" not in table
        for mark in ("doubtful", "error", "blunder"):
            assert re.search(rf'class="mark" id="decision-\d+-mark">{mark}<', table) is None

    # the profile's PR links land on that one section
    client.cookies["django_language"] = "en"
    profile = client.get(f"/players/{match.player0_id}/").content.decode()
    assert f'href="/matches/{match.pk}/#analysis"' in profile


def test_older_analyses_without_the_newer_fields_still_show() -> None:
    decisions = [
        # a checker play as stored before per-decision win chances existed
        {"game": 1, "index": 0, "player": 1, "kind": "move", "position_id": "4HPwATDgc/ABMA",
         "chosen": "13/11 6/5", "best": "24/23 13/11", "equity": -0.2, "best_equity": 0.0,
         "loss": 0.2, "mark": "blunder", "counted": True, "dice": [2, 1]},
        # a newer one: win_chance and cube_equities are used as they are
        {"game": 1, "index": 1, "player": 0, "kind": "double", "position_id": "4HPwATDgc/ABMA",
         "chosen": "double", "best": "no double", "equity": 0.1, "best_equity": 0.2,
         "loss": 0.1, "mark": "error", "counted": True, "win_chance": 0.61,
         "cube_equities": {"no_double": 0.2, "double_take": 0.1, "double_pass": 1.0}},
        # nothing to plot, notation that does not resolve: no crash, no point, no arrows
        {"game": 9, "index": 0, "player": 0, "kind": "move", "position_id": "4HPwATDgc/ABMA",
         "chosen": "1/0", "best": "", "equity": 0.0, "loss": 0.0, "mark": "",
         "counted": True, "dice": [6, 6]},
    ]
    rows = decision_rows(decisions, ["a", "b"], None)
    assert [row["frame"] for row in rows] == [None, None, None]
    assert rows[0]["played_moves"] == [[13, 11], [6, 5]]
    assert sorted(rows[0]["best_moves"]) == [[13, 11], [24, 23]]
    assert rows[0]["win"] == 0.5 and rows[0]["win_estimated"]  # player 1 at equity 0
    assert rows[0]["sign"] == "??"
    assert rows[1]["win"] == 0.61 and not rows[1]["win_estimated"]
    assert rows[1]["equities"] == {"no_double": 0.2, "double_take": 0.1, "double_pass": 1.0}
    assert rows[1]["verdict"] == "no_double_take" and rows[1]["sign"] == "?"
    assert rows[2]["win"] is None and rows[2]["played_moves"] == []


@pytest.mark.parametrize(("equities", "verdict"), [
    ({"no_double": 0.3, "double_take": 0.5, "double_pass": 1.0}, "double_take"),
    ({"no_double": 0.6, "double_take": 1.4, "double_pass": 1.0}, "double_pass"),
    ({"no_double": 1.2, "double_take": 1.6, "double_pass": 1.0}, "too_good_pass"),
    ({"no_double": 0.2, "double_take": 0.1, "double_pass": 1.0}, "no_double_take"),
    (None, ""),
])
def test_the_cube_verdict_follows_the_equities(equities: dict[str, float] | None,
                                               verdict: str) -> None:
    assert cube_verdict(equities) == verdict


def test_rating_and_luck_words_are_translated_for_the_page() -> None:
    with translation.override("tr"):
        (row,) = player_rows([{"rating": "Awful!", "luck_rating": "Go to Las Vegas"}])
        assert (row["rating_text"], row["luck_rating_text"]) == ("Berbat!", "Las Vegas'a git")
        assert row["rating"] == "Awful!"  # the data keeps gnubg's key
