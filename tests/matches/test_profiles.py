"""Player profiles: rating history graph, record against each opponent, experience in words."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

from django.test import Client
from django.utils import translation

from matches.models import Match, Player
from matches.players import profiles
from matches.players.rating_graph import RatingPoint, _nice_step, rating_graph_svg
from tests.matches.conftest import act

SVG = "{http://www.w3.org/2000/svg}"


def points(*ratings: float) -> list[RatingPoint]:
    start = datetime(2026, 1, 1, tzinfo=UTC)
    return [RatingPoint(start + timedelta(days=i), r) for i, r in enumerate(ratings)]


def test_the_graph_draws_one_dot_per_rating_in_order() -> None:
    svg = rating_graph_svg(points(1500, 1510, 1490.5, 1530), title="Rating <history>")
    root = ET.fromstring(svg)
    dots = root.findall(f"{SVG}circle")
    assert len(dots) == 4
    heights = [float(dot.get("cy", "0")) for dot in dots]
    # Higher ratings are drawn higher (smaller y): 1530 is the top, 1490.5 the bottom.
    assert heights.index(min(heights)) == 3 and heights.index(max(heights)) == 2
    assert root.find(f"{SVG}title").text == "Rating <history>"  # escaped, then parsed back
    assert "style=" not in svg  # the CSP allows no inline style
    assert "2026-01-01" in svg and "2026-01-04" in svg


def test_the_grid_uses_round_steps_and_digits_can_be_localised() -> None:
    assert [_nice_step(span) for span in (5, 12, 40, 90, 600)] == [1, 2, 10, 20, 100]
    svg = rating_graph_svg(points(1500, 1520), title="t",
                           format_number=lambda n: str(n).translate(str.maketrans("0125", "۰۱۲۵")))
    labels = re.findall(r'class="axis"[^>]*>([^<]+)<', svg)
    assert "۱۵۰۰" in labels and "1500" not in labels


def test_no_history_draws_nothing() -> None:
    assert rating_graph_svg([], title="t") == ""


def test_record_and_history_of_a_player(start_match: Callable[..., Match],
                                        make_player: Callable[..., Player],
                                        client: Client) -> None:
    me, rival, other = make_player("me"), make_player("rival"), make_player("other")
    for loser_seat, pair in ((0, (rival, me)), (1, (rival, me)), (0, (me, rival)),
                             (1, (other, me))):
        match = start_match(dice=[[3, 1]], match_length=1, is_rated=True, players=pair)
        act(match, loser_seat, "resign")
    me.refresh_from_db()
    record = {row.opponent.display_name: (row.won, row.lost)
              for row in profiles.record_against_opponents(me)}
    # The seat that resigns loses: me won the first, then lost three.
    assert record == {"rival": (1, 2), "other": (0, 1)}
    assert [row.opponent.display_name for row in profiles.record_against_opponents(me)] == [
        "rival", "other"]  # most played first
    history = profiles.rating_points(me)
    assert len(history) == 5 and history[0].rating == 1500.0
    assert history[-1].rating == me.rating

    html = client.get(f"/players/{me.pk}/").content.decode()
    assert html.count("<circle") == 5
    assert "Record against each opponent" in html
    assert f"{me.experience} points so far" in html


def test_experience_is_explained_in_words() -> None:
    with translation.override("en"):
        newcomer = profiles.experience_in_words(0)
        midway = profiles.experience_in_words(150)
        veteran = profiles.experience_in_words(1200)
        single = profiles.experience_in_words(1)
    assert "0 points so far" in newcomer and "5×" in newcomer and "400 more points" in newcomer
    assert "3.5×" in midway and "250 more points" in midway
    assert "1200 points so far" in veteran and "normal" in veteran
    assert "1 point so far" in single


def test_the_profile_speaks_persian_digits_in_the_graph(start_match: Callable[..., Match],
                                                         client: Client) -> None:
    match = start_match(dice=[[3, 1]], match_length=1, is_rated=True)
    act(match, 0, "resign")
    client.cookies["django_language"] = "fa"
    html = client.get(f"/players/{match.player1_id}/",
                      HTTP_ACCEPT_LANGUAGE="fa").content.decode()
    axis = re.findall(r'class="axis"[^>]*>([^<]+)<', html)
    assert axis and all(not any(ch.isascii() and ch.isdigit() for ch in label)
                        for label in axis if not re.match(r"\d{4}-", label))
