"""GNU Backgammon Match IDs: known IDs, round trips, bad input, and gnubg itself.

The gnubg test plays random matches with our engine, plays the same matches in gnubg (same
dice through gnubg's "read from file" generator, the same moves and cube actions as
commands) and compares ``gnubg.positionid()`` / ``gnubg.matchid()`` after every action with
``match_id.gnubg_ids(state)``.
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tavla.engine.actions import (
    Action,
    Double,
    Drop,
    EndSession,
    NewGame,
    OpeningRoll,
    PlayMove,
    Resign,
    Roll,
    Take,
)
from tavla.engine.errors import InvalidMatchIdError
from tavla.engine.game import Phase
from tavla.engine.match import MatchState
from tavla.engine.match_id import (
    GameState,
    MatchInfo,
    decode_match_id,
    encode_match_id,
    gnubg_ids,
)
from tavla.engine.matfile import mat_move
from tavla.engine.rules import Rules
from tavla.engine.selfplay import SelfPlayOptions, play_match
from tests.engine.gnubg_ref import gnubg_path, run_gnubg_scripts

# IDs copied from gnubg 1.07 sessions, with what gnubg reported for them.
KNOWN = [
    ("cImuAAAAAAAE", MatchInfo(player_on_roll=1, turn=1, dice=(5, 3), match_length=5)),
    ("cAmgAAAAAAAE", MatchInfo(player_on_roll=1, turn=1, match_length=5)),
    ("cBGgAAAAAAAE",
     MatchInfo(player_on_roll=1, turn=0, double_offered=True, match_length=5)),
    ("QQmgAAAAAAAE", MatchInfo(cube_value=2, cube_owner=0, player_on_roll=1, turn=1,
                               match_length=5)),
    ("QQmvAAAAAAAE", MatchInfo(cube_value=2, cube_owner=0, player_on_roll=1, turn=1,
                               dice=(6, 3), match_length=5)),
    ("cAqgACAAAAAE", MatchInfo(player_on_roll=1, turn=1, game_state=GameState.OVER,
                               match_length=5, score=(2, 0))),
    ("sCuvACAAIAAE", MatchInfo(player_on_roll=0, turn=1, crawford=True,
                               game_state=GameState.RESIGNED, resignation=1, dice=(6, 3),
                               match_length=5, score=(2, 4))),
    ("cApgAEAAAAAE", MatchInfo(player_on_roll=1, turn=1, game_state=GameState.OVER,
                               match_length=3, score=(4, 0))),
    ("cAoAACAAAAAE", MatchInfo(player_on_roll=1, turn=1, game_state=GameState.OVER,
                               score=(2, 0))),
    ("MAEPACAAAAAE", MatchInfo(dice=(6, 3), score=(2, 0))),
]


@pytest.mark.parametrize(("match_id", "info"), KNOWN)
def test_known_gnubg_ids(match_id: str, info: MatchInfo) -> None:
    assert encode_match_id(info) == match_id
    assert decode_match_id(match_id) == info


def test_dice_are_written_higher_first() -> None:
    assert encode_match_id(MatchInfo(dice=(3, 5))) == encode_match_id(MatchInfo(dice=(5, 3)))
    assert decode_match_id(encode_match_id(MatchInfo(dice=(3, 5)))).dice == (5, 3)


infos = st.builds(
    MatchInfo,
    cube_value=st.sampled_from([1 << n for n in range(16)]),
    cube_owner=st.sampled_from([None, 0, 1]),
    player_on_roll=st.sampled_from([0, 1]),
    crawford=st.booleans(),
    game_state=st.sampled_from(list(GameState)),
    turn=st.sampled_from([0, 1]),
    double_offered=st.booleans(),
    resignation=st.integers(0, 3),
    dice=st.one_of(st.just((0, 0)), st.tuples(st.integers(1, 6), st.integers(1, 6)).map(
        lambda d: (max(d), min(d)))),
    match_length=st.integers(1, 0x7FFF),
    score=st.tuples(st.integers(0, 0x7FFF), st.integers(0, 0x7FFF)),
    jacoby=st.booleans(),
)


@given(infos)
def test_round_trip(info: MatchInfo) -> None:
    match_id = encode_match_id(info)
    assert len(match_id) == 12
    assert decode_match_id(match_id) == info


@given(st.binary(min_size=9, max_size=9))
def test_any_nine_bytes_decode_or_raise_cleanly(key: bytes) -> None:
    import base64

    text = base64.b64encode(key).decode()
    try:
        info = decode_match_id(text)
    except InvalidMatchIdError:
        return
    assert decode_match_id(encode_match_id(info)) == info
    if key[1] >> 7 | (key[2] & 3) << 1 >= key[2] >> 2 & 7:  # higher die first, as gnubg writes
        assert encode_match_id(info) == text


@pytest.mark.parametrize(
    "bad",
    ["", "cImuAAAAAAA", "cImuAAAAAAAEA", "cImuAAAAAA!E", "cImuAAAAAAA=", None, 12,
     "cImuAAAAAAA/"],  # unused bits set
)
def test_bad_ids_raise(bad: Any) -> None:
    with pytest.raises(InvalidMatchIdError):
        decode_match_id(bad)


def test_cube_owner_two_a_seventh_face_and_money_crawford_are_refused() -> None:
    import base64

    key = bytearray(base64.b64decode("cAmgAAAAAAAE"))
    key[0] = (key[0] & ~0x30) | 0x20  # owner bits = 2
    with pytest.raises(InvalidMatchIdError, match="owner"):
        decode_match_id(base64.b64encode(bytes(key)).decode())
    key = bytearray(base64.b64decode("cImuAAAAAAAE"))  # dice 5 and 3
    key[1] |= 0x80  # bits 15..17 hold the first die: all set is a 7
    key[2] |= 0x03
    with pytest.raises(InvalidMatchIdError, match="die"):
        decode_match_id(base64.b64encode(bytes(key)).decode())
    with pytest.raises(InvalidMatchIdError):
        MatchInfo(crawford=True, match_length=0)


def test_states_map_to_gnubg_fields() -> None:
    state = MatchState.new(Rules(match_length=5))
    info = decode_match_id(gnubg_ids(state)[1])
    assert info.game_state is GameState.NONE and info.match_length == 5
    state = state.apply(OpeningRoll(3, 5))
    position_id, match_id = gnubg_ids(state)
    assert (position_id, match_id) == ("4HPwATDgc/ABMA", "cImuAAAAAAAE")
    state = state.apply(PlayMove("8/3 6/3"))
    assert gnubg_ids(state)[1] == "MAGgAAAAAAAE"
    state = state.apply(Double())
    info = decode_match_id(gnubg_ids(state)[1])
    assert (info.player_on_roll, info.turn, info.double_offered) == (0, 1, True)
    state = state.apply(Take())
    info = decode_match_id(gnubg_ids(state)[1])
    assert (info.cube_value, info.cube_owner, info.turn) == (2, 1, 0)


# -- against gnubg -------------------------------------------------------------------------

needs_gnubg = pytest.mark.skipif(gnubg_path() is None, reason="gnubg is not installed")

# Runs inside gnubg: for each match, feed the dice through a file and run the commands,
# recording (Position ID, Match ID) after each step and gnubg's complaints.
DRIVE_SCRIPT = """
import gnubg, os
folder = os.path.dirname(os.environ["TAVLA_GNUBG_OUT"])
for command in ("set display off", "set player 0 human", "set player 1 human",
                "set automatic roll off", "set automatic game off", "set automatic move off",
                "set automatic bearoff off", "set jacoby off", "set confirm new off"):
    gnubg.command(command)
