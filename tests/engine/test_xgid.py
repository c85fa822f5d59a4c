"""XGID (eXtreme Gammon's position text): reading, writing, round trips and bad input."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tavla.engine import (
    InvalidXgidError,
    MatchInfo,
    Position,
    Xgid,
    decode_match_id,
    encode_match_id,
    parse_xgid,
)
from tavla.engine.errors import EngineError

OPENING_52 = "XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:0:0:10"


def test_the_opening_position_with_5_2_to_play() -> None:
    xgid = parse_xgid(OPENING_52)
    assert xgid.position == Position.initial()
    assert xgid.player_on_roll == 0 and xgid.dice == (5, 2)
    assert xgid.cube_value == 1 and xgid.cube_owner is None and xgid.match_length == 0
    assert xgid.notation() == OPENING_52


def test_the_board_is_read_from_the_bottom_player_and_the_bars_at_either_end() -> None:
    # Top player on turn with a checker on their bar (first character), the bottom player
    # with two on theirs (last character), and a 3-2 to play, 5-point match, 2-1.
    text = "XGID=a-----E-C---eD---c-d----bB:0:0:-1:32:2:1:0:5:10"
    xgid = parse_xgid(text)
    assert xgid.player_on_roll == 1
    top, bottom = xgid.position.mover, xgid.position.opponent
    assert top[24] == 1 and bottom[24] == 2
    assert bottom[5] == 5 and bottom[7] == 3 and bottom[12] == 4
    assert top[24 - 24] == 2  # 'b' on the bottom player's 24 point is the top player's 1
    assert top[23 - 11] == 5  # 'e' on the bottom player's 12 point is the top player's 13
    assert xgid.score == (2, 1) and xgid.match_length == 5
    assert xgid.notation() == text


@pytest.mark.parametrize("text", [
    OPENING_52,
    "XGID=-b----E-C---eE---c-e----B-:1:-1:-1:D:2:1:0:7:10",
    "XGID=-b----E-C---eE---c-e----B-:2:1:1:00:3:6:0:7:10",
    "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:6:3:1:7:10",
    "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:3:0:10",
    "XGID=-b----E-C---eE---c-e----B-:0:0:1:25:0:0:0:0",  # nine fields: no maximum cube
    "XGID=---BBBCC-------------bbb--:0:0:-1:66:0:0:0:1:10",
])
def test_round_trips(text: str) -> None:
    assert parse_xgid(text).notation() == text
    assert parse_xgid(text.removeprefix("XGID=")).notation() == text


def test_a_double_on_the_table_is_the_doubled_players_decision() -> None:
    xgid = parse_xgid("XGID=-b----E-C---eE---c-e----B-:1:-1:-1:D:2:1:0:7:10")
    info = xgid.match_info()
    assert xgid.double_offered and info.double_offered
    assert info.player_on_roll == 1 and info.turn == 0
    assert info.cube_value == 2 and info.cube_owner == 1


def test_to_and_from_gnubg_ids() -> None:
    xgid = parse_xgid("XGID=-b----E-C---eE---c-e----B-:1:1:1:43:3:1:0:5:10")
    position_id, match_id = xgid.position.to_id(), encode_match_id(xgid.match_info())
    again = Xgid.from_match_info(Position.from_id(position_id), decode_match_id(match_id))
    assert again.notation() == xgid.notation()


@given(st.lists(st.integers(0, 23), min_size=1, max_size=15),
       st.lists(st.integers(0, 23), min_size=1, max_size=15),
       st.sampled_from([(0, 0), (6, 5), (3, 3), (2, 1)]), st.integers(0, 1),
       st.integers(0, 3), st.sampled_from([None, 0, 1]))
@settings(max_examples=150, deadline=None)
def test_any_position_round_trips(mover_points: list[int], opponent_points: list[int],
                                  dice: tuple[int, int], on_roll: int, cube: int,
                                  owner: int | None) -> None:
    mover = [0] * 25
    for point in mover_points:
        mover[point] += 1
    opponent = [0] * 25
    for point in opponent_points:
        if not mover[23 - point]:
            opponent[point] += 1
    if not any(opponent):
        opponent[24] = 1
    position = Position(mover, opponent)
    info = MatchInfo(cube_value=1 << cube, cube_owner=owner if cube else None,
                     player_on_roll=on_roll, turn=on_roll, dice=dice, match_length=9,
                     score=(3, 4))
    xgid = Xgid.from_match_info(position, info)
    again = parse_xgid(xgid.notation())
    assert again.position == position
    assert again.match_info() == info


@pytest.mark.parametrize(("text", "words"), [
    ("", "expected 10 fields"),
    ("XGID=-b----E-C---eE---c-e----B-:0:0:1:52", "expected 10 fields"),
    ("XGID=-b----E-C---eE---c-e----B:0:0:1:52:0:0:0:0:10", "26"),
    ("XGID=-b----E-C---eE---c-e----B-x:0:0:1:52:0:0:0:0:10", "26"),
    ("XGID=-b----E-C---eE---c-e----B*:0:0:1:52:0:0:0:0:10", "may hold only"),
    ("XGID=-b----E-C---eE---c-e----BP:0:0:1:52:0:0:0:0:10", "may hold only"),
    ("XGID=Ab----E-C---eE---c-e----B-:0:0:1:52:0:0:0:0:10", "top player's bar"),
    ("XGID=-b----E-C---eE---c-e----Ba:0:0:1:52:0:0:0:0:10", "bottom player's bar"),
    ("XGID=-b----E-C---eE---c-e----BB:0:0:1:52:0:0:0:0:10", "17 checkers"),
    ("XGID=--------------------------:0:0:1:52:0:0:0:0:10", "no checker"),
    ("XGID=-b----E-C---eE---c-e----B-:x:0:1:52:0:0:0:0:10", "cube value"),
    ("XGID=-b----E-C---eE---c-e----B-:16:0:1:52:0:0:0:0:10", "cube value"),
    ("XGID=-b----E-C---eE---c-e----B-:0:2:1:52:0:0:0:0:10", "cube position"),
    ("XGID=-b----E-C---eE---c-e----B-:0:1:1:00:0:0:0:0:10", "owned only once doubled"),
    ("XGID=-b----E-C---eE---c-e----B-:0:0:0:52:0:0:0:0:10", "turn"),
    ("XGID=-b----E-C---eE---c-e----B-:0:0:1:72:0:0:0:0:10", "dice"),
    ("XGID=-b----E-C---eE---c-e----B-:0:0:1:5:0:0:0:0:10", "dice"),
    ("XGID=-b----E-C---eE---c-e----B-:0:0:1:B:0:0:0:0:10", "beaver"),
    ("XGID=-b----E-C---eE---c-e----B-:0:0:1:52:7:0:0:7:10", "do not fit"),
    ("XGID=-b----E-C---eE---c-e----B-:0:0:1:52:-1:0:0:7:10", "bottom score"),
    ("XGID=-b----E-C---eE---c-e----B-:0:0:1:52:2:3:1:7:10", "Crawford"),
    ("XGID=-b----E-C---eE---c-e----B-:0:0:1:52:2:3:2:7:10", "Crawford"),
    ("XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:4:0:10", "Crawford/Jacoby"),
    ("XGID=-b----E-C---eE---c-e----B-:1:-1:1:D:0:0:0:7:10", "owns"),
    ("XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:0:0:99", "maximum cube"),
])
def test_bad_xgids_each_get_a_clear_error(text: str, words: str) -> None:
    with pytest.raises(InvalidXgidError, match=words) as caught:
        parse_xgid(text)
    assert isinstance(caught.value, EngineError) and isinstance(caught.value, ValueError)


def test_not_a_string() -> None:
    with pytest.raises(InvalidXgidError, match="is a string"):
        parse_xgid(12)  # type: ignore[arg-type]


def test_what_an_xgid_cannot_say() -> None:
    with pytest.raises(InvalidXgidError, match="resignation"):
        Xgid.from_match_info(Position.initial(), MatchInfo(resignation=1))
