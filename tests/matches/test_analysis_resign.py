"""A match's resignation offers in its analysis (gnubg, no mock): the offer and its answer
are read from the match's own events (the ``.mat`` cannot carry them), judged, marked, left
out of PR, and tied on the review to the offer's position, with translated words."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from django.test import Client

from matches.analysis_review import decision_rows
from matches.analysis_words import analysis_word
from matches.gnubg.evaluation import analysis_run
from matches.models import Match
from matches.review import review_data
from matches.services import match_act
from tests.matches.conftest import act

# Player 0 wins the opening 3-1 and plays it; player 1 is then to double or roll.
OPENING = [[3, 1], [6, 4], [5, 2], [4, 1]]


def _resign_act(match: Match, seat: int, action: str, level: int | None = None) -> Match:
    match.refresh_from_db()
    player = match.player0 if seat == 0 else match.player1
    extra = {} if level is None else {"level": level}
    match_act(match_id=match.pk, player=player, action=action,
              expected_version=match.version, **extra)
    match.refresh_from_db()
    return match


@pytest.mark.django_db
def test_resignation_offers_are_analysed_and_shown(start_match: Callable[..., Match],
                                                   client: Client) -> None:
    match = start_match(dice=OPENING, match_length=1, resignation="offer")
    match = act(match, 0, "play", "8/5 6/5")
    # In the opening, player 1 offers a backgammon (refused), then a single game (accepted).
    match = _resign_act(match, 1, "resign", level=3)
    match = _resign_act(match, 0, "reject_resign")
    match = _resign_act(match, 1, "resign", level=1)
    match = _resign_act(match, 0, "accept_resign")
    assert match.is_finished

    analysis = analysis_run(match.pk)
    resign = [d for d in analysis.decisions if d["kind"].endswith("resign")]
    assert [(d["kind"], d["player"], d["chosen"]) for d in resign] == [
        ("resign", 1, "resign backgammon"), ("reject_resign", 0, "reject"),
        ("resign", 1, "resign single"), ("accept_resign", 0, "accept")]
    offer, refusal, single, accept = resign
    # Giving the game away in the opening: blunders; refusing a whole game too.
    assert offer["mark"] == single["mark"] == "blunder" and offer["best"] == "play on"
    assert refusal["mark"] == "blunder" and refusal["best"] == "accept"
    assert accept["mark"] == "" and accept["loss"] == 0.0
    assert all(not d["counted"] for d in resign)
    assert {"level", "play_on", "resigned", "mwc_play_on", "mwc_resigned"} <= set(
        offer["resign"])
    # Never in PR: each player's counts are of the counted decisions only.
    for seat, player in enumerate(analysis.players):
        assert player["decisions"] == sum(1 for d in analysis.decisions
                                          if d["counted"] and d["player"] == seat)

    review = review_data(match)
    rows = [row for row in decision_rows(analysis.decisions, ["a", "b"], review)
            if row["kind"].endswith("resign")]
    events = review["games"][0]["events"]
    assert [events[row["event"][1]]["type"] for row in rows] == [
        "resign_offer", "resign_reject", "resign_offer", "resign"]
    for row in rows:
        assert row["frame"] is not None and row["equities"] is None
        assert row["played_moves"] == [] and row["sign"] in ("", "??")
        assert row["chosen_text"] == analysis_word(row["chosen"])
    html = client.get(f"/matches/{match.pk}/").content.decode()
    assert 'data-kind="resign"' in html and str(analysis_word("resign backgammon")) in html
