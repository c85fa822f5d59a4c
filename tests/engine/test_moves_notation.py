"""Play notation: what ``Play.notation`` prints and what ``parse_play`` accepts."""

from __future__ import annotations

import pytest

from tavla.engine import (
    IllegalPlayError,
    InvalidDiceError,
    InvalidNotationError,
    Move,
    Play,  # noqa: F401 - eval(repr(play)) below needs the name
    Position,
    legal_plays,
    parse_play,
)
from tavla.engine.plays import format_play

OPENING = Position.initial()


def board(mover: dict[int, int], opponent: dict[int, int]) -> Position:
    """The opponent's checkers are given by the mover's point numbers."""
    return Position.from_points(mover, {25 - p: n for p, n in opponent.items()})


@pytest.mark.parametrize(
    ("moves", "text"),
    [
        ((Move(24, 18), Move(13, 10)), "24/18 13/10"),
        ((Move(13, 10), Move(24, 18)), "24/18 13/10"),  # highest source first
        ((Move(25, 22, True),), "bar/22*"),
        ((Move(6, 0),), "6/off"),
        ((Move(8, 5), Move(8, 5)), "8/5(2)"),
        ((Move(24, 18), Move(18, 13)), "24/13"),  # one checker: its start and end
        ((Move(13, 10, True), Move(10, 8)), "13/10*/8"),  # ...with the point where it hit
        ((Move(13, 7), Move(13, 7), Move(8, 2), Move(7, 1)), "13/1 13/7 8/2"),
        ((Move(24, 23, True), Move(24, 23), Move(23, 22), Move(23, 22)), "24/23*/22(2)"),
        ((Move(13, 9), Move(9, 5), Move(13, 9), Move(13, 9)), "13/5 13/9(2)"),
        ((Move(3, 0), Move(3, 0)), "3/off(2)"),
        ((), ""),
    ],
)
def test_format(moves: tuple[Move, ...], text: str) -> None:
    assert format_play(moves) == text


def test_play_notation_and_repr() -> None:
    play = parse_play(OPENING, 3, 1, "8/5 6/5")
    assert play.notation() == "8/5 6/5"
    assert play.moves == (Move(8, 5), Move(6, 5))
    assert eval(repr(play)) == play  # the repr can be pasted back
    assert eval(repr(play.moves[0])) == play.moves[0]
    assert Move(25, 22, True).notation() == "bar/22*"
    assert Move(5, 0).notation() == "5/off"


@pytest.mark.parametrize(
    "text",
    ["24/18 13/10", "13/10 24/18", "24/18, 13/10", "  24/18   13/10 ", "24/18 13/10".upper()],
)
def test_parse_accepts_spacing_order_and_case(text: str) -> None:
    assert parse_play(OPENING, 6, 3, text).notation() == "24/18 13/10"


@pytest.mark.parametrize("text", ["24/13", "24/18/13", "24/18 18/13", "24/13(1)"])
def test_parse_one_checker_both_dice(text: str) -> None:
    assert parse_play(OPENING, 6, 5, text).notation() == "24/13"


@pytest.mark.parametrize("text", ["6/5(2) 8/7(2)", "8/7(2) 6/5(2)", "8/7 8/7 6/5 6/5",
                                  "8/7(2) 6/5 6/5"])
def test_parse_repeats(text: str) -> None:
    assert parse_play(OPENING, 1, 1, text).notation() == "8/7(2) 6/5(2)"


def test_parse_bar_off_and_hits() -> None:
    entering = board({25: 1, 6: 2, 1: 12}, {22: 1, 24: 2})
    for text in ("bar/22* 6/5", "b/22 6/5", "25/22* 6/5"):  # the * is optional
        assert parse_play(entering, 3, 1, text).notation() == "bar/22* 6/5"
    bearing_off = board({6: 2, 1: 13}, {24: 2})
    for text in ("6/off 1/off", "6/o 1/0", "1/off 6/off"):
        assert parse_play(bearing_off, 6, 1, text).notation() == "6/off 1/off"


