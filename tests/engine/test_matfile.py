"""Jellyfish .mat export: the exact layout, and GNU Backgammon importing what we write."""

from __future__ import annotations

import random
from typing import Any

import pytest

from tavla.engine.actions import (
    Action,
    Double,
    Drop,
    Forfeit,
    NewGame,
    OpeningRoll,
    PlayMove,
    Resign,
    Roll,
    Take,
)
from tavla.engine.match import MatchState
from tavla.engine.match_id import decode_match_id, gnubg_ids
from tavla.engine.matfile import export_mat, mat_move, mat_name
from tavla.engine.plays import Move
from tavla.engine.position import Position
from tavla.engine.rules import Rules
from tavla.engine.selfplay import SelfPlayOptions, play_match
from tests.engine.gnubg_ref import gnubg_path, run_gnubg_scripts


def test_layout_of_a_short_match() -> None:
    state = MatchState.new(Rules(match_length=3))
    actions: list[Action] = [
        OpeningRoll(2, 5),  # player 1 opens with 52
        PlayMove("13/8 13/11"),
        Roll(6, 4), PlayMove("13/7 13/9"),
        Double(), Take(),  # player 1 doubles, player 0 takes
        Roll(3, 1), PlayMove("8/5 6/5"),
        Double(), Drop(),  # player 0 redoubles, player 1 drops: player 0 wins 2
        NewGame(), OpeningRoll(6, 6), OpeningRoll(4, 1),  # a tie, then player 0 opens
        PlayMove("24/23 13/9"),
        Resign(1),
    ]
    for action in actions:
        state = state.apply(action)
    text = export_mat(state, names=("Alice", "Bob"))
    assert text == (
        '; [Site "Tavla"]\n'
        '; [Player 1 "Alice"]\n'
        '; [Player 2 "Bob"]\n'
        '; [Variation "Backgammon"]\n'
        '; [Crawford "On"]\n'
        '; [CubeLimit "64"]\n'
        "\n"
        " 3 point match\n"
        "\n"
        " Game 1\n"
        " Alice : 0                      Bob : 0\n"
        "  1)                             52: 13/8 13/11\n"
        "  2) 64: 13/7 13/9                Doubles => 2\n"
        "  3)  Takes                      31: 8/5 6/5\n"
        "  4)  Doubles => 4                Drops\n"
        "      Wins 2 points\n"
        "\n"
        " Game 2\n"
        " Alice : 2                      Bob : 0\n"
        "  1) 41: 13/9 24/23\n"
        "      Wins 1 point\n"
        "\n"
    )


def test_a_win_by_the_right_column_after_its_own_cell_gets_a_line() -> None:
    state = MatchState.new(Rules(match_length=1))
    state = state.apply(OpeningRoll(1, 3)).apply(PlayMove("8/5 6/5")).apply(Resign(0))
    lines = export_mat(state).splitlines()
    assert lines[-3:] == [
        "  1)                             31: 8/5 6/5",
        " " * 34 + "Wins 1 point",
        "",
    ]


def test_hits_bar_and_bear_off_use_mat_numbers() -> None:
    assert mat_move(Move(25, 21, True)) == "25/21*"
    assert mat_move(Move(6, 0)) == "6/0"
    assert mat_move(Move(13, 7)) == "13/7"
    state, _ = play_match(Rules(match_length=3), 11, SelfPlayOptions(double=0))
    text = export_mat(state)
    plays = [event.play or "" for game in state.games for event in game.events]
    assert any("bar/" in play for play in plays) and "25/" in text and "bar" not in text
    assert any("/off" in play for play in plays) and "/0" in text and "off" not in text
    assert any("*" in play for play in plays) and "*" in text


def test_names_are_made_safe() -> None:
    assert mat_name("Ali: the [best]") == "Ali the best"
    assert mat_name("  ") == "Player"
    assert len(mat_name("x" * 80)) == 31


def test_a_roll_left_unplayed_is_written_as_dice_alone() -> None:
    state = MatchState.new(Rules(match_length=5))
    state = state.apply(OpeningRoll(5, 3)).apply(PlayMove("8/3 6/3"))
    state = state.apply(Roll(6, 2)).apply(Resign(1))
    assert "  1) 53: 8/3 6/3                 62:\n      Wins 1 point" in export_mat(state)


def test_running_match_and_unstarted_game() -> None:
    state = MatchState.new(Rules(match_length=5))
    assert "Game" not in export_mat(state)
    state = state.apply(OpeningRoll(5, 3))
    assert " Game 1" in export_mat(state) and "Wins" not in export_mat(state)


def test_money_session_is_a_zero_point_match() -> None:
    state, _ = play_match(Rules(), 3, SelfPlayOptions(session_games=2))
    assert "\n 0 point match\n" in export_mat(state)


# -- GNU Backgammon imports it ------------------------------------------------------------

needs_gnubg = pytest.mark.skipif(gnubg_path() is None, reason="gnubg is not installed")

