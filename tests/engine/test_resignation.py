"""Resignation levels: ``Rules.resignation`` "single" (resign at once, single x cube) and
"offer" (offer a single game, gammon or backgammon; the opponent accepts or refuses)."""

from __future__ import annotations

import pytest

from tavla.engine.actions import (
    AcceptResign,
    Adjudicate,
    Double,
    Forfeit,
    NewGame,
    OpeningRoll,
    PlayMove,
    RejectResign,
    Resign,
    Roll,
    Take,
    Timeout,
    action_from_dict,
)
from tavla.engine.errors import EngineError, IllegalActionError
from tavla.engine.game import EndReason, EventKind, Phase, WinKind
from tavla.engine.match import MatchState
from tavla.engine.match_id import decode_match_id, gnubg_ids
from tavla.engine.matfile import export_mat
from tavla.engine.rules import ResignOffer, Rules

OFFER = Rules(match_length=7, resignation="offer")


def _doubled_turn(rules: Rules = OFFER) -> MatchState:
    """Player 0 opened 3-1, player 1 doubled and player 0 took: cube 2, player 1 on roll."""
    state = MatchState.new(rules).apply(OpeningRoll(3, 1)).apply(PlayMove("8/5 6/5"))
    return state.apply(Double(1)).apply(Take(0))


def test_rules_validate_and_round_trip_the_resignation_style() -> None:
    assert Rules().resignation == "single"
    assert Rules.from_dict({"match_length": 5}).resignation == "single"
    assert Rules.from_dict(OFFER.to_dict()) == OFFER
    with pytest.raises(EngineError, match="'single' or 'offer'"):
        Rules(resignation="gammon")


def test_single_resigns_at_once_for_a_single_game_times_the_cube() -> None:
    state = _doubled_turn(Rules(match_length=7)).apply(Resign(1))
    assert state.phase is Phase.GAME_OVER
    assert state.score == (2, 0)
    assert state.game_result is not None and state.game_result.kind is WinKind.SINGLE
    assert state.resign_offer is None
    # level 1 is the same thing; a gammon or backgammon level is refused with no change
    assert _doubled_turn(Rules(match_length=7)).apply(Resign(1, 1)).score == (2, 0)
    before = _doubled_turn(Rules(match_length=7))
    for level in (2, 3):
        with pytest.raises(IllegalActionError, match="single game times the cube"):
            before.apply(Resign(1, level))


@pytest.mark.parametrize(("level", "kind"), [(1, WinKind.SINGLE), (2, WinKind.GAMMON),
                                              (3, WinKind.BACKGAMMON)])
def test_an_accepted_offer_scores_level_times_the_cube(level: int, kind: WinKind) -> None:
    offered = _doubled_turn().apply(Resign(1, level))
    assert offered.phase is Phase.TURN_START
    assert offered.resign_offer == ResignOffer(1, level)
    assert offered.player_to_act == 0
    assert offered.current_game.events[-1].kind is EventKind.RESIGN_OFFER
    done = offered.apply(AcceptResign(0))
    assert done.phase is Phase.GAME_OVER
    assert done.score == (2 * level, 0)
    result = done.game_result
    assert result is not None
    assert (result.winner, result.points, result.kind, result.reason) == (
        0, 2 * level, kind, EndReason.RESIGN)
    assert done.resign_offer is None
    assert done.current_game.events[-1].value == level


def test_an_offer_without_a_level_is_a_single_game() -> None:
    offered = _doubled_turn().apply(Resign(1))
    assert offered.resign_offer == ResignOffer(1, 1)
    assert offered.apply(AcceptResign()).score == (2, 0)


def test_a_refused_offer_returns_to_where_the_game_was() -> None:
    before = _doubled_turn()
    back = before.apply(Resign(1, 2)).apply(RejectResign(0))
    assert back.resign_offer is None
    assert (back.phase, back.player_on_roll, back.dice, back.cube_value, back.board) == (
        before.phase, before.player_on_roll, before.dice, before.cube_value, before.board)
    assert back.player_to_act == 1
    assert back.current_game.events[-1].kind is EventKind.RESIGN_REJECT
    back.apply(Roll(5, 2, 1))  # the game goes on


def test_an_offer_in_the_move_phase_keeps_the_dice() -> None:
    moving = _doubled_turn().apply(Roll(6, 5))
    offered = moving.apply(Resign(0, 3))  # the player not on roll may resign too
    assert offered.dice == (6, 5) and offered.phase is Phase.MOVE
    assert offered.legal_plays() == moving.legal_plays()
    back = offered.apply(RejectResign(1))
    assert back.phase is Phase.MOVE and back.dice == (6, 5) and back.player_to_act == 1


def test_while_offered_only_the_opponent_answers() -> None:
    offered = _doubled_turn().apply(Resign(1, 2))
    for action in (Roll(6, 5), Roll(6, 5, 1), Double(1), Resign(1, 1), Resign(0), NewGame(),
                   Take(0)):
        with pytest.raises(IllegalActionError, match="must accept or refuse"):
            offered.apply(action)
    for action in (AcceptResign(1), RejectResign(1)):
        with pytest.raises(IllegalActionError, match="player 0's decision"):
            offered.apply(action)


def test_accept_or_refuse_with_no_offer_is_refused() -> None:
    state = _doubled_turn()
    for action in (AcceptResign(), RejectResign(0)):
        with pytest.raises(IllegalActionError, match="none is offered"):
            state.apply(action)


