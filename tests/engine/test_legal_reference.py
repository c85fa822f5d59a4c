"""Reference positions with GNU Backgammon's legal plays, checked in under ``data/``.

``data/legal_plays.json`` (made by ``data/make_reference.py``) holds the rule examples and a
sample from every phase of the game, each with gnubg's resulting Position IDs and its notation
of every play. These tests need no gnubg: they are the engine's perft file.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tavla.engine import Position, legal_plays, parse_play
from tests.engine.test_legal_rules import RULE_EXAMPLES

DATA = Path(__file__).with_name("data") / "legal_plays.json"
CASES: list[dict[str, Any]] = json.loads(DATA.read_text())["cases"]


def _id(case: dict[str, Any]) -> str:
    return f"{case['name']}: {case['position_id']} {case['dice'][0]}-{case['dice'][1]}"


def test_the_reference_file_is_substantial() -> None:
    assert len(CASES) >= 400
    assert {case["name"] for case in CASES} >= {name for name, *_ in RULE_EXAMPLES}


@pytest.mark.parametrize("case", CASES, ids=_id)
def test_resulting_positions_are_gnu_backgammons(case: dict[str, Any]) -> None:
    position = Position.from_id(case["position_id"])
    plays = legal_plays(position, *case["dice"])
    assert sorted(play.position.to_id() for play in plays) == case["results"]


@pytest.mark.parametrize("case", CASES, ids=_id)
def test_notation_is_gnu_backgammons(case: dict[str, Any]) -> None:
    position = Position.from_id(case["position_id"])
    plays = legal_plays(position, *case["dice"])
    ours = sorted(play.notation() for play in plays if not play.is_pass)
    assert ours == case["gnubg_plays"]
    # ...and our parser reads gnubg's text back to the same plays.
    parsed = [parse_play(position, *case["dice"], text) for text in case["gnubg_plays"]]
    expected = case["results"] if case["gnubg_plays"] else []
    assert sorted(play.position.to_id() for play in parsed) == expected


def test_rule_examples_agree_with_gnu_backgammon() -> None:
    by_case = {(case["position_id"], *case["dice"]): case for case in CASES}
    for name, position, die1, die2, expected in RULE_EXAMPLES:
        case = by_case[(position.to_id(), die1, die2)]
        assert set(case["gnubg_plays"]) == expected - {""}, name