# Runs inside gnubg: import each .mat, capture what gnubg prints while importing, and report
# the games it reconstructed.
IMPORT_SCRIPT = """
import gnubg, os, sys
folder = os.path.dirname(os.environ["TAVLA_GNUBG_OUT"])
gnubg.command("set display off")
gnubg.command("set jacoby off")
answers = []
for index, text in enumerate(PAYLOAD):
    name = os.path.join(folder, "m-%d-%d.mat" % (os.getpid(), index))
    with open(name, "w") as f:
        f.write(text)
    capture = name + ".out"
    sys.stdout.flush()
    saved = os.dup(1)
    fd = os.open(capture, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
    os.dup2(fd, 1)
    gnubg.command("import mat " + name)
    sys.stdout.flush()
    os.dup2(saved, 1)
    os.close(fd)
    with open(capture) as f:
        printed = f.read()
    match = gnubg.match(analysis=0, boards=0, statistics=0, verbose=0)
    games = []
    for game in match["games"]:
        info = game["info"]
        games.append({
            "score": [info["score-X"], info["score-O"]],
            "winner": info.get("winner"),
            "points": info.get("points-won"),
            "resigned": info.get("resigned"),
            "crawford": bool(info.get("crawford")),
            "actions": len(game["game"]),
        })
    answers.append({"printed": printed, "games": games,
                    "length": match["match-info"]["match-length"],
                    "ids": [gnubg.positionid(), gnubg.matchid()]})
emit(answers)
"""

COMPLAINTS = ("warning", "unrecognised", "illegal", "invalid", "not a valid", "record found",
              "error", "dead", "forbidden", "not own")


def import_in_gnubg(texts: list[str], processes: int = 8) -> list[dict[str, Any]]:
    chunks = [texts[i::processes] for i in range(processes)]
    answers = run_gnubg_scripts(IMPORT_SCRIPT, [c for c in chunks if c], timeout=900)
    merged: list[dict[str, Any]] = [{} for _ in texts]
    for i, chunk in enumerate(answers):
        for j, answer in enumerate(chunk):
            merged[i + j * processes] = answer
    return merged


def assert_gnubg_agrees(state: MatchState, answer: dict[str, Any], label: str) -> None:
    printed = answer["printed"].lower()
    assert not any(word in printed for word in COMPLAINTS), f"{label}: gnubg said {printed}"
    games = [game for game in state.games if game.events or game.result]
    assert len(answer["games"]) == len(games), label
    for ours, theirs in zip(games, answer["games"], strict=True):
        where = f"{label}, game {ours.number}"
        assert theirs["score"] == list(ours.score_before), where
        assert theirs["crawford"] == ours.crawford, where
        if ours.result is not None:
            assert theirs["winner"] == "XO"[ours.result.winner], where
            assert theirs["points"] == ours.result.points, where
            assert theirs["resigned"] == (ours.result.reason.value == "resign"), where
    assert answer["length"] == (state.rules.match_length or 0), label


@needs_gnubg
@pytest.mark.slow
def test_gnubg_imports_random_matches_and_agrees_on_every_game() -> None:
    rng = random.Random(2024)
    states = []
    for index in range(120):
        rules = Rules(match_length=rng.choice([None, 1, 3, 5, 7, 11]))
        options = SelfPlayOptions(
            double=rng.choice([0.03, 0.1, 0.3]), take=rng.choice([0.5, 0.8, 1.0]),
            resign=rng.choice([0.0, 0.005, 0.02]), session_games=4, live_cube_only=True,
        )
        state, _ = play_match(rules, 10_000 + index, options)
        states.append(state)
    texts = [export_mat(state, names=("Alice Smith", "Bob")) for state in states]
    answers = import_in_gnubg(texts)
    for index, (state, answer) in enumerate(zip(states, answers, strict=True)):
        assert_gnubg_agrees(state, answer, f"match {index}")
        # gnubg ends where we end: the same board, cube, score and game state. (After an
        # import gnubg leaves the turn and the Crawford flag of a finished match as its
        # replay of the record left them; test_match_id checks those against live play.)
        position_id, match_id = gnubg_ids(state)
        theirs, ours = decode_match_id(answer["ids"][1]), decode_match_id(match_id)
        assert answer["ids"][0] == position_id, f"match {index}"
        fields = ("cube_value", "cube_owner", "score", "match_length", "game_state", "jacoby")
        assert [getattr(theirs, f) for f in fields] == [getattr(ours, f) for f in fields], index
    assert sum(len(state.games) for state in states) > 300


@needs_gnubg
@pytest.mark.slow
def test_gnubg_imports_running_matches_and_a_forfeit() -> None:
    rng = random.Random(5)
    states = []
    for index in range(12):
        state, actions = play_match(Rules(match_length=7), 500 + index,
                                    SelfPlayOptions(live_cube_only=True))
        cut = rng.randrange(1, len(actions))
        running = MatchState.replay(Rules(match_length=7), actions[:cut])
        states.append(running)
    forfeited = MatchState.new(Rules(match_length=5)).apply(OpeningRoll(6, 1))
    forfeited = forfeited.apply(PlayMove("13/7 8/7")).apply(Forfeit(1))
    states.append(forfeited)
    answers = import_in_gnubg([export_mat(state) for state in states], processes=4)
    for index, (state, answer) in enumerate(zip(states, answers, strict=True)):
        printed = answer["printed"].lower()
        assert not any(word in printed for word in COMPLAINTS), f"{index}: {printed}"
        games = [game for game in state.games if game.events or game.result]
        assert len(answer["games"]) == len(games)
    # The forfeit is read as a resignation worth what it awarded (5 points = 3 x cube 1:
    # gnubg caps a resignation at a backgammon, so it counts 3).
    assert answer["games"][0]["winner"] == "X" and answer["games"][0]["resigned"]


def test_initial_position_helper_is_the_board_start() -> None:
    assert MatchState.new().board == Position.initial()
