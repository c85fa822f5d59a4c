"""End to end: a match played through the services, its dice audit and ``.mat`` fetched from
the REST API as anyone would, and ``python -m tavla.engine verify-dice`` run on them as a
separate process: the real ones verify; a forged and a truncated version of each are
refused; a match with scripted dice is "not verifiable"."""

from __future__ import annotations

import copy
import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from rest_framework.test import APIClient

from matches.demo.tables import play_out
from matches.models import Match, MatchStatus
from tavla.engine.matdice import mat_dice

pytestmark = pytest.mark.django_db


def _verify(tmp_path: Path, audit: dict[str, Any], mat: str | None = None
            ) -> subprocess.CompletedProcess[str]:
    (tmp_path / "audit.json").write_text(json.dumps(audit))
    argv = [sys.executable, "-m", "tavla.engine", "verify-dice", str(tmp_path / "audit.json")]
    if mat is not None:
        (tmp_path / "match.mat").write_text(mat)
        argv += ["--mat", str(tmp_path / "match.mat")]
    return subprocess.run(argv, capture_output=True, text=True, timeout=120)


def _fetch(match: Match) -> tuple[dict[str, Any], str]:
    client = APIClient()
    audit = client.get(f"/api/matches/{match.pk}/dice/")
    mat = client.get(f"/api/matches/{match.pk}/mat/")
    assert audit.status_code == 200 and mat.status_code == 200
    return audit.json(), mat.content.decode()


@pytest.fixture
def finished(start_match) -> tuple[dict[str, Any], str]:
    # A point a game, no cube: at least three games whatever the dice.
    match = play_out(start_match(match_length=3, cube_enabled=False, gammons_enabled=False),
                     random.Random(11))
    assert match.status == MatchStatus.FINISHED and not match.dice_were_scripted
    return _fetch(match)


def test_the_real_audit_and_record_verify(finished, tmp_path) -> None:
    audit, mat = finished
    assert audit["dice_used"] == 2 * len(audit["rolls"]) > 0
    assert {1, 2, 3} <= {roll["game"] for roll in audit["rolls"]}
    result = _verify(tmp_path, audit, mat)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.startswith("OK: ") and "the .mat shows the same" in result.stdout


def test_a_forged_audit_is_refused(finished, tmp_path) -> None:
    audit, mat = finished
    forged = copy.deepcopy(audit)
    for roll in forged["rolls"]:
        roll["dice"], roll["scripted"] = [6, 6], True
    result = _verify(tmp_path, forged)
    assert result.returncode == 1
    assert "are marked scripted, but the audit says no dice were scripted" in result.stdout
    assert "OK" not in result.stdout

    one = copy.deepcopy(audit)
    one["rolls"][4]["dice"] = [(d % 6) + 1 for d in one["rolls"][4]["dice"]]
    result = _verify(tmp_path, one, mat)
    assert result.returncode == 1
    assert "MISMATCH: roll 5 (event" in result.stdout and "the seeds give" in result.stdout


def test_a_truncated_audit_is_refused(finished, tmp_path) -> None:
    audit, mat = finished
    shortened = copy.deepcopy(audit)
    last = shortened["rolls"].pop()
    result = _verify(tmp_path, shortened)
    assert result.returncode == 1 and "1 roll(s) are missing" in result.stdout

    # With its count lowered to match it is consistent by itself; the record is not.
    shortened["dice_used"] -= 2
    result = _verify(tmp_path, shortened, mat)
    assert result.returncode == 1
    assert f"game {last['game']} has" in result.stdout and "is not in the audit" in result.stdout


def test_a_forged_record_is_refused(finished, tmp_path) -> None:
    audit, mat = finished
    roll = mat_dice(mat)[1].rolls[2]
    high, low = roll.dice
    other = f"{high}{low - 1}" if low > 1 else f"{high - 1 if high > 1 else 2}{low}"
    lines = mat.splitlines()
    lines[roll.line - 1] = lines[roll.line - 1].replace(f"{high}{low}:", f"{other}:", 1)
    result = _verify(tmp_path, audit, "\n".join(lines) + "\n")
    assert result.returncode == 1, result.stdout
    assert "MISMATCH: game 2: roll " in result.stdout
    assert f"in the .mat (line {roll.line})" in result.stdout


def test_a_truncated_record_is_refused(finished, tmp_path) -> None:
    audit, mat = finished
    last = mat_dice(mat)[-1]
    lines = mat.splitlines()
    del lines[last.rolls[-1].line - 1]
    result = _verify(tmp_path, audit, "\n".join(lines) + "\n")
    assert result.returncode == 1, result.stdout
    assert f"MISMATCH: game {last.number} has" in result.stdout
    assert "is not in the .mat" in result.stdout


def test_a_match_with_scripted_dice_is_not_verifiable(start_match, tmp_path) -> None:
    match = play_out(start_match(dice=[[3, 1], [5, 2]], match_length=1), random.Random(4))
    audit, mat = _fetch(match)
    assert audit["dice_were_scripted"] is True and audit["scripted_rolls"] == 2
    result = _verify(tmp_path, audit, mat)
    assert result.returncode == 3, result.stdout
    assert "NOT VERIFIABLE: the audit declares scripted dice" in result.stdout
