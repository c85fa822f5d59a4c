"""``python -m tavla.engine``, run as a subprocess the way a user or a script runs it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tavla.engine import Position, legal_plays

ROOT = Path(__file__).resolve().parents[2]
OPENING = "4HPwATDgc/ABMA"
# The mover on the bar against a closed board: 3-1 cannot be played.
CLOSED_OUT = "27YBADjg/wcAQA"


def run(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tavla.engine", *args],
        cwd=ROOT, input=stdin, capture_output=True, text=True, timeout=60, check=False,
    )


def test_show_draws_the_board_with_pip_counts() -> None:
    done = run("show", OPENING)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == f"Position ID: {OPENING}"
    assert lines[1].startswith("+13-14-15-16-17-18------19-20-21-22-23-24-+")
    assert lines[-1].startswith("+12-11-10--9--8--7-------6--5--4--3--2--1-+")
    assert "|BAR|" in done.stdout
    assert "pips 167" in lines[1] and "pips 167" in lines[-1]
    # the mover (X) has 5 on its 6 point: the bottom row shows X under the "6"
    bottom = lines[-2]
    assert bottom[lines[-1].index("-6-") + 1] == "X"


def test_show_a_checker_on_the_bar() -> None:
    done = run("show", CLOSED_OUT)
    assert done.returncode == 0, done.stderr
    assert "| X |" in done.stdout  # the mover's checker in the bar column
    assert "14" in done.stdout  # a stack taller than five shows its count


def test_legal_lists_every_play_with_its_resulting_id() -> None:
    done = run("legal", OPENING, "3", "1")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert len(lines) == 16
    assert "4HPwATCwZ/ABMA 8/5 6/5" in lines
    expected = {p.position.to_id(): p.notation()
                for p in legal_plays(Position.from_id(OPENING), 3, 1)}
    assert dict(line.split(" ", 1) for line in lines) == expected


def test_legal_with_no_play_prints_the_unchanged_id() -> None:
    done = run("legal", CLOSED_OUT, "3", "1")
    assert done.returncode == 0, done.stderr
    assert done.stdout == f"{CLOSED_OUT} (no legal play)\n"


def test_legal_batch() -> None:
    requests = [
        {"position_id": OPENING, "dice": [6, 5]},
        {"position_id": CLOSED_OUT, "dice": [3, 1]},
        {"position_id": OPENING, "dice": [1, 1]},
    ]
    done = run("legal", "--batch", stdin="".join(json.dumps(r) + "\n" for r in requests))
    assert done.returncode == 0, done.stderr
    answers = [json.loads(line) for line in done.stdout.splitlines()]
    assert len(answers) == 3
    assert answers[0]["results"] == sorted(
        p.position.to_id() for p in legal_plays(Position.initial(), 6, 5))
    assert answers[1] == {"results": [CLOSED_OUT]}
    assert len(answers[2]["results"]) == 42


def test_legal_batch_keeps_going_after_a_bad_line_and_fails_at_the_end() -> None:
    lines = [
        json.dumps({"position_id": OPENING, "dice": [3, 1]}),
        "",  # skipped
        "{not json",
        json.dumps({"position_id": "nonsense", "dice": [3, 1]}),
        json.dumps({"position_id": OPENING, "dice": [3, 7]}),
        json.dumps({"position_id": OPENING, "dice": [3]}),
        json.dumps({"position_id": OPENING}),
        json.dumps({"position_id": OPENING, "dice": [2, 1]}),
    ]
    done = run("legal", "--batch", stdin="\n".join(lines) + "\n")
    assert done.returncode == 1
    answers = [json.loads(line) for line in done.stdout.splitlines()]
    assert len(answers) == 7
    assert len(answers[0]["results"]) == 16
    assert answers[1]["error"].startswith("line 3: not JSON")
    assert "not a Position ID" in answers[2]["error"]
    assert "1 to 6" in answers[3]["error"]
    assert "two dice" in answers[4]["error"]
    assert "expected" in answers[5]["error"]
    assert len(answers[6]["results"]) == 15


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("show", "4HPwATDgc/ABM"), "14 characters"),
        (("legal", "4HPwATDgc/ABM", "3", "1"), "14 characters"),
        (("show", "4HPwATDgc/ABMB"), "did you mean"),
    ],
)
def test_rejected_input_exits_1_with_a_message(args: tuple[str, ...], message: str) -> None:
    done = run(*args)
    assert done.returncode == 1
    assert done.stdout == ""
    assert done.stderr.startswith("error: ") and message in done.stderr


@pytest.mark.parametrize(
    "args",
    [(), ("legal", OPENING, "3", "7"), ("legal", OPENING, "3"), ("legal", "--batch", OPENING),
     ("frobnicate",)],
)
def test_wrong_command_lines_exit_2(args: tuple[str, ...]) -> None:
    done = run(*args)
    assert done.returncode == 2
    assert "usage:" in done.stderr
