"""Differential test of the analysis against Debian's GNU Backgammon 1.07.

Twenty .mat matches -- ten of our own exports (random self-play, so full of mistakes) and
ten of gnubg's own self-play (tests/analysis/data, made by make_gnubg_selfplay.py) -- are
analysed by tavla.analysis and by gnubg 1.07's ``analyse match``, both at 0-ply. Compared:

* the best checker play of every unforced decision both analysed (same position and dice;
  a play gnubg scores exactly as high as its first counts as the same);
* each player's error rate per decision (mEMG) over the match.

The thresholds are what was measured (see docs/analysis.md) less a small margin; the test
fails if either gets worse.
"""

from __future__ import annotations

import statistics
from pathlib import Path
from typing import Any

import pytest

from tavla.analysis import read_mat
from tavla.analysis.analyse import analyse_record
from tavla.engine import Position, parse_play
from tavla.engine.selfplay import selfplay_mat
from tests.engine.gnubg_ref import gnubg_path, run_gnubg_scripts

DATA = Path(__file__).with_name("data")
#: Measured on these 20 matches (docs/analysis.md): 98.6% best-move agreement (2788 of
#: 2827; the rest are near-ties, within 0.005 equity but one); error-rate differences of
#: 0.3 mEMG median and 4.6 at most on gnubg's self-play, and of 4% median and 47% at most
#: (relative) on random self-play, where random doubles and takes dominate and our cube
#: equities (the 21 rolls averaged) are a ply deeper than gnubg's 0-ply cube formula.
MIN_AGREEMENT = 0.98
MAX_MEDIAN_DIFFERENCE_GNUBG = 1.0
MAX_DIFFERENCE_GNUBG = 6.0
MAX_MEDIAN_RELATIVE_RANDOM = 0.08
MAX_RELATIVE_RANDOM = 0.6
TIE = 1e-5
PROCESSES = 10

# Runs inside gnubg 1.07: analyse the match at 0-ply; for each checker play its position,
# dice, the position after gnubg's best play; and each player's error rate.
REFERENCE_SCRIPT = """
import gnubg
for command in ("set player 0 human", "set player 1 human", "set display off",
                "set analysis chequerplay evaluation plies 0",
                "set analysis cubedecision evaluation plies 0",
                "set analysis luck evaluation plies 0"):
    gnubg.command(command)

def after(position_id, pairs):
    board = gnubg.positionfromid(position_id)
    opponent, mover = list(board[0]), list(board[1])
    for source, destination in pairs:
        mover[source - 1] -= 1
        if destination > 0:
            mover[destination - 1] += 1
            if opponent[24 - destination] == 1:
                opponent[24 - destination] = 0
                opponent[24] += 1
    return gnubg.positionid((tuple(opponent), tuple(mover)))

def analyse(path):
    gnubg.command("import mat " + path)
    gnubg.command("analyse match")
    match = gnubg.match(analysis=1, boards=1, statistics=1, verbose=0)
    plays = []
    for number, game in enumerate(match["games"], start=1):
        for action in game["game"]:
            analysis = action.get("analysis") or {}
            moves = analysis.get("moves") or []
            if action.get("action") != "move" or len(moves) < 2:
                continue
            scores = {}
            for entry in moves:
                scores.setdefault(after(action["board"], entry["move"]), entry["score"])
            plays.append([number, action["board"], sorted(action["dice"]),
                          after(action["board"], moves[0]["move"]), moves[0]["score"],
                          scores])
    rates = []
    for side in ("X", "O"):  # gnubg calls the left column (player 0) X
        stats = match["stats"][side]
        decisions = stats["moves"]["unforced-moves"] + stats["cube"]["close-cube"]
        error = stats["moves"]["error-skill"] + stats["cube"]["error-skill"]
        rates.append(1000.0 * error / decisions if decisions else 0.0)
    return {"plays": plays, "rates": rates}

emit([analyse(path) for path in PAYLOAD])
"""


