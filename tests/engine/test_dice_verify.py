"""``verify-dice`` checks what it claims: every way of forging or shortening a dice audit, or
the match record it is checked against, is refused with a message that says where, and a
non-zero exit; an audit that declares scripted dice is "not verifiable", never "OK".

The matches here are played by the engine alone with fair dice, and their audit and ``.mat``
are built the way the server builds them (``matches/audit.py``, ``export_mat``).
"""

from __future__ import annotations

import copy
import hashlib
import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tavla.engine.actions import OpeningRoll, Roll
from tavla.engine.cli import main
from tavla.engine.dice import FairDice
from tavla.engine.dice_audit import Verdict, audit_mismatches, check_audit
from tavla.engine.game import EventKind
from tavla.engine.match import MatchState
from tavla.engine.matdice import MatDiceError, mat_dice
from tavla.engine.matfile import export_mat
from tavla.engine.rules import Rules
from tavla.engine.selfplay import SelfPlayOptions, choose_action

SERVER = bytes(range(32))
CLIENTS = (bytes.fromhex("a1" * 32), bytes.fromhex("b0b0b0b0"))


def fair_match(seed: int = 1, length: int | None = 5, *, resign: float = 0.0,
               cube: bool = True) -> tuple[dict[str, Any], str]:
    """A random ``length``-point match (``None``: a money session) played with
    :class:`FairDice`: its dice audit (as the server publishes it after the end) and its
    ``.mat`` record."""
    dice = FairDice(SERVER, client_seeds=CLIENTS)
    rng = random.Random(seed)
    state = MatchState.new(Rules(match_length=length, cube=cube))
    options = SelfPlayOptions(double=0.1, resign=resign, session_games=3)
    while not state.is_over:
        action = choose_action(state, rng, options)
        if isinstance(action, OpeningRoll):
            action = OpeningRoll(*dice.roll_opening())
        elif isinstance(action, Roll):
            action = Roll(*dice.roll())
        state = state.apply(action)
    # The log has other events between the rolls: the sequence numbers have gaps.
    rolls = [{"sequence": 3 * number + 1, "kind": kind, "game": game, "dice": dice,
              "scripted": False}
             for number, (kind, game, dice) in enumerate(
                 (event.kind.value, game.number, list(event.dice or ()))
                 for game in state.games for event in game.events
                 if event.kind in (EventKind.OPENING_ROLL, EventKind.ROLL))]
    assert dice.counter == 2 * len(rolls)
    audit = {
        "algorithm": "tavla-dice-1",
        "commitment": hashlib.sha256(SERVER).hexdigest(),
        "client_seeds": [c.hex() for c in CLIENTS],
        "seed_revealed": True,
        "seed": SERVER.hex(),
        "dice_were_scripted": False,
        "scripted_rolls": 0,
        "dice_used": dice.counter,
        "rolls": rolls,
        "verified": True,
    }
    return audit, export_mat(state, ("Alice", "Bob"))


@pytest.fixture(scope="module")
def real() -> tuple[dict[str, Any], str]:
    # A match with several games, a tied opening roll and rolls in the right-hand column.
    for seed in range(1, 200):
        audit, mat = fair_match(seed)
        kinds = [(r["kind"], r["dice"][0] == r["dice"][1]) for r in audit["rolls"]]
        if max(r["game"] for r in audit["rolls"]) >= 3 and ("opening_roll", True) in kinds:
            return audit, mat
    raise AssertionError("no seed gave a match with a tied opening roll")


def verdict(audit: Any, mat: str | None = None) -> tuple[Verdict, list[str]]:
    check = check_audit(audit, mat_text=mat)
    return check.verdict, [*check.problems, *check.unverifiable]


def forged(audit: dict[str, Any]) -> dict[str, Any]:
    return copy.deepcopy(audit)


def game_rolls(audit: dict[str, Any], game: int) -> list[int]:
    return [i for i, r in enumerate(audit["rolls"]) if r["game"] == game]