answers = []
for index, match in enumerate(PAYLOAD):
    dice_file = os.path.join(folder, "dice-%d-%d.txt" % (os.getpid(), index))
    with open(dice_file, "w") as f:
        f.write("".join("%d\\n" % die for die in match["dice"]))
    gnubg.command("set rng file " + dice_file)
    ids = []
    for commands in match["steps"]:
        for command in commands:
            gnubg.command(command)
        try:
            ids.append([gnubg.positionid(), gnubg.matchid()])
        except ValueError:  # before the first game starts
            ids.append(None)
    answers.append(ids)
emit(answers)
"""


def gnubg_steps(
    rules: Rules, actions: tuple[Action, ...]
) -> tuple[list[int], list[list[str]], list[tuple[str, str] | None]]:
    """The dice file, the gnubg commands per action and our IDs after each (None: skip).

    Stops at the first action gnubg cannot mirror (a resignation off turn, the end of a
    money session).
    """
    dice: list[int] = []
    steps: list[list[str]] = []
    expected: list[tuple[str, str] | None] = []
    state = MatchState.new(rules)
    start = f"new match {rules.match_length}" if rules.match_length else "new session"
    for action in actions:
        commands: list[str] = []
        check = True
        if isinstance(action, OpeningRoll):
            dice += [action.die0, action.die1]
            if action.die0 == action.die1:
                check = False
            else:
                commands = [start if state.game_number == 1 else "new game"]
        elif isinstance(action, Roll):
            dice += [action.die1, action.die2]
            commands = ["roll"]
        elif isinstance(action, PlayMove):
            assert not isinstance(action.play, str)
            commands = ["move " + " ".join(mat_move(m) for m in action.play.moves)]
        elif isinstance(action, Double):
            commands = ["double"]
        elif isinstance(action, Take):
            commands = ["take"]
        elif isinstance(action, Drop):
            commands = ["drop"]
        elif isinstance(action, Resign) and state.phase is Phase.TURN_START:
            assert action.player == state.player_to_act
            commands = ["resign single", "accept"]
        elif isinstance(action, NewGame):
            check = False
        elif isinstance(action, EndSession):
            break
        else:
            break
        state = state.apply(action)
        steps.append(commands)
        expected.append(gnubg_ids(state) if check else None)
    return dice, steps, expected


def random_cases(count: int, seed: int) -> list[tuple[Rules, tuple[Action, ...]]]:
    rng = random.Random(seed)
    cases = []
    for index in range(count):
        length = rng.choice([None, 1, 2, 3, 5, 7, 9])
        rules = Rules(match_length=length)
        options = SelfPlayOptions(double=0.15, take=0.75, resign=0.01, session_games=3,
                                  live_cube_only=True)
        _, actions = play_match(rules, seed * 1000 + index, options)
        cases.append((rules, actions))
    return cases


@needs_gnubg
@pytest.mark.slow
def test_match_ids_equal_gnubgs_through_random_matches() -> None:
    cases = random_cases(96, seed=7)
    prepared = [gnubg_steps(rules, actions) for rules, actions in cases]
    payloads = [[{"dice": dice, "steps": steps} for dice, steps, _ in prepared[i::8]]
                for i in range(8)]
    answers_by_process = run_gnubg_scripts(DRIVE_SCRIPT, payloads, timeout=900)
    checked = 0
    phases_seen: set[str] = set()
    kinds_seen: set[str] = set()
    for process, answers in enumerate(answers_by_process):
        for offset, ids in enumerate(answers):
            case = process + 8 * offset
            rules, actions = cases[case]
            _, steps, expected = prepared[case]
            assert len(ids) == len(expected)
            state = MatchState.new(rules)
            for step, (action, want, got) in enumerate(zip(actions, expected, ids,
                                                            strict=False)):
                state = state.apply(action)
                if want is None:
                    continue
                assert got is not None and tuple(got) == want, (
                    f"case {case} ({rules}), step {step} {action!r} -> {steps[step]}: "
                    f"gnubg {got}, ours {want}, phase {state.phase}"
                )
                checked += 1
                phases_seen.add(state.phase.value)
                kinds_seen.update(event.kind.value for event in state.current_game.events[-2:])
    assert checked > 10_000
    assert phases_seen >= {"turn_start", "cube_offered", "move", "game_over", "match_over"}
    assert kinds_seen >= {"auto_pass", "double", "take", "drop", "resign", "play"}
