"""Resignations judged as GNU Backgammon 1.07 judges them: hand-built positions where the
answer is clear, the walk of a match's own resignation offers, a bare ``.mat`` read as gnubg
reads it, and the judgement itself against Debian's gnubg 1.07 (its ``hint`` while a
resignation is offered prints the equities before and after the resignation and the right
answer: the only place gnubg 1.07 shows it, its Python ``match()`` and text export leave a
resignation's analysis out)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tavla.analysis import read_mat
from tavla.analysis.analyse import analyse_record
from tavla.analysis.cli import main
from tavla.analysis.evaluator import Cube, Level, resignation_equities
from tavla.analysis.matread import GameRecord, MatRecord, Turn
from tavla.analysis.resign import DECISION_WORDS, Resignation, from_events, inferred
from tavla.engine import Position, legal_plays
from tavla.engine.actions import (
    AcceptResign,
    OpeningRoll,
    PlayMove,
    RejectResign,
    Resign,
    Roll,
)
from tavla.engine.game import Phase
from tavla.engine.match import MatchState
from tavla.engine.match_id import MatchInfo, encode_match_id
from tavla.engine.matfile import export_mat
from tavla.engine.rules import Rules
from tests.engine.gnubg_ref import gnubg_path, run_gnubg_script

GNUBG_FILE = Path(__file__).with_name("gnubg_selfplay_5pt.mat")
MONEY = Cube(1, None, 0, 0, (0, 0), False)
#: The resigner far ahead in a race: 8 checkers on the low points against 15 far back.
FAVOURITE = Position.from_points({1: 3, 2: 3, 3: 2}, {13: 5, 12: 5, 11: 5})
#: The resigner with 15 checkers in the opponent's home board, the opponent bearing off
#: with 6 checkers left: a gammon is all but certain, a backgammon likely.
GAMMONED = Position.from_points({21: 5, 20: 5, 19: 5}, {1: 2, 2: 2, 3: 2})
#: A lost bear-off without gammon chances: the resigner has borne off 3, with 12 checkers
#: on the 6 point; the opponent on roll next with 2 checkers on the 1 point.
LOST = Position.from_points({6: 12}, {1: 2})


def _judge(position: Position, level: int, cube: Cube = MONEY) -> tuple[float, float]:
    return resignation_equities(position, cube, Level(0), level)


def test_a_favourite_resigning_a_single_game_is_a_blunder() -> None:
    play_on, resigned = _judge(FAVOURITE, 1)
    assert resigned == -1.0
    assert play_on > 0.9
    assert play_on - resigned > 1.8  # far beyond a blunder's 0.12


def test_the_resignation_is_worth_minus_its_level_in_a_money_game() -> None:
    assert [_judge(GAMMONED, level)[1] for level in (1, 2, 3)] == [-1.0, -2.0, -3.0]


def test_a_resignation_at_a_match_score_is_priced_with_the_opponents_gammon_price() -> None:
    # 7 point match, the opponent (player 1) 2 away: a gammon at cube 1 wins them the
    # match, so it is worth more than at money; a backgammon no more than a gammon.
    cube = Cube(1, None, 0, 7, (0, 5), False)
    single = _judge(GAMMONED, 1, cube)[1]
    gammon = _judge(GAMMONED, 2, cube)[1]
    backgammon = _judge(GAMMONED, 3, cube)[1]
    assert single == -1.0
    assert gammon < -1.0
    assert backgammon == pytest.approx(gammon)


def test_a_correct_resignation_in_a_lost_bear_off_loses_nothing() -> None:
    # Player 1 bears off to 2 or fewer checkers; player 0, 12 checkers on the 6 point and 3
    # off (no gammon), gives up a single game: gnubg's game ended without a bear-off.
    before = Position.from_points({4: 1, 1: 2}, {6: 12})
    play = legal_plays(before, 2, 1)[0]
    game = GameRecord(1, (0, 0), [
        Turn(1, "play", 1, dice=(2, 1), before=before, after=play.position,
             play=play.notation()),
        Turn(1, "wins", 2, points=1),
    ])
    record = MatRecord(0, ("A", "B"), False, [game])
    analysis = analyse_record(record, 0)
    resign = [d for d in analysis.decisions if d.kind == "resign"]
    assert len(resign) == 1 and resign[0].player == 0
    assert resign[0].loss < 0.001 and resign[0].mark == ""
    assert resign[0].chosen == "resign single"
    accept = next(d for d in analysis.decisions if d.kind == "accept_resign")
    assert accept.player == 1 and accept.mark == "" and accept.best == "accept"


def _offer_match(answer: str) -> MatchState:
    """A money session on an ``offer`` table: the opening 31 played by player 0, player 1
    rolls 21 and plays, then player 0 offers a single game and player 1 ``answer``s."""
    state = MatchState.new(Rules(match_length=None, resignation="offer"))
    state = state.apply(OpeningRoll(3, 1))
    state = state.apply(PlayMove(state.legal_plays()[0]))
    state = state.apply(Roll(2, 1))
    state = state.apply(PlayMove(state.legal_plays()[0]))
    state = state.apply(Resign(0, 1))
    if answer == "accept":
        return state.apply(AcceptResign(1))
    state = state.apply(RejectResign(1))
    return state


def test_a_match_s_resignation_offers_are_read_from_its_events() -> None:
    accepted = _offer_match("accept")
    assert accepted.phase in (Phase.GAME_OVER, Phase.MATCH_OVER)
    events = accepted.games[0].events
    assert from_events(events) == [Resignation(2, 0, 1, "accept")]
    refused = _offer_match("reject")
    assert from_events(refused.games[0].events) == [Resignation(2, 0, 1, "reject")]


def test_a_resignation_on_a_single_table_is_the_resigner_s_decision_only() -> None:
    state = MatchState.new(Rules(match_length=None))
    state = state.apply(OpeningRoll(3, 1))
    state = state.apply(PlayMove(state.legal_plays()[0]))
    state = state.apply(Resign(1))
    assert from_events(state.games[0].events) == [Resignation(1, 1, 1, "")]


def test_early_resignation_and_its_accept_are_marked_and_never_counted() -> None:
    state = _offer_match("accept")
    record = read_mat(export_mat(state, ("Ann", "Bob")))
    offers = {1: from_events(state.games[0].events)}
    analysis = analyse_record(record, 0, resignations=offers)
    resign = [d for d in analysis.decisions if d.kind.endswith("resign")]
    assert [d.kind for d in resign] == ["resign", "accept_resign"]
    offer, accept = resign
    # Resigning a single game in the opening gives away about a whole point.
    assert offer.player == 0 and offer.chosen == "resign single" and offer.best == "play on"
    assert offer.mark == "blunder" and offer.loss > 0.8
    assert offer.equity == -1.0 and offer.resign is not None
    assert offer.best_equity == pytest.approx(offer.resign["play_on"])
    # Accepting it was right: nothing lost.
    assert accept.player == 1 and accept.chosen == accept.best == "accept"
    assert accept.loss == 0.0 and accept.mark == ""
    assert not offer.counted and not accept.counted
    # As in gnubg, no resignation is in PR or the counts.
    counted = [d for d in analysis.decisions if d.counted]
    assert analysis.players[0].decisions == sum(1 for d in counted if d.player == 0)
    assert analysis.players[0].blunders == sum(1 for d in counted
                                               if d.player == 0 and d.mark == "blunder")


def test_refusing_an_early_single_resignation_is_a_blunder() -> None:
    state = _offer_match("reject")
    record = read_mat(export_mat(state, ("Ann", "Bob")))
    analysis = analyse_record(record, 0, resignations={1: from_events(state.games[0].events)})
    refuse = next(d for d in analysis.decisions if d.kind == "reject_resign")
    assert refuse.player == 1 and refuse.chosen == "reject" and refuse.best == "accept"
    assert refuse.mark == "blunder"


def test_accepting_a_single_game_when_about_to_win_a_gammon_is_an_error() -> None:
    play_on, resigned = _judge(GAMMONED, 1)
    accepter_loss = play_on - resigned  # accepting gets -resigned, playing on -play_on
    assert accepter_loss < 0  # the resigner is worth less than -1: the accepter loses
    assert -accepter_loss >= 0.12  # a blunder for gnubg
    # A backgammon resignation is worth at least the position: accepting it is right.
    play_on, resigned = _judge(GAMMONED, 3)
    assert resigned <= play_on


def test_a_bare_mat_reads_a_game_won_without_bear_off_as_the_loser_s_resignation() -> None:
    text = """ 0 point match

 Game 1
 A : 0                      B : 0
  1)                             63: 24/18 13/10
  2) 65: 24/13
      Wins 1 point
