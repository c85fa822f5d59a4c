"""One test per movement, entry and bear-off rule (as :mod:`tavla.engine.moves` states them),
with the rule sheets' examples.

Positions are written with :func:`board`: the mover's checkers by point (25 is the bar) and the
opponent's checkers *on the mover's point numbers*, so "the opponent holds my 21 point" reads
``{21: 2}``. Expected plays are in standard notation (see ``tavla.engine.notation``: one
checker's moves are joined, ``13/8 8/5`` is written ``13/5``). Every example is also in
``data/legal_plays.json`` with GNU Backgammon's own answer (see ``test_legal_reference.py``).
"""

from __future__ import annotations

import pytest

from tavla.engine import InvalidDiceError, Move, Position, legal_plays


def board(mover: dict[int, int], opponent: dict[int, int], opponent_bar: int = 0) -> Position:
    """The mover's checkers by point (25 = bar); the opponent's by the mover's point numbers."""
    theirs = {25 - point: count for point, count in opponent.items()}
    if opponent_bar:
        theirs[25] = opponent_bar
    return Position.from_points(mover, theirs)


def notations(position: Position, die1: int, die2: int) -> set[str]:
    return {play.notation() for play in legal_plays(position, die1, die2)}


# The mover's other checkers cannot move: 14 on the ace point while a checker is still back.
BACK_13 = {13: 1, 1: 14}
# Opponent checkers out of the way (the mover's 24 and 23 points are the opponent's 1 and 2).
FAR = {24: 2, 23: 2}

# (rule, position, die1, die2, every legal play); data/make_reference.py stores them with
# gnubg's answer.
RULE_EXAMPLES: list[tuple[str, Position, int, int, set[str]]] = [
    # Moving: both dice may move one checker, only through an open intermediate point.
    ("5-3 moves one checker through the open 8 point", board(BACK_13, {10: 2, **FAR}), 5, 3,
     {"13/5"}),
    ("5-3 moves one checker through the open 10 point", board(BACK_13, {8: 2, **FAR}), 5, 3,
     {"13/5"}),
    ("5-3 cannot pass two closed points", board({20: 1, 13: 1, 1: 13}, {10: 2, 8: 2, **FAR}),
     5, 3, {"20/12"}),
    ("5-3 moves two checkers or one", board({13: 2, 1: 13}, FAR), 5, 3,
     {"13/10 13/8", "13/5"}),
    # Doubles: four moves of the number.
    ("6-6 plays four sixes", board({13: 2, 8: 2, 1: 11}, FAR), 6, 6,
     {"13/1(2)", "13/1 13/7 8/2", "13/1 8/2(2)", "13/7(2) 8/2(2)"}),
    ("4-4 plays only the two fours it can", board({13: 1, 3: 14}, {1: 2, **FAR}), 4, 4,
     {"13/5"}),
    # Maximum dice usage and the higher die.
    ("only one die can be played: the higher one", board(BACK_13, {2: 2, **FAR}), 6, 5,
     {"13/7"}),
    ("only one die can be played: the lower one when the higher cannot",
     board(BACK_13, {7: 2, 2: 2, **FAR}), 6, 5, {"13/8"}),
    ("only one die can be played: the higher one, with two checkers outside",
     board({20: 1, 13: 1, 1: 13}, {15: 2, 14: 2, 2: 2}), 6, 5, {"13/7"}),
    ("only one die can be played: the lower one, with two checkers outside",
     board({20: 1, 13: 1, 1: 13}, {15: 2, 14: 2, 7: 2, 2: 2}), 6, 5, {"13/8"}),
    # The engine this replaced kept only 2/off here: it took an exact bear-off with the lower
    # die for a bear-off with the higher one.
    ("only the lower die can be played: bearing off or moving inside",
     board({4: 3, 2: 2}, {1: 2, **FAR}), 3, 2, {"2/off", "4/2"}),
    ("only one die can be played: the higher one, bearing off",
     board({6: 1, 4: 1}, {5: 2, 3: 2, 2: 2}), 4, 3, {"4/off"}),
    # Entering from the bar: a die n enters on the mover's point 25 - n.
    ("4-6 enters on 21 or 19", board({25: 1, 1: 14}, FAR), 6, 4, {"bar/15"}),
    ("4-6 enters with the 4 when 19 is closed, then plays the 6",
     board({25: 1, 13: 1, 1: 13}, {19: 2, 5: 2}), 6, 4, {"bar/21 13/7", "bar/15"}),
    ("4-6 cannot enter when 19 and 21 are closed", board({25: 1, 1: 14}, {19: 2, 21: 2}),
     6, 4, {""}),
    ("entering hits a blot", board({25: 1, 1: 14}, {21: 1, **FAR}), 6, 4,
     {"bar/21*/15", "bar/15"}),
    ("partial entry: the die that cannot enter is forfeited", board({25: 2, 1: 13}, {19: 2}),
     6, 4, {"bar/21"}),
    ("all closed: the turn passes", board({25: 2, 6: 13}, {19: 2, 20: 2, 21: 2, 22: 2, 23: 2,
     24: 2}, opponent_bar=3), 6, 5, {""}),
    # Bearing off.
    ("6-4 bears off from points 1-3: the larger dice from the highest point",
     board({3: 2, 2: 2, 1: 1}, FAR), 6, 4, {"3/off(2)"}),
    ("a checker on 5 stops the 4 bearing off from 3", board({5: 1, 3: 2}, FAR), 4, 1,
     {"5/1 3/2", "5/off"}),
    ("moving inside instead of bearing off is allowed", board({2: 1, 1: 1}, FAR), 2, 1,
     {"2/off 1/off", "2/off"}),
    ("no bear-off while a checker is outside the home board", board({7: 1, 1: 14}, FAR),
     6, 1, {"7/off"}),
    ("a checker hit during the bear-off comes home before bearing off resumes",
     board({25: 1, 2: 5, 1: 9}, FAR), 6, 5, {"bar/14"}),
]


