"""docs/dice.md is enough to recompute the dice: an independent few-line implementation of
the documented algorithm agrees with the engine and with the page's test vector, the page's
own snippet runs (and refuses what the verifier refuses), and the verdicts and exit codes it
lists are the verifier's."""

from __future__ import annotations

import hashlib
import hmac
import json
import re
import secrets
import subprocess
import sys
from pathlib import Path

import pytest

from tavla.engine.dice import FairDice, die_message
from tavla.engine.dice_audit import EXIT_CODES, Verdict

DOC = Path(__file__).resolve().parents[2] / "docs" / "dice.md"


def documented_die(server: bytes, c0: bytes, c1: bytes, k: int) -> int:
    """Section 2 of docs/dice.md, written from the page, not from the engine."""
    message = (b"tavla-dice-1" + bytes([len(c0)]) + c0 + bytes([len(c1)]) + c1
               + k.to_bytes(8, "big"))
    while True:
        digest = hmac.new(server, message, hashlib.sha256).digest()
        for byte in digest:
            if byte < 252:
                return byte % 6 + 1
        message = digest


@pytest.mark.parametrize("c0, c1", [(b"", b""), (b"\x01", b""), (b"", b"\xff" * 64),
                                    (secrets.token_bytes(32), secrets.token_bytes(32)),
                                    (b"ab", b"c"), (b"a", b"bc")],
                         # Named, not shown: xdist workers must collect the same test ids,
                         # and one case is random bytes.
                         ids=["empty", "one-byte", "long", "random", "ab-c", "a-bc"])
def test_the_documented_algorithm_gives_the_engines_dice(c0: bytes, c1: bytes) -> None:
    server = secrets.token_bytes(32)
    engine = FairDice(server, client_seeds=(c0, c1))
    rolls = [engine.roll_opening()] + [engine.roll() for _ in range(199)]
    dice = [d for roll in rolls for d in roll]
    assert dice == [documented_die(server, c0, c1, k) for k in range(400)]


def test_each_client_seed_changes_the_dice() -> None:
    server = secrets.token_bytes(32)

    def first_dice(c0: bytes, c1: bytes) -> list[int]:
        return [documented_die(server, c0, c1, k) for k in range(40)]

    base = first_dice(b"alice", b"bob")
    assert first_dice(b"alice!", b"bob") != base and first_dice(b"alice", b"bob!") != base
    # The lengths keep the two seeds apart: moving a byte from one to the other changes all.
    assert first_dice(b"ab", b"c") != first_dice(b"a", b"bc")


def _snippet_result(audit: dict[str, object], tmp_path: Path) -> subprocess.CompletedProcess[str]:
    snippet = re.search(r"Or in a few lines of Python.*?```python\n(.*?)```", DOC.read_text(),
                        re.S)
    assert snippet is not None
    (tmp_path / "audit.json").write_text(json.dumps(audit))
    return subprocess.run([sys.executable, "-c", snippet.group(1)], cwd=tmp_path,
                          capture_output=True, text=True, timeout=60)


def test_the_pages_own_snippet_verifies_an_audit_and_refuses_forgeries(tmp_path: Path) -> None:
    server, c0, c1 = secrets.token_bytes(32), secrets.token_bytes(32), b""
    source = FairDice(server, client_seeds=(c0, c1))
    rolls = [{"dice": list(source.roll()), "scripted": False} for _ in range(30)]
    audit = {"algorithm": "tavla-dice-1", "seed": server.hex(),
             "commitment": hashlib.sha256(server).hexdigest(),
             "client_seeds": [c0.hex(), c1.hex()], "dice_were_scripted": False,
             "dice_used": source.counter, "rolls": rolls}
    result = _snippet_result(audit, tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "30 rolls verified"

    sixes = {**audit, "rolls": [{"dice": [6, 6], "scripted": True} for _ in rolls]}
    result = _snippet_result(sixes, tmp_path)
    assert result.returncode != 0 and "proves nothing" in result.stderr
    result = _snippet_result({**audit, "rolls": rolls[:-1]}, tmp_path)
    assert result.returncode != 0 and "rolls are missing" in result.stderr


# -- the test vector (section 6) --------------------------------------------------------------


def _vector() -> tuple[dict[str, str], list[int], str]:
    text = DOC.read_text()
    section = text[text.index("## 6. Test vector"):]
    rows = dict(re.findall(r"^\| ([^|]+?) \| `([0-9a-f]+)` \|$", section, re.M))
    inputs = {
        "S": next(v for k, v in rows.items() if k.startswith("server seed")),
        "commitment": next(v for k, v in rows.items() if k.startswith("commitment")),
        "C0": next(v for k, v in rows.items() if k.startswith("player 0")),
        "C1": next(v for k, v in rows.items() if k.startswith("player 1")),
    }
    block = re.search(r"first 20 dice.*?```text\n(.*?)\n```", section, re.S)
    assert block is not None
    return inputs, [int(d) for d in block.group(1).split()], section


def test_the_test_vector_is_what_the_documented_algorithm_and_the_engine_give() -> None:
    inputs, dice, section = _vector()
    server, c0, c1 = (bytes.fromhex(inputs[key]) for key in ("S", "C0", "C1"))
    assert len(server) == 32 and len(dice) == 20
    assert hashlib.sha256(server).hexdigest() == inputs["commitment"]
    assert dice == [documented_die(server, c0, c1, k) for k in range(20)]
    engine = FairDice(server, client_seeds=(c0, c1))
    assert engine.commitment == inputs["commitment"]
    assert dice == [d for _ in range(10) for d in engine.roll()]

    # The worked details: die 0's message and its HMAC's first byte, and die 14, whose
    # first byte is rejected (so the vector checks the rejection rule too).
    message = re.search(r"message of die 0 is\s+`([0-9a-f]+)`", section)
    assert message is not None and bytes.fromhex(message.group(1)) == die_message(0, (c0, c1))
    assert message.group(1) == (b"tavla-dice-1" + bytes([len(c0)]) + c0 + bytes([len(c1)])
                                + c1 + (0).to_bytes(8, "big")).hex()
    first = hmac.new(server, bytes.fromhex(message.group(1)), hashlib.sha256).digest()
    assert f"its HMAC begins `{first[:1].hex()}`" in section and first[0] % 6 + 1 == dice[0]
    fourteen = hmac.new(server, die_message(14, (c0, c1)), hashlib.sha256).digest()
    assert fourteen[0] >= 252 and fourteen[1] % 6 + 1 == dice[14]
    assert f"Die 14's HMAC begins `{fourteen[:2].hex(' ')}`" in section

    pairs = [f"{dice[i]}-{dice[i + 1]}" for i in range(2, 20, 2)]
    assert f"next roll is {pairs[0]}, then {', '.join(pairs[1:])}." in " ".join(section.split())
    assert f"opening roll is {dice[0]} for player 0 and {dice[1]} for player 1" in section


# -- the verdicts and exit codes (section 4) ---------------------------------------------------


def test_the_documented_exit_codes_are_the_verifiers() -> None:
    text = DOC.read_text()
    section = text[text.index("## 4. Check a match yourself"):text.index("## 5.")]
    rows = re.findall(r"^\| `([A-Z ]+)`[^|]* \| (\d) \|", section, re.M)
    names = {"OK": Verdict.VERIFIED, "FAILED": Verdict.DOES_NOT_VERIFY,
             "NOT VERIFIABLE": Verdict.NOT_VERIFIABLE}
    assert {names[name]: int(code) for name, code in rows} == EXIT_CODES
    assert "Exit status 2 is a wrong command line" in section