"""
    record = read_mat(text)
    assert inferred(record.games[0]) == [Resignation(2, 1, 1, "accept")]
    analysis = analyse_record(record, 0)
    kinds = [(d.kind, d.player) for d in analysis.decisions if d.kind.endswith("resign")]
    assert kinds == [("resign", 1), ("accept_resign", 0)]
    # Explicit resignations replace the reading: a flag that fell is no resignation.
    analysis = analyse_record(record, 0, resignations={})
    assert not [d for d in analysis.decisions if d.kind.endswith("resign")]


def test_a_bear_off_or_a_drop_is_no_resignation() -> None:
    games = read_mat(GNUBG_FILE.read_text()).games
    ended = 0
    for game in games:
        turns = game.turns
        if len(turns) > 1 and turns[-2].kind == "drop":
            assert inferred(game) == []
        elif (len(turns) > 1 and turns[-2].kind == "play" and turns[-2].after is not None
              and not any(turns[-2].after.mover)):
            assert inferred(game) == []
        else:
            continue
        ended += 1
    assert ended  # the file has games ended either way


def test_a_bad_resignation_is_refused() -> None:
    with pytest.raises(ValueError, match="level 1, 2 or 3"):
        Resignation(0, 0, 4, "accept")
    with pytest.raises(ValueError, match="answered"):
        Resignation(0, 0, 1, "maybe")
    with pytest.raises(ValueError, match="1, 2 or 3"):
        resignation_equities(FAVOURITE, MONEY, Level(0), 0)


# --- against Debian's gnubg 1.07 ----------------------------------------------------------

# Runs inside gnubg 1.07: for each case set the score, cube and board with the resigner on
# roll, offer the resignation and ask for a hint; gnubg prints the hint from C, so standard
# output goes to a file while it does, and the three lines are read from there.
HINT_SCRIPT = """
import os, tempfile
import gnubg
answers = []
for match_id, match_length, position_id, level, plies in PAYLOAD:
    commands = ["set player 0 human", "set player 1 human",
                "set evaluation cubedecision evaluation plies %d" % plies,
                "new match %d" % match_length if match_length else "new session",
                "set matchid " + match_id, "set board " + position_id,
                "resign " + {1: "single", 2: "gammon", 3: "backgammon"}[level]]
    for command in commands:
        gnubg.command(command)
    with tempfile.TemporaryFile("w+") as out:
        saved = os.dup(1)
        os.dup2(out.fileno(), 1)
        try:
            gnubg.command("hint")
        finally:
            os.dup2(saved, 1)
            os.close(saved)
        out.seek(0)
        answers.append(out.read())