@pytest.mark.parametrize(
    ("position", "die1", "die2", "expected"),
    [example[1:] for example in RULE_EXAMPLES],
    ids=[example[0] for example in RULE_EXAMPLES],
)
def test_rule_example(position: Position, die1: int, die2: int, expected: set[str]) -> None:
    assert notations(position, die1, die2) == expected
    assert notations(position, die2, die1) == expected  # the order of the dice is irrelevant


def test_moves_one_checker_through_the_open_point_only() -> None:
    (play,) = legal_plays(board(BACK_13, {10: 2, **FAR}), 5, 3)
    assert play.moves == (Move(13, 8), Move(8, 5))


def test_hitting_on_the_way_is_a_different_play() -> None:
    plays = legal_plays(board({13: 1, 1: 14}, {10: 1, **FAR}), 5, 3)
    by_notation = {play.notation(): play for play in plays}
    assert set(by_notation) == {"13/10*/5", "13/5"}
    assert by_notation["13/10*/5"].position.opponent[24] == 1  # on the bar
    assert by_notation["13/5"].position.opponent[24] == 0


def test_doubles_use_four_moves_whenever_possible() -> None:
    for play in legal_plays(Position.initial(), 6, 6):
        assert len(play.moves) == 4
        assert all(move.source - move.destination == 6 for move in play.moves)


def test_bar_entry_comes_first() -> None:
    for play in legal_plays(board({25: 1, 13: 1, 6: 13}, FAR), 3, 1):
        assert play.moves[0].source == 25
        assert all(move.source != 25 for move in play.moves[1:])


def test_a_pass_is_one_empty_play_with_the_position_unchanged() -> None:
    position = board({25: 1, 1: 14}, {19: 2, 21: 2})
    plays = legal_plays(position, 6, 4)
    assert len(plays) == 1
    assert plays[0].moves == ()
    assert plays[0].position == position
    assert plays[0].is_pass


def test_each_resulting_position_is_listed_once() -> None:
    for die1 in range(1, 7):
        for die2 in range(1, 7):
            plays = legal_plays(Position.initial(), die1, die2)
            assert len({play.position for play in plays}) == len(plays)


def test_opening_roll_counts_agree_with_gnu_backgammon() -> None:
    # Counted by gnubg's hint for the opening position.
    assert len(legal_plays(Position.initial(), 3, 1)) == 16
    assert len(legal_plays(Position.initial(), 1, 1)) == 42


@pytest.mark.parametrize("dice", [(0, 3), (3, 7), (True, 2), (2.0, 3), ("4", 1)])
def test_invalid_dice(dice: tuple[object, object]) -> None:
    with pytest.raises(InvalidDiceError):
        legal_plays(Position.initial(), *dice)  # type: ignore[arg-type]