# -- the honest match ------------------------------------------------------------------------


def test_an_honest_audit_and_its_record_verify(real) -> None:
    audit, mat = real
    assert verdict(audit) == (Verdict.VERIFIED, [])
    assert verdict(audit, mat) == (Verdict.VERIFIED, [])
    shown = sum(len(game.rolls) for game in mat_dice(mat))
    ties = sum(1 for r in audit["rolls"] if r["kind"] == "opening_roll"
               and r["dice"][0] == r["dice"][1])
    assert shown == len(audit["rolls"]) - ties > 0


@pytest.mark.parametrize("length, resign, cube", [
    (1, 0.0, True), (3, 0.05, True), (None, 0.02, True), (5, 0.0, False), (7, 0.01, True)])
def test_honest_matches_of_every_kind_verify_with_their_record(length, resign, cube) -> None:
    # Resignations leave a roll without its play at a game's end; money sessions are
    # "0 point match"; every layout of the record must read back to the audit's dice.
    for seed in range(4):
        audit, mat = fair_match(seed, length, resign=resign, cube=cube)
        assert verdict(audit, mat) == (Verdict.VERIFIED, []), (seed, mat)


def test_an_audit_without_game_numbers_counts_its_games_from_the_opening_rolls(real) -> None:
    audit, mat = real
    bare = forged(audit)
    for entry in bare["rolls"]:
        del entry["game"]
    assert verdict(bare, mat) == (Verdict.VERIFIED, [])
    del bare["rolls"][game_rolls(audit, 2)[-1]]
    bare["dice_used"] -= 2
    assert verdict(bare)[0] is Verdict.DOES_NOT_VERIFY
    half = forged(audit)
    del half["rolls"][3]["game"]
    assert "rolls: some entries say their game and some do not" in verdict(half)[1]


# -- scripted dice -----------------------------------------------------------------------------


def test_rolls_marked_scripted_in_an_audit_that_declares_none_fail(real) -> None:
    """The forgery of issue 22: every roll 6-6 and marked scripted, while the audit says no
    dice were scripted, used to verify "OK ... all 0 fair rolls recompute"."""
    audit = forged(real[0])
    for entry in audit["rolls"]:
        entry["dice"], entry["scripted"] = [6, 6], True
    result, messages = verdict(audit)
    assert result is Verdict.DOES_NOT_VERIFY
    count = len(audit["rolls"])
    assert any(f"rolls 1-{count} ({count} in all) are marked scripted" in m
               and "dice_were_scripted: false" in m for m in messages), messages
    # Even one roll marked scripted is found, with its number.
    audit = forged(real[0])
    audit["rolls"][4]["scripted"] = True
    result, messages = verdict(audit)
    assert result is Verdict.DOES_NOT_VERIFY and any("roll 5 (1 in all) is marked" in m
                                                     for m in messages), messages


def test_an_audit_that_declares_scripted_dice_is_not_verifiable(real) -> None:
    audit = forged(real[0])
    audit["rolls"].insert(0, {"sequence": 0, "kind": "opening_roll", "game": 1,
                              "dice": [2, 2], "scripted": True})
    audit.update(dice_were_scripted=True, scripted_rolls=1)
    result, messages = verdict(audit)
    assert result is Verdict.NOT_VERIFIABLE
    assert messages == [messages[0]] and "declares scripted dice" in messages[0]
    # Not verifiable, never a cover: a wrong fair roll still fails.
    audit["rolls"][3]["dice"] = [a % 6 + 1 for a in audit["rolls"][3]["dice"]]
    assert verdict(audit)[0] is Verdict.DOES_NOT_VERIFY