def test_bad_levels_and_tables_without_gammons() -> None:
    state = _doubled_turn()
    for level in (0, 4, -1, True):
        with pytest.raises(IllegalActionError, match="1, 2 or 3"):
            state.apply(Resign(1, level))
    plain = _doubled_turn(Rules(match_length=7, gammons=False, resignation="offer"))
    with pytest.raises(IllegalActionError, match="without gammons"):
        plain.apply(Resign(1, 2))
    assert plain.apply(Resign(1, 1)).apply(AcceptResign(0)).score == (2, 0)


def test_no_offer_between_games() -> None:
    over = _doubled_turn().apply(Resign(1, 1)).apply(AcceptResign(0))
    with pytest.raises(IllegalActionError, match="cannot resign now"):
        over.apply(Resign(0, 2))


def test_flag_forfeit_or_referee_end_a_pending_offer() -> None:
    offered = _doubled_turn().apply(Resign(1, 3))
    flagged = offered.apply(Timeout(0))
    assert flagged.phase is Phase.GAME_OVER and flagged.resign_offer is None
    assert flagged.score == (0, 2)
    assert offered.apply(Forfeit(1)).phase is Phase.MATCH_OVER
    assert offered.apply(Adjudicate(0)).resign_offer is None


def test_json_round_trip_and_replay() -> None:
    actions = [OpeningRoll(3, 1), PlayMove("8/5 6/5"), Double(1), Take(0), Resign(1, 2)]
    logged = [action.to_dict() for action in actions]
    assert logged[-1] == {"type": "resign", "player": 1, "level": 2}
    assert [action_from_dict(data) for data in logged] == actions
    assert action_from_dict({"type": "accept_resign", "player": 0}) == AcceptResign(0)
    assert action_from_dict({"type": "reject_resign"}) == RejectResign()
    with pytest.raises(EngineError, match="1, 2 or 3"):
        action_from_dict({"type": "resign", "player": 1, "level": "2"})
    offered = MatchState.replay(OFFER, logged)
    assert MatchState.from_dict(offered.to_dict()) == offered
    assert offered.to_dict()["resign_offer"] == {"player": 1, "level": 2}
    back = offered.apply(RejectResign())
    assert MatchState.from_dict(back.to_dict()) == back


def test_damaged_snapshots_with_an_offer_are_refused() -> None:
    data = _doubled_turn().apply(Resign(1, 2)).to_dict()
    for bad in ({"player": 1, "level": 4}, {"player": 2, "level": 1}):
        with pytest.raises(EngineError):
            MatchState.from_dict({**data, "resign_offer": bad})
    single = {**data, "rules": Rules(match_length=7).to_dict()}
    with pytest.raises(EngineError, match="resignation offer"):
        MatchState.from_dict(single)


def test_match_id_shows_the_offered_level_and_the_answering_player() -> None:
    offered = _doubled_turn().apply(Resign(1, 2))
    info = decode_match_id(gnubg_ids(offered)[1])
    assert (info.resignation, info.turn, info.player_on_roll) == (2, 0, 1)
    accepted = decode_match_id(gnubg_ids(offered.apply(AcceptResign(0)))[1])
    assert (accepted.resignation, accepted.score) == (2, (4, 0))
    refused = decode_match_id(gnubg_ids(offered.apply(RejectResign(0)))[1])
    assert (refused.resignation, refused.turn) == (0, 1)


def test_mat_export_writes_an_accepted_gammon_as_its_points() -> None:
    done = _doubled_turn().apply(Resign(1, 2)).apply(AcceptResign(0))
    text = export_mat(done, ("Ann", "Bob"))
    assert "Wins 4 point" in text


# gnubg 1.07 (`gnubg -q -t -p`): "new match 7", it rolled 6-2 for player 1 ("root"), then
# "resign gammon". Match IDs before and after, as gnubg.matchid() printed them.
GNUBG_BEFORE, GNUBG_OFFERED = "cAnrAAAAAAAE", "cEHrAAAAAAAE"
GNUBG_SCRIPT = """import gnubg
gnubg.command("set player 0 human")
gnubg.command("set player 1 human")
gnubg.command("new match 7")
print("BEFORE", gnubg.matchid())
gnubg.command("resign gammon")
print("OFFERED", gnubg.matchid())
"""


def test_an_offered_gammon_has_gnubgs_match_id() -> None:
    moving = MatchState.new(OFFER).apply(OpeningRoll(2, 6))  # player 1 to play 6-2
    assert gnubg_ids(moving)[1] == GNUBG_BEFORE
    assert gnubg_ids(moving.apply(Resign(1, 2)))[1] == GNUBG_OFFERED


def test_gnubg_itself_writes_that_match_id(tmp_path) -> None:  # type: ignore[no-untyped-def]
    import subprocess

    from tests.engine.gnubg_ref import gnubg_path

    gnubg = gnubg_path()
    if gnubg is None:
        pytest.skip("GNU Backgammon is not installed")
    script = tmp_path / "resign.py"
    script.write_text(GNUBG_SCRIPT)
    out = subprocess.run([gnubg, "-q", "-t", "-p", str(script)], capture_output=True,
                         text=True, timeout=120, cwd=tmp_path).stdout
    ids = dict(line.split()[:2] for line in out.splitlines()
               if line.startswith(("BEFORE ", "OFFERED ")))
    # gnubg rolls its own dice: compare the fields that do not depend on them.
    before, offered = decode_match_id(ids["BEFORE"]), decode_match_id(ids["OFFERED"])
    mover = before.player_on_roll
    assert (offered.resignation, offered.turn, offered.player_on_roll, offered.dice) == (
        2, 1 - mover, mover, before.dice)
    state = MatchState.new(OFFER).apply(
        OpeningRoll(*(before.dice if mover == 0 else before.dice[::-1])))
    if state.phase is Phase.MOVE and state.player_on_roll == mover:
        assert gnubg_ids(state.apply(Resign(mover, 2)))[1] == ids["OFFERED"]