def test_parse_the_route_that_hits_needs_its_star() -> None:
    position = board({13: 1, 1: 14}, {10: 1, 24: 2})
    assert parse_play(position, 5, 3, "13/5").notation() == "13/5"  # the route that does not hit
    assert parse_play(position, 5, 3, "13/10*/5").notation() == "13/10*/5"
    assert parse_play(position, 5, 3, "13/10/5").notation() == "13/10*/5"  # it stops on 10


def test_parse_ambiguous_route() -> None:
    position = board({13: 1, 1: 14}, {10: 1, 8: 1, 24: 2})
    with pytest.raises(InvalidNotationError, match="13/10\\*/5 or 13/8\\*/5"):
        parse_play(position, 5, 3, "13/5")
    assert parse_play(position, 5, 3, "13/8*/5").notation() == "13/8*/5"


def test_parse_a_pass() -> None:
    closed = board({25: 1, 1: 14}, {19: 2, 21: 2})
    for text in ("", "pass", "(no legal play)", " PASS "):
        assert parse_play(closed, 6, 4, text).is_pass
    with pytest.raises(IllegalPlayError, match="turn passes"):
        parse_play(closed, 6, 4, "bar/21")
    with pytest.raises(IllegalPlayError, match="cannot pass"):
        parse_play(OPENING, 6, 4, "pass")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("24-18", "needs a '/'"),
        ("24", "needs a '/'"),
        ("24/x", "not a point"),
        ("26/20", "no point 26"),
        ("18/24", "higher to lower"),
        ("13/13", "higher to lower"),
        ("off/3", "borne off moves no further"),
        ("13/bar", "cannot move to the bar"),
        ("13*/7", "hits where it lands"),
        ("6/off*", "off the board"),
        ("8/5(5)", "1 to 4 times"),
        ("8/5(2", "not a move"),
    ],
)
def test_unreadable_text(text: str, message: str) -> None:
    with pytest.raises(InvalidNotationError, match=message):
        parse_play(OPENING, 3, 1, text)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("24/18", "not a legal play with 6-5"),  # both dice must be played
        ("13/7 13/7", "not a legal play"),
        ("20/14 13/8", "more checkers from point 20"),
        ("bar/19 13/8", "from the bar"),
        ("24/18* 13/8", "no blot to hit on 18"),
        ("24/13 8/3", "not a legal play"),
    ],
)
def test_illegal_plays(text: str, message: str) -> None:
    with pytest.raises(IllegalPlayError, match=message):
        parse_play(OPENING, 6, 5, text)


def test_a_stop_on_a_closed_point_is_illegal() -> None:
    position = board({13: 1, 1: 14}, {10: 2, 24: 2})
    with pytest.raises(IllegalPlayError, match="cannot stop on 10"):
        parse_play(position, 5, 3, "13/10/5")


def test_bad_dice_and_types() -> None:
    with pytest.raises(InvalidDiceError):
        parse_play(OPENING, 7, 1, "8/1")
    with pytest.raises(InvalidNotationError):
        parse_play(OPENING, 3, 1, None)  # type: ignore[arg-type]


def test_every_opening_play_reads_back() -> None:
    for die1 in range(1, 7):
        for die2 in range(1, 7):
            for play in legal_plays(OPENING, die1, die2):
                assert parse_play(OPENING, die1, die2, play.notation()) == play


def test_the_short_notation_paths_agree_with_the_general_one() -> None:
    """format_play names one- and two-move plays by a shortcut: it gives what the general
    chaining gives, for every legal play of many self-played rolls."""
    import random

    from tavla.engine.match import MatchState
    from tavla.engine.plays import _chains
    from tavla.engine.rules import Rules
    from tavla.engine.selfplay import SelfPlayOptions, choose_action

    rng, checked = random.Random(11), 0
    state = MatchState.new(Rules(match_length=5))
    while checked < 20_000:
        if state.is_over:
            state = MatchState.new(Rules(match_length=5))
        for play in state.legal_plays():
            assert format_play(play.moves) == _chains(play.moves), play
            assert format_play(play.moves[::-1]) == _chains(play.moves[::-1]), play
            checked += 1
        state = state.apply(choose_action(state, rng, SelfPlayOptions()))
