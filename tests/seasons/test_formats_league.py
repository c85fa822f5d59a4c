"""Season league: promotion and relegation between divisions."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from seasons.formats.league import LeagueError, next_season

FINALS = [["a1", "a2", "a3", "a4", "a5", "a6"],
          ["b1", "b2", "b3", "b4", "b5", "b6"],
          ["c1", "c2", "c3", "c4", "c5", "c6"]]


def test_the_top_two_go_up_and_the_bottom_two_go_down() -> None:
    assert next_season(FINALS, 2) == [
        ["a1", "a2", "a3", "a4", "b1", "b2"],
        ["a5", "a6", "b3", "b4", "c1", "c2"],
        ["b5", "b6", "c3", "c4", "c5", "c6"],
    ]


def test_leavers_go_and_newcomers_join_the_last_division() -> None:
    season = next_season(FINALS, 1, joining=["new"], leaving=["b6"])
    assert season[1] == ["a6", "b2", "b3", "b4", "b5", "c1"]
    assert season[2] == ["c2", "c3", "c4", "c5", "c6", "new"]


@pytest.mark.parametrize(("kwargs", "code"), [
    ({"move": 4}, "division_too_small"),
    ({"move": -1}, "bad_move"),
    ({"move": 1, "joining": ["a1"]}, "already_in_league"),
])
def test_bad_seasons_are_refused(kwargs: dict[str, object], code: str) -> None:
    with pytest.raises(LeagueError) as refused:
        next_season(FINALS, **kwargs)  # type: ignore[arg-type]
    assert refused.value.code == code
    with pytest.raises(LeagueError) as twice:
        next_season([["x", "y"], ["y", "z"]], 1)
    assert twice.value.code == "player_twice"


@given(st.integers(1, 5), st.integers(2, 10), st.integers(0, 2))
def test_every_player_moves_at_most_one_division_and_sizes_hold(
        divisions: int, size: int, move: int) -> None:
    if 2 * move > size:
        return
    finals = [[(d, p) for p in range(size)] for d in range(divisions)]
    season = next_season(finals, move)
    assert [len(division) for division in season] == [size] * divisions
    for number, division in enumerate(season):
        for old_division, place in division:
            assert abs(old_division - number) <= 1
            if old_division == number + 1:
                assert place < move  # came up: finished in the top `move`
            if old_division == number - 1:
                assert place >= size - move  # came down: finished in the bottom `move`
