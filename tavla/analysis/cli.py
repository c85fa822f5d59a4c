"""``python -m tavla.analysis FILE.mat [--plies N] [--json] [--no-cube] [--no-gammons]
[--max-cube N]``: analyse a match record.

Never a traceback: a file no match can produce exits 1 with ``FILE: line N: what is wrong``;
anything else that stops the analysis exits 1 with ``FILE: cannot analyse: why``.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence

from tavla.analysis.analyse import AnalysisRules, MatchAnalysis, analyse_record
from tavla.analysis.matread import MatFileError, read_mat
from tavla.engine.rules import MAX_CUBE


def format_summary(analysis: MatchAnalysis) -> str:
    """Each player's PR, errors, blunders and luck as a small table."""
    rows = [
        ("", *(player.name for player in analysis.players)),
        ("PR", *(f"{p.pr:.2f}" for p in analysis.players)),
        ("Error rate (mEMG)", *(f"{1000 * p.error_rate:.1f}" for p in analysis.players)),
        ("Decisions (unforced)", *(str(p.decisions) for p in analysis.players)),
        ("Doubtful", *(str(p.doubtful) for p in analysis.players)),
        ("Errors", *(str(p.errors) for p in analysis.players)),
        ("Blunders", *(str(p.blunders) for p in analysis.players)),
        ("Luck (EMG)", *(f"{p.luck:+.3f}" for p in analysis.players)),
        ("Rating", *(p.rating for p in analysis.players)),
        ("Luck rating", *(p.luck_rating for p in analysis.players)),
    ]
    widths = [max(len(row[i]) for row in rows) for i in range(3)]
    lines = [f"Analysed at {analysis.plies}-ply with {analysis.engine}"]
    lines += ["  ".join(cell.ljust(widths[i]) for i, cell in enumerate(row)).rstrip()
              for row in rows]
    lines += format_resignations(analysis)
    return "\n".join(lines)


def format_resignations(analysis: MatchAnalysis) -> list[str]:
    """One line per resignation decision (an offer, its answer), with its mark and loss as
    for any decision; gnubg leaves them out of PR and the counts above, and so do we."""
    resign = [d for d in analysis.decisions if d.kind.endswith("resign")]
    if not resign:
        return []
    lines = ["Resignations (not in PR, as in gnubg)"]
    for d in resign:
        name = analysis.players[d.player].name
        verdict = f"{d.mark}, loses {d.loss:.3f}, best: {d.best}" if d.mark else (
            f"loses {d.loss:.3f}, best: {d.best}" if d.loss >= 0.0005 else "right")
        lines.append(f"  game {d.game}: {name} {d.chosen}: {verdict}")
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m tavla.analysis",
        description="Analyse a Jellyfish .mat match with GNU Backgammon's neural nets.",
    )
    parser.add_argument("file", help="the .mat file ('-' reads standard input)")
    parser.add_argument("--plies", type=int, choices=(0, 1, 2), default=0,
                        help="evaluation depth (default 0)")
    parser.add_argument("--json", action="store_true",
                        help="print the whole analysis, every decision, as JSON")
    # The table's rules a .mat cannot carry.
    parser.add_argument("--no-cube", action="store_true",
                        help="the table played without the cube: no cube decision is analysed")
    parser.add_argument("--no-gammons", action="store_true",
                        help="the table played without gammons: equities are cubeless "
                             "winning chances")
    parser.add_argument("--max-cube", type=int, choices=(2, 4, 8, 16, 32, 64),
                        default=MAX_CUBE, help="the table's highest cube (default 64)")
    args = parser.parse_args(argv)
    rules = AnalysisRules(cube=not args.no_cube, gammons=not args.no_gammons,
                          max_cube=args.max_cube)
    try:
        if args.file == "-":
            text = sys.stdin.read()
        else:
            with open(args.file, encoding="utf-8", errors="replace") as handle:
                text = handle.read()
    except OSError as error:
        print(f"{args.file}: {error.strerror}", file=sys.stderr)
        return 2
    try:
        record = read_mat(text)
        analysis = analyse_record(record, args.plies, rules=rules)
    except MatFileError as error:
        print(f"{args.file}: {error}", file=sys.stderr)
        return 1
    except Exception as error:  # noqa: BLE001 - the promise is no traceback, whatever the file
        print(f"{args.file}: cannot analyse: {error or type(error).__name__}", file=sys.stderr)
        return 1
    if args.json:
        print(json.dumps(analysis.to_dict(), indent=1))
    else:
        print(format_summary(analysis))
    return 0