def test_scripted_rolls_come_first_and_are_counted(real) -> None:
    audit = forged(real[0])
    audit.update(dice_were_scripted=True, scripted_rolls=1)
    audit["rolls"][6]["scripted"] = True
    result, messages = verdict(audit)
    assert result is Verdict.DOES_NOT_VERIFY
    assert any("roll 7 marked scripted after fair rolls" in m for m in messages), messages
    audit = forged(real[0])
    audit.update(dice_were_scripted=True, scripted_rolls=3)
    audit["rolls"][0]["scripted"] = True
    assert any("scripted_rolls says 3, but 1 rolls are marked" in m for m in verdict(audit)[1])
    audit = forged(real[0])
    audit["scripted_rolls"] = 2
    assert any("scripted_rolls is 2" in m for m in verdict(audit)[1])


@pytest.mark.parametrize("value", [None, "yes", 1, 0])
def test_a_roll_whose_scripted_flag_is_not_a_boolean_fails(real, value) -> None:
    audit = forged(real[0])
    audit["rolls"][2]["scripted"] = value
    result, messages = verdict(audit)
    assert result is Verdict.DOES_NOT_VERIFY
    assert any(m.startswith("roll 3: scripted is") for m in messages), messages


# -- changed and missing rolls ------------------------------------------------------------------


def test_a_changed_roll_fails_and_is_named(real) -> None:
    audit = forged(real[0])
    entry = audit["rolls"][9]
    entry["dice"][1] = entry["dice"][1] % 6 + 1
    result, messages = verdict(audit)
    assert result is Verdict.DOES_NOT_VERIFY
    assert messages == [f"roll 10 (event {entry['sequence']}, {entry['kind']}, game "
                        f"{entry['game']}): logged {entry['dice'][0]}-{entry['dice'][1]}, "
                        f"the seeds give {real[0]['rolls'][9]['dice'][0]}-"
                        f"{real[0]['rolls'][9]['dice'][1]}"]


def test_rolls_removed_at_the_end_fail_on_dice_used(real) -> None:
    audit = forged(real[0])
    del audit["rolls"][-2:]
    result, messages = verdict(audit)
    assert result is Verdict.DOES_NOT_VERIFY
    assert any("2 roll(s) are missing" in m for m in messages), messages


def test_an_audit_without_dice_used_fails(real) -> None:
    audit = forged(real[0])
    del audit["dice_used"]
    result, messages = verdict(audit)
    assert result is Verdict.DOES_NOT_VERIFY and any("dice_used" in m for m in messages)


def test_a_roll_removed_in_the_middle_is_found_where_it_was(real) -> None:
    audit = forged(real[0])
    del audit["rolls"][5]
    audit["dice_used"] -= 2  # hiding it from the count does not help
    result, messages = verdict(audit)
    assert result is Verdict.DOES_NOT_VERIFY
    assert any(m.startswith("1 roll(s) missing before roll 6") for m in messages), messages


def test_a_roll_added_or_repeated_is_found(real) -> None:
    audit = forged(real[0])
    audit["rolls"].insert(8, copy.deepcopy(audit["rolls"][7]))
    for number, entry in enumerate(audit["rolls"]):
        entry["sequence"] = number
    audit["dice_used"] += 2
    result, messages = verdict(audit)
    assert result is Verdict.DOES_NOT_VERIFY
    assert any(m.startswith("1 roll(s) added that the seeds never gave: roll 9")
               for m in messages), messages


def test_rolls_out_of_order_fail(real) -> None:
    audit = forged(real[0])
    rolls = audit["rolls"]
    rolls[3]["sequence"], rolls[4]["sequence"] = rolls[4]["sequence"], rolls[3]["sequence"]
    result, messages = verdict(audit)
    assert result is Verdict.DOES_NOT_VERIFY
    assert any("comes after event" in m for m in messages), messages


def test_a_game_that_does_not_start_with_its_opening_roll_fails(real) -> None:
    audit = forged(real[0])
    second = game_rolls(audit, 2)
    audit["rolls"][second[0]]["kind"] = "roll"
    result, messages = verdict(audit)
    assert result is Verdict.DOES_NOT_VERIFY
    assert any("a game starts with its opening roll" in m for m in messages), messages