emit(answers)
"""

_BEFORE = re.compile(r"Equity before resignation : ([-+]\d+\.\d+)")
_AFTER = re.compile(r"Equity after resignation : ([-+]\d+\.\d+)")
_VERDICT = re.compile(r"Correct resign decision : (Accept|Reject)")

#: Money, a 7 point match at 2-4 with the resigner owning the cube at 2, and at 0-5 (the
#: opponent 2 away: a gammon wins them the match), each for the resigner (mover 0).
CUBES = (MONEY, Cube(2, 0, 0, 7, (2, 4), False), Cube(1, None, 0, 7, (0, 5), False))
POSITIONS = (FAVOURITE, GAMMONED, LOST, Position.from_id("4HPwAyDgc+JBIA"),
             Position.from_id("4HPwATDgc/ABMA"), Position.from_id("4HPiQSDgc/ABMA"))


@pytest.mark.slow
@pytest.mark.skipif(gnubg_path() is None, reason="GNU Backgammon is not installed")
@pytest.mark.parametrize("plies", [0, 1, 2])
def test_resignations_are_judged_as_gnubg_1_07_judges_them(plies: int) -> None:
    cases = [(position, cube, level) for position in POSITIONS for cube in CUBES
             for level in (1, 2, 3)]
    payload = [[encode_match_id(MatchInfo(cube_value=cube.value, cube_owner=cube.owner,
                                          player_on_roll=cube.mover, turn=cube.mover,
                                          match_length=cube.match_length, score=cube.score)),
                cube.match_length, position.to_id(), level, plies]
               for position, cube, level in cases]
    answers = run_gnubg_script(HINT_SCRIPT, payload, timeout=900)
    verdicts = 0
    for (position, cube, level), text in zip(cases, answers, strict=True):
        before, after, verdict = (_BEFORE.search(text), _AFTER.search(text),
                                  _VERDICT.search(text))
        assert before and after and verdict, text
        play_on, resigned = resignation_equities(position, cube, Level(plies), level)
        where = f"{position.to_id()} {cube} level {level}"
        # gnubg prints the accepter's side to three decimals
        assert -play_on == pytest.approx(float(before.group(1)), abs=0.0015), where
        assert -resigned == pytest.approx(float(after.group(1)), abs=0.0015), where
        ours = "Accept" if play_on >= resigned else "Reject"
        verdicts += ours == verdict.group(1)
        if abs(play_on - resigned) > 0.002:
            assert ours == verdict.group(1), where
    assert verdicts >= len(cases) - 1


def test_the_cli_shows_resignation_decisions(tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "resigned.mat"
    path.write_text(""" 0 point match

 Game 1
 A : 0                      B : 0
  1)                             63: 24/18 13/10
  2) 65: 24/13
      Wins 1 point
""")
    assert main([str(path)]) == 0
    out = capsys.readouterr().out
    assert "Resignations (not in PR, as in gnubg)" in out
    assert "game 1: B resign single: blunder, loses" in out and "best: play on" in out
    assert "game 1: A accept: right" in out
    assert main([str(path), "--json"]) == 0
    kinds = [d["kind"] for d in json.loads(capsys.readouterr().out)["decisions"]]
    assert kinds.count("resign") == 1 and kinds.count("accept_resign") == 1


def test_the_words_a_resignation_decision_stores_are_listed() -> None:
    stored: set[str] = set()
    for answer in ("accept", "reject"):
        state = _offer_match(answer)
        analysis = analyse_record(read_mat(export_mat(state, ("Ann", "Bob"))), 0,
                                  resignations={1: from_events(state.games[0].events)})
        stored |= {word for d in analysis.decisions if d.kind.endswith("resign")
                   for word in (d.chosen, d.best)}
    assert stored == {"resign single", "play on", "accept", "reject"}
    assert stored <= set(DECISION_WORDS)
    assert {"resign gammon", "resign backgammon"} <= set(DECISION_WORDS)
