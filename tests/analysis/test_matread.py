"""Reading .mat records: ours, GNU Backgammon's, and bad ones with the line named."""

from __future__ import annotations

from pathlib import Path

import pytest

from tavla.analysis import MatFileError, read_mat
from tavla.engine.matfile import export_mat
from tavla.engine.rules import Rules
from tavla.engine.selfplay import play_match

GNUBG_FILE = Path(__file__).with_name("gnubg_selfplay_5pt.mat")


def test_reads_a_match_gnubg_exported() -> None:
    record = read_mat(GNUBG_FILE.read_text())
    assert record.match_length == 5 and record.crawford
    assert record.names == ("gnubg", "root")
    assert [game.score for game in record.games][:3] == [(0, 0), (0, 2), (1, 2)]
    first = record.games[0].turns[0]
    assert (first.player, first.kind, first.dice, first.play) == (1, "play", (2, 1), "6/3")
    kinds = {turn.kind for game in record.games for turn in game.turns}
    assert kinds == {"play", "double", "take", "drop", "wins"}


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_reads_back_every_turn_of_our_own_export(seed: int) -> None:
    state, _ = play_match(Rules(match_length=5), seed)
    record = read_mat(export_mat(state, ("Ann", "Bo")))
    plays = [turn for game in record.games for turn in game.turns if turn.kind == "play"]
    ours = [event for game in state.games for event in game.events
            if event.kind.name in ("PLAY", "AUTO_PASS")]
    assert len(plays) == len(ours)
    assert [turn.dice for turn in plays] == [
        (max(event.dice), min(event.dice)) for event in ours if event.dice
    ]
    assert len(record.games) == len(state.games)


@pytest.mark.parametrize(
    ("text", "line", "words"),
    [
        ("hello\n", 1, "point match"),
        (" 3 point match\n\n 1) 31: 8/5 6/5\n", 3, "Game 1"),
        (" 3 point match\n\n Game 1\n nonsense here\n", 4, "score line"),
        (" 3 point match\n\n Game 1\n A : 0   B : 0\n  1) 31: 8/5 6/5   42: 8/1\n", 5,
         "42"),
        (" 3 point match\n\n Game 1\n A : 0   B : 0\n  1) 31: 8/5 6/5   42: 13/9 x\n", 5,
         "cannot read"),
        (" 3 point match\n\n Game 1\n A : 0   B : 0\n  1) 31: 8/5 6/5  42: 8/4 6/4  Takes\n",
         5, "more than two"),
    ],
)
def test_a_bad_file_names_the_line(text: str, line: int, words: str) -> None:
    with pytest.raises(MatFileError) as caught:
        read_mat(text)
    assert caught.value.line == line
    assert words in str(caught.value)
    assert str(caught.value).startswith(f"line {line}:")


def test_reads_other_programs_spellings() -> None:
    """XG and FIBS write "Wins 1 point and the match", bar and off as words, repeats."""
    text = (" 1 point match\n\n Game 1\n Ann : 0                      Bo : 0\n"
            "  1) 31: 8/5 6/5                 66: 24/18(2) 13/7(2)\n"
            "  2) 43: 13/9 13/10              Doubles => 2\n"
            "  3)  Drops\n"
            "                                  Wins 1 point and the match\n")
    record = read_mat(text)
    turns = record.games[0].turns
    assert [turn.kind for turn in turns] == ["play", "play", "play", "double", "drop", "wins"]
    assert turns[1].play == "24/18(2) 13/7(2)" and turns[-1].points == 1