# -- seeds and commitment -----------------------------------------------------------------------


def test_a_wrong_commitment_fails(real) -> None:
    audit = forged(real[0])
    audit["commitment"] = "0" * 64
    result, messages = verdict(audit)
    assert result is Verdict.DOES_NOT_VERIFY
    assert messages[0].startswith("the seed does not hash to the commitment")


def test_a_new_seed_with_its_own_commitment_fails_on_every_roll_and_the_given_commitment(
        real) -> None:
    audit = forged(real[0])
    other = bytes(range(1, 33))
    audit.update(seed=other.hex(), commitment=hashlib.sha256(other).hexdigest())
    assert verdict(audit)[0] is Verdict.DOES_NOT_VERIFY
    # Its rolls made to fit too (the new dice rarely fit the old game structure: the first
    # roll alone, then): only the commitment seen at the start, or the record, tells.
    audit["rolls"] = audit["rolls"][:1]
    audit["rolls"][0]["dice"] = list(FairDice(other, client_seeds=CLIENTS).roll())
    audit["dice_used"] = 2
    assert verdict(audit)[0] is Verdict.VERIFIED
    check = check_audit(audit, commitment=real[0]["commitment"])
    assert check.verdict is Verdict.DOES_NOT_VERIFY
    assert check.problems == [f"the audit's commitment {audit['commitment']} is not the one "
                              f"given ({real[0]['commitment']}): this is not the seed the "
                              "match committed to"]
    # ... or the record, whose dice are the real ones.
    assert verdict(audit, real[1])[0] is Verdict.DOES_NOT_VERIFY


@pytest.mark.parametrize("seat", [0, 1])
def test_a_changed_client_seed_fails(real, seat) -> None:
    audit = forged(real[0])
    audit["client_seeds"][seat] = "00" + audit["client_seeds"][seat]
    assert verdict(audit)[0] is Verdict.DOES_NOT_VERIFY


@pytest.mark.parametrize("change, expected", [
    ({"seed": "zz"}, "the seed is not hex"),
    ({"seed": "00" * 16}, "the seed is 16 bytes"),
    ({"commitment": "short"}, "commitment: expected SHA-256"),
    ({"algorithm": "tavla-dice-9"}, "unknown dice algorithm"),
    ({"algorithm": "tavla-dice-0"}, "logged"),  # the client seeds then count for nothing
    ({"client_seeds": ["00"]}, "client_seeds: expected two"),
    ({"client_seeds": ["0g", ""]}, "client seed of player 0"),
    ({"rolls": "none"}, "rolls: expected a list"),
    ({"dice_were_scripted": None}, "dice_were_scripted"),
])
def test_malformed_audits_fail(real, change, expected) -> None:
    audit = {**forged(real[0]), **change}
    result, messages = verdict(audit)
    assert result is Verdict.DOES_NOT_VERIFY
    assert any(expected in m for m in messages), messages


def test_an_unrevealed_seed_is_not_verifiable(real) -> None:
    audit = {**forged(real[0]), "seed": None, "seed_revealed": False}
    result, messages = verdict(audit)
    assert result is Verdict.NOT_VERIFIABLE and "not revealed yet" in messages[0]
    assert audit_mismatches(audit) == messages


# -- the .mat record ----------------------------------------------------------------------------


def _mat_lines_with_rolls(mat: str) -> list[int]:
    return [number - 1 for game in mat_dice(mat) for number in
            sorted({roll.line for roll in game.rolls})]


def test_a_roll_changed_in_the_mat_is_found_with_its_game_and_line(real) -> None:
    audit, mat = real
    game = mat_dice(mat)[1]
    roll = game.rolls[3]
    lines = mat.splitlines()
    high, low = roll.dice
    other = f"{high}{low % 6 + 1}" if high != low % 6 + 1 else f"{high % 6 + 1}{low}"
    lines[roll.line - 1] = lines[roll.line - 1].replace(f"{high}{low}:", f"{other}:", 1)
    result, messages = verdict(audit, "\n".join(lines))
    assert result is Verdict.DOES_NOT_VERIFY
    assert any(m.startswith("game 2: roll ") and f"(line {roll.line})" in m
               for m in messages), messages


