"""docs/dice.md is enough to recompute the dice: an independent few-line implementation of
the documented algorithm agrees with the engine, and the page's own snippet runs."""

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

from tavla.engine.dice import FairDice

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


def test_the_pages_own_snippet_verifies_an_audit(tmp_path: Path) -> None:
    snippet = re.search(r"Or in a few lines of Python.*?```python\n(.*?)```", DOC.read_text(),
                        re.S)
    assert snippet is not None
    server, c0, c1 = secrets.token_bytes(32), secrets.token_bytes(32), b""
    source = FairDice(server, client_seeds=(c0, c1))
    rolls = [{"dice": list(source.roll()), "scripted": False} for _ in range(30)]
    audit = {"algorithm": "tavla-dice-1", "seed": server.hex(),
             "commitment": hashlib.sha256(server).hexdigest(),
             "client_seeds": [c0.hex(), c1.hex()],
             "rolls": [{"dice": [1, 1], "scripted": True}, *rolls]}
    (tmp_path / "audit.json").write_text(json.dumps(audit))
    result = subprocess.run([sys.executable, "-c", snippet.group(1)], cwd=tmp_path,
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "30 rolls verified"
