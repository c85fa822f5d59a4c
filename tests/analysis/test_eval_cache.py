"""One process evaluates money games and matches at double match point alike, and neither
gets the other's numbers.

gnubg keeps one evaluation cache per process, and its key for a match holds each player's
points to go less one: at double match point (both players one away) with the cube at 1 the
key is a money game's. A worker that answered the opening's cube decision in a 1-point
match then called the money game's opening a double (its no-double equity was the match's
winning chance minus one, -0.47). The evaluator evaluates double match point cubeless (the
cube is dead there, so the numbers are the same to the last digit: checked below).

Each order is run in a fresh process (the cache is the process's), beside a process that
evaluates one kind alone.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]

SCRIPT = """
import json, sys
from tavla.analysis.cube import cube_equities
from tavla.analysis.evaluator import Cube, Level, board, context_for, cube_info
from tavla.engine import Position
import gnubg

opening = Position.initial()
money = Cube(1, None, 0, 0, (0, 0), False)
dmp = Cube(1, None, 0, 3, (2, 2), False)
out = {}
for name in sys.argv[1:]:
    if name == "premise":
        # At double match point gnubg's cubeful and cubeless scores are one and the same
        # (asked of a process that has evaluated nothing else).
        found = [gnubg.find_best_moves(board(opening), cube_info(dmp),
                                       context_for(Level(1), cubeful), (5, 2))
                 for cubeful in (True, False)]
        out[name] = [[(a["move"], a["score"]) for a in plays] for plays in found]
        continue
    if name == "native":
        # gnubg's own analysis (tavla.analysis.native) of a 1-point match: every position
        # at double match point, evaluated cubefully by gnubg itself.
        from tavla.analysis import native, read_mat
        from tavla.engine.selfplay import selfplay_mat
        games = native.native_games(read_mat(selfplay_mat(1, seed=3)), 0)
        out[name] = [[node.best[1] if node.best else None, node.luck] for node in games[0]]
        continue
    if name == "money_plays":
        # Money-game plays from the positions of that match (a bot's or a hint's questions).
        from tavla.analysis import read_mat
        from tavla.engine.selfplay import selfplay_mat
        record = read_mat(selfplay_mat(1, seed=3))
        out[name] = [gnubg.find_best_moves(board(turn.before), cube_info(
            Cube(1, None, turn.player, 0, (0, 0), False)), context_for(Level(0), True),
            turn.dice)[:1] for turn in record.games[0].turns if turn.kind == "play"]
        continue
    eqs = cube_equities(opening, money if name == "money" else dmp, Level(0))
    out[name] = [eqs.no_double, eqs.double_take, eqs.double_pass]
print(json.dumps(out))
"""


def run(*order: str) -> dict[str, Any]:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    done = subprocess.run([sys.executable, "-c", SCRIPT, *order], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def test_money_and_double_match_point_do_not_share_numbers() -> None:
    cubeful, cubeless = run("premise")["premise"]
    assert cubeful == cubeless and len(cubeful) == 8
    money_alone, dmp_alone = run("money"), run("dmp")
    dmp_first, money_first = run("dmp", "money"), run("money", "dmp")
    # The opening is no double in a money game (gnubg: about +0.1 not doubling).
    no_double, double_take, _ = money_alone["money"]
    assert no_double > 0.05 and double_take < no_double
    for both in (dmp_first, money_first):
        assert both["money"] == pytest.approx(money_alone["money"], abs=1e-9)
        assert both["dmp"] == pytest.approx(dmp_alone["dmp"], abs=1e-9)


def test_gnubgs_own_analysis_and_money_games_do_not_share_numbers() -> None:
    """gnubg's own analysis evaluates double match point cubefully (it is gnubg's code, not
    the evaluator's contexts), so it empties the cache before and after: a 1-point match
    analysed after money plays of its positions was scored as the money game (plays worth
    more than +1), and money plays after it would be scored as the match."""
    native_alone, money_alone = run("native"), run("money_plays")
    assert all(best is None or -1.0 <= best <= 1.0 for best, _ in native_alone["native"])
    for both in (run("money_plays", "native"), run("native", "money_plays")):
        assert both["native"] == native_alone["native"]
        assert both["money_plays"] == money_alone["money_plays"]