def test_a_roll_changed_in_the_audit_is_found_by_the_mat(real) -> None:
    audit, mat = real
    audit = forged(audit)
    index = game_rolls(audit, 3)[2]
    audit["rolls"][index]["dice"] = [5, 6] if sorted(audit["rolls"][index]["dice"]) != [5, 6] \
        else [1, 2]
    result, messages = verdict(audit, mat)
    assert any(m.startswith(f"game 3: roll {index + 1} ") and "in the .mat (line" in m
               for m in messages), messages


def test_a_line_removed_from_the_mat_is_found(real) -> None:
    audit, mat = real
    lines = mat.splitlines()
    victim = _mat_lines_with_rolls(mat)[4]
    del lines[victim]
    result, messages = verdict(audit, "\n".join(lines))
    assert result is Verdict.DOES_NOT_VERIFY
    assert any("rolls in the audit and" in m and "is not in the .mat" in m
               for m in messages), messages


def test_the_last_roll_removed_from_both_audit_and_count_is_found_by_the_mat(real) -> None:
    """A shortened audit with its count lowered to match is consistent by itself: only the
    record shows what is missing."""
    audit, mat = real
    audit = forged(audit)
    last = audit["rolls"].pop()
    audit["dice_used"] -= 2
    result, messages = verdict(audit, mat)
    assert result is Verdict.DOES_NOT_VERIFY
    assert any(f"game {last['game']} has" in m and "is not in the audit" in m
               for m in messages), messages


def test_a_whole_game_removed_from_the_mat_is_found(real) -> None:
    audit, mat = real
    lines = mat.splitlines()
    start = next(i for i, line in enumerate(lines) if line.strip() == "Game 2")
    end = next(i for i, line in enumerate(lines) if line.strip() == "Game 3")
    result, messages = verdict(audit, "\n".join(lines[:start] + lines[end:]))
    assert result is Verdict.DOES_NOT_VERIFY
    assert any("Game 3" in m and "without a gap" in m for m in messages), messages
    assert any(m.startswith("game 2 has") and "is not in the .mat" in m for m in messages)


def test_who_opened_is_checked_against_the_mat(real) -> None:
    audit, mat = real
    audit = forged(audit)
    first = next(r for r in audit["rolls"] if r["kind"] == "opening_roll"
                 and r["dice"][0] != r["dice"][1])
    first["dice"].reverse()
    messages = verdict(audit, mat)[1]
    assert any("gives player" in m and "moving first" in m for m in messages), messages


@pytest.mark.parametrize("text, line", [("", 1), ("Game 1\n", 1),
                                        (" 3 point match\n Game 1\n nonsense\n", 3),
                                        (" 3 point match\n Game 1\n A : 0  B : 0\n  1) 7x: 1/2\n",
                                         4)])
def test_an_unreadable_mat_is_a_problem_with_its_line(real, text, line) -> None:
    with pytest.raises(MatDiceError) as error:
        mat_dice(text)
    assert error.value.line == line
    result, messages = verdict(real[0], text)
    assert result is Verdict.DOES_NOT_VERIFY and "the .mat cannot be read" in messages[-1]


# -- the command line ---------------------------------------------------------------------------


def _write(tmp_path: Path, audit: Any, mat: str | None = None) -> list[str]:
    (tmp_path / "audit.json").write_text(json.dumps(audit))
    argv = ["verify-dice", str(tmp_path / "audit.json")]
    if mat is not None:
        (tmp_path / "match.mat").write_text(mat)
        argv += ["--mat", str(tmp_path / "match.mat")]
    return argv