def _corpus(tmp_path: Path) -> list[Path]:
    files = sorted(DATA.glob("gnubg_selfplay_[0-9][0-9].mat"))
    for seed in range(1, 11):
        path = tmp_path / f"tavla_selfplay_{seed:02d}.mat"
        path.write_text(selfplay_mat(3 if seed % 2 else 5, seed, names=("Ann", "Bob")))
        files.append(path)
    return files


def _ours(path: Path) -> dict[str, Any]:
    """Our 0-ply analysis: the Position ID (mover's view) after the best play of each
    unforced checker decision, keyed by game, position and dice; each player's error rate."""
    analysis = analyse_record(read_mat(path.read_text()), plies=0)
    best: dict[tuple[int, str, tuple[int, ...]], str] = {}
    for decision in analysis.decisions:
        if decision.kind != "move" or decision.forced or decision.dice is None:
            continue
        position = Position.from_id(decision.position_id)
        played = parse_play(position, *decision.dice, decision.best or decision.chosen)
        best[(decision.game, decision.position_id, tuple(sorted(decision.dice)))] = \
            played.position.to_id()
    return {"best": best, "rates": [1000.0 * p.error_rate for p in analysis.players]}


@pytest.mark.slow
@pytest.mark.skipif(gnubg_path() is None, reason="GNU Backgammon is not installed")
def test_best_moves_and_error_rates_agree_with_gnubg_1_07(tmp_path: Path) -> None:
    files = _corpus(tmp_path)
    assert len(files) >= 20
    # A few gnubg processes, each analysing a share of the files in turn.
    shares = [[str(path) for path in files[i::PROCESSES]] for i in range(PROCESSES)]
    answers = run_gnubg_scripts(REFERENCE_SCRIPT, shares, timeout=600)
    by_path = {path: answer for share, done in zip(shares, answers, strict=True)
               for path, answer in zip(share, done, strict=True)}
    references = [by_path[str(path)] for path in files]
    agree = total = 0
    gnubg_differences: list[float] = []
    random_relative: list[float] = []
    for path, reference in zip(files, references, strict=True):
        ours = _ours(path)
        for number, position_id, dice, best_after, best_score, scores in reference["plays"]:
            key = (number, position_id, tuple(dice))
            if key not in ours["best"]:
                continue
            total += 1
            # The same play, or one gnubg scores exactly as high (a decided game, where
            # every play wins or loses the same, or two plays that leave equal positions).
            mine = ours["best"][key]
            agree += mine == best_after or scores.get(mine, -9.0) >= best_score - TIE
        pairs = list(zip(ours["rates"], reference["rates"], strict=True))
        print(f"{path.name}: error rates (mEMG) ours {ours['rates'][0]:.1f} "
              f"{ours['rates'][1]:.1f}, gnubg {reference['rates'][0]:.1f} "
              f"{reference['rates'][1]:.1f}")
        if path.name.startswith("gnubg_"):
            gnubg_differences += [abs(a - b) for a, b in pairs]
        else:
            random_relative += [abs(a - b) / b for a, b in pairs]
            # Who played worse is never in doubt.
            assert (ours["rates"][0] > ours["rates"][1]) == \
                (reference["rates"][0] > reference["rates"][1]) or \
                abs(reference["rates"][0] - reference["rates"][1]) < 0.1 * max(
                    reference["rates"])
    agreement = agree / total
    print(f"best-move agreement {agree}/{total} = {agreement:.2%}; error rate differences: "
          f"gnubg self-play median {statistics.median(gnubg_differences):.2f} mEMG, max "
          f"{max(gnubg_differences):.2f}; random self-play median "
          f"{statistics.median(random_relative):.1%}, max {max(random_relative):.1%}")
    assert total > 1000
    assert agreement >= MIN_AGREEMENT
    assert statistics.median(gnubg_differences) <= MAX_MEDIAN_DIFFERENCE_GNUBG
    assert max(gnubg_differences) <= MAX_DIFFERENCE_GNUBG
    assert statistics.median(random_relative) <= MAX_MEDIAN_RELATIVE_RANDOM
    assert max(random_relative) <= MAX_RELATIVE_RANDOM
