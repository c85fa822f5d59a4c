"""Bad input on the engine's command line: a clear error by line number, no traceback."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tavla.engine.errors import InvalidPositionIdError
from tavla.engine.position import Position

START = "4HPwATDgc/ABMA"


def test_a_batch_answers_good_lines_and_reports_each_bad_one_by_number_on_stderr() -> None:
    lines = [
        json.dumps({"position_id": START, "dice": [3, 1]}),
        "[" * 100_000,                                          # nested too deeply
        json.dumps({"position_id": "AAAAAAAAAAAAAA", "dice": [3, 1]}),  # nobody on the board
        "\udcff not utf-8",                                      # replaced below by raw bytes
        json.dumps({"position_id": START, "dice": [6, 6]}),
    ]
    data = "\n".join(lines).encode("utf-8", "surrogateescape") + b"\n"
    result = subprocess.run([sys.executable, "-m", "tavla.engine", "legal", "--batch"],
                            input=data, capture_output=True, timeout=60)
    out = result.stdout.decode().splitlines()
    err = result.stderr.decode()
    assert result.returncode == 1
    assert "Traceback" not in err
    assert len(out) == 5
    assert "results" in json.loads(out[0]) and "results" in json.loads(out[4])
    for number in (2, 3, 4):
        assert json.loads(out[number - 1])["error"].startswith(f"line {number}:")
        assert f"line {number}:" in err
    assert "nest" in err and "neither side has a checker" in err


def test_show_refuses_a_board_with_no_checker_of_either_side() -> None:
    result = subprocess.run([sys.executable, "-m", "tavla.engine", "show", "AAAAAAAAAAAAAA"],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert "neither side has a checker" in result.stderr


def test_a_position_with_no_checker_of_either_side_is_refused_one_side_alone_is_not() -> None:
    with pytest.raises(InvalidPositionIdError, match="neither side"):
        Position.from_id("AAAAAAAAAAAAAA")
    # One side borne off completely ends a game: that position exists (the last play's result).
    only_one = Position((0,) * 25, (0, 2) + (0,) * 23)
    assert Position.from_id(only_one.to_id()) == only_one