def test_the_command_line_exit_codes(real, tmp_path, capsys) -> None:
    audit, mat = real
    assert main(_write(tmp_path, audit, mat)) == 0
    out = capsys.readouterr().out
    assert out.startswith("OK: ") and "the .mat shows the same" in out

    scripted = forged(audit)
    for entry in scripted["rolls"]:
        entry["dice"], entry["scripted"] = [6, 6], True
    assert main(_write(tmp_path, scripted)) == 1
    out = capsys.readouterr().out
    assert "MISMATCH: rolls 1-" in out and "FAILED:" in out and "OK" not in out

    declared = forged(audit)
    declared.update(dice_were_scripted=True, scripted_rolls=1)
    declared["rolls"].insert(0, {"sequence": 0, "kind": "opening_roll", "game": 1,
                                 "dice": [2, 2], "scripted": True})
    assert main(_write(tmp_path, declared, mat)) == 3
    assert "NOT VERIFIABLE" in capsys.readouterr().out

    assert main(_write(tmp_path, {**audit, "seed": None})) == 3
    (tmp_path / "bad.json").write_text("{")
    assert main(["verify-dice", str(tmp_path / "bad.json")]) == 1
    assert main(["verify-dice", str(tmp_path / "missing.json")]) == 1
    assert main(_write(tmp_path, audit) + ["--mat", str(tmp_path / "missing.mat")]) == 1
    for argv in (["verify-dice", "-", "--mat", "-"],
                 [*_write(tmp_path, audit), "--commitment", "not hex"]):
        with pytest.raises(SystemExit) as usage:
            main(argv)
        assert usage.value.code == 2
    assert main([*_write(tmp_path, audit), "--commitment", audit["commitment"].upper()]) == 0


def test_python_dash_m_runs_the_verifier(real, tmp_path) -> None:
    audit, mat = real
    truncated = forged(audit)
    del truncated["rolls"][-1]
    for bad, code in ((audit, 0), (truncated, 1)):
        result = subprocess.run([sys.executable, "-m", "tavla.engine",
                                 *_write(tmp_path, bad, mat)],
                                capture_output=True, text=True, timeout=60)
        assert result.returncode == code, result.stdout + result.stderr


def test_a_tied_opening_roll_is_always_rolled_again(real) -> None:
    audit = forged(real[0])
    tie = next(i for i, r in enumerate(audit["rolls"]) if r["kind"] == "opening_roll"
               and r["dice"][0] == r["dice"][1])
    shortened = forged(audit)
    del shortened["rolls"][tie + 1:]
    shortened["dice_used"] = 2 * len(shortened["rolls"])
    result, messages = verdict(shortened)
    assert result is Verdict.DOES_NOT_VERIFY
    assert messages == [f"roll {tie + 1} (event {audit['rolls'][tie]['sequence']}, "
                        f"opening_roll, game {audit['rolls'][tie]['game']}): the last roll is a "
                        "tied opening roll, which is always rolled again: rolls are missing "
                        "after it"]
    audit["rolls"][tie + 1]["kind"] = "roll"
    assert any(f"roll {tie + 2} " in m and "follows a tied opening roll" in m
               for m in verdict(audit)[1])


def test_a_forged_value_cannot_flood_the_report_or_write_to_the_terminal(real) -> None:
    audit = forged(real[0])
    audit["rolls"][0]["kind"] = "\x1b[2J\x1b[HOK: all fair" + "x" * 10_000
    messages = verdict(audit)[1]
    assert messages[0].startswith("roll 1: kind '\\x1b[2J") and len(messages[0]) < 120
    assert not any("\x1b" in m for m in messages)
    text = " 1 point match\n Game 1\n A : 0  B : 0\n  1) \x1b[2J" + "y" * 10_000 + "\n"
    with pytest.raises(MatDiceError) as error:
        mat_dice(text)
    assert "\x1b" not in str(error.value) and len(str(error.value)) < 80
