"""Arena rules: the scoring table, the leaderboard and pairing free players."""

from __future__ import annotations

from itertools import combinations

from hypothesis import given, settings
from hypothesis import strategies as st

from seasons.formats.arena import (
    STREAK_POINTS,
    WIN_POINTS,
    ArenaResult,
    last_opponents,
    leaderboard,
    pair_free,
    scores,
)


def results_of(*games: tuple[str, str]) -> list[ArenaResult]:
    return [ArenaResult(winner, loser, float(n)) for n, (winner, loser) in enumerate(games)]


def test_a_win_scores_two_and_double_after_two_wins_in_a_row_until_a_loss() -> None:
    games = results_of(("a", "b"), ("a", "c"), ("a", "b"), ("a", "c"), ("b", "a"), ("a", "c"))
    score = scores("abc", games)["a"]
    assert score.sheet == (2, 2, 4, 4, 0, 2)
    assert (score.points, score.wins, score.played, score.streak) == (14, 5, 6, 1)
    assert not score.on_fire
    assert scores("abc", games[:3])["a"].on_fire


def test_results_count_in_the_order_they_finished_not_the_order_given() -> None:
    games = results_of(("a", "b"), ("a", "c"), ("a", "b"))
    assert scores("abc", reversed(games))["a"].sheet == (2, 2, 4)


def test_a_result_of_someone_who_never_joined_is_refused() -> None:
    try:
        scores("ab", results_of(("a", "z")))
    except ValueError as error:
        assert "'z'" in str(error)
    else:
        raise AssertionError("accepted a stranger's result")


def test_leaderboard_ranks_by_points_then_wins_then_who_got_there_first() -> None:
    # c and a both end on 4 points with 2 wins; a reached 4 first.
    games = results_of(("a", "b"), ("a", "d"), ("c", "b"), ("c", "d"), ("d", "b"))
    board = leaderboard("abcd", games)
    assert [(s.player, s.points) for s in board] == [("a", 4), ("c", 4), ("d", 2), ("b", 0)]


@st.composite
def histories(draw: st.DrawFn) -> tuple[list[int], list[ArenaResult]]:
    players = list(range(draw(st.integers(2, 8))))
    games = draw(st.lists(st.tuples(st.sampled_from(players), st.sampled_from(players))
                          .filter(lambda g: g[0] != g[1]), max_size=40))
    return players, [ArenaResult(won, lost, float(n)) for n, (won, lost) in enumerate(games)]


@given(histories())
def test_points_recomputed_from_each_players_own_results_agree(
        history: tuple[list[int], list[ArenaResult]]) -> None:
    players, games = history
    table = scores(players, games)
    for player in players:
        streak = points = 0
        for game in games:
            if game.winner == player:
                points += STREAK_POINTS if streak >= 2 else WIN_POINTS
                streak += 1
            elif game.loser == player:
                streak = 0
        assert (table[player].points, table[player].streak) == (points, streak)
        assert sum(table[player].sheet) == points
    assert sum(s.wins for s in table.values()) == len(games)
    assert sum(s.played for s in table.values()) == 2 * len(games)


def largest_without_rematch(free: list[int], last: dict[int, int]) -> int:
    """The most pairs of ``free`` avoiding every rematch, by trying every set (small n)."""
    edges = [(a, b) for a, b in combinations(free, 2) if last.get(a) != b and last.get(b) != a]
    best = 0
    for size in range(len(free) // 2, 0, -1):
        for chosen in combinations(edges, size):
            if len({p for edge in chosen for p in edge}) == 2 * size:
                return size
    return best


@st.composite
def free_players(draw: st.DrawFn) -> tuple[list[int], dict[int, int], dict[int, int]]:
    everyone = list(range(draw(st.integers(0, 9))))
    free = draw(st.lists(st.sampled_from(everyone), unique=True)) if everyone else []
    points = {p: draw(st.integers(0, 12)) for p in everyone}
    # Each player's last opponent: the pairs of one earlier wave of matches.
    shuffled = draw(st.permutations(everyone))
    last: dict[int, int] = {}
    for a, b in zip(shuffled[::2], shuffled[1::2], strict=False):
        if draw(st.booleans()):
            last[a], last[b] = b, a
    return free, points, last


@settings(max_examples=300)
@given(free_players())
def test_pairing_never_repeats_a_last_match_while_another_player_is_free(
        case: tuple[list[int], dict[int, int], dict[int, int]]) -> None:
    free, points, last = case
    pairs = pair_free(free, points, last)
    paired = [p for pair in pairs for p in pair]
    assert len(paired) == len(set(paired)) and set(paired) <= set(free)
    for a, b in pairs:
        if last.get(a) == b:
            assert sorted(free) == sorted((a, b)), "a rematch while others were free"
    if not (len(free) == 2 and last.get(free[0]) == free[1]):
        assert len(pairs) == largest_without_rematch(free, last), "someone waits needlessly"


def test_pairing_takes_the_nearest_score() -> None:
    points = {"a": 10, "b": 9, "c": 2, "d": 1}
    assert pair_free(["c", "a", "d", "b"], points, {}) == [("a", "b"), ("c", "d")]


def test_pairing_gives_up_the_nearest_score_rather_than_force_a_rematch() -> None:
    # a-b is nearest, but then c and d, who just met, would have to meet again.
    points = {"a": 10, "b": 9, "c": 8, "d": 7}
    pairs = pair_free(["a", "b", "c", "d"], points, {"c": "d", "d": "c"})
    assert pairs == [("a", "c"), ("b", "d")]


def test_the_only_two_free_players_meet_again_rather_than_wait() -> None:
    assert pair_free(["a", "b"], {}, {"a": "b", "b": "a"}) == [("a", "b")]
    assert pair_free(["a", "b", "c"], {"a": 1, "b": 1, "c": 0}, {"a": "b", "b": "a"}) == [
        ("a", "c")]


def test_last_opponents_follow_the_latest_match() -> None:
    games = results_of(("a", "b"), ("c", "a"))
    assert last_opponents(games) == {"a": "c", "b": "a", "c": "a"}
