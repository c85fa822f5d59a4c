"""GNU Backgammon 1.07's own ``analyse match`` as the reference for Tavla's analysis, and the
agreement between the two, decision by decision.

``reference(paths, plies)`` runs Debian's gnubg 1.07 (``gnubg -t``, its embedded Python) on
``.mat`` files; ``compare(path, reference, plies)`` analyses the same file with
:mod:`tavla.analysis` and counts what agrees. ``python -m tests.analysis.gnubg_reference
--plies N FILE...`` prints the agreement table published in docs/analysis.md.

gnubg's per-player error total is its chequer ``error-skill`` (a total) plus its cube
``error-skill`` times the close cube decisions (gnubg gives the cube's per decision: adding
it to the checker total as it stands made gnubg's PR too low); the count of decisions is the
unforced moves plus the close cube decisions, and the reference PR is 500 times the total
over that count (gnubg's overall "Error rate mEMG" / 2): the same definition as ours.
"""

from __future__ import annotations

import argparse
import dataclasses
import statistics
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tavla.analysis import read_mat
from tavla.analysis.analyse import BLUNDER, DOUBTFUL, ERROR, Decision, analyse_record
from tavla.engine import Position, parse_play
from tests.engine.gnubg_ref import run_gnubg_scripts

# Runs inside gnubg 1.07: analyse each match at PLIES; for every action of every game its
# kind, player, board, dice, gnubg's scored plays (the position after each), the played
# one's place, the luck, and the cube evaluation; and each player's statistics.
SCRIPT = """
import gnubg
plies, paths = PAYLOAD
for command in ("set player 0 human", "set player 1 human", "set display off",
                "set analysis chequerplay evaluation plies %d" % plies,
                "set analysis cubedecision evaluation plies %d" % plies):
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
    match = gnubg.match(analysis=1, boards=1, statistics=1, verbose=1)
    games = []
    for game in match["games"]:
        actions = []
        for action in game["game"]:
            analysis = action.get("analysis") or {}
            row = {"action": action.get("action"), "player": action.get("player"),
                   "board": action.get("board"), "dice": action.get("dice"),
                   "luck": analysis.get("luck-value"), "imove": analysis.get("imove"),
                   "nd": analysis.get("nd-cubeful-eq"), "dt": analysis.get("dt-cubeful-eq")}
            if action.get("action") == "move":
                row["played"] = after(action["board"], action["move"])
                row["moves"] = [[after(action["board"], m["move"]), m["score"]]
                                for m in analysis.get("moves") or []]
            actions.append(row)
        games.append(actions)
    stats = {}
    for side, seat in (("X", 0), ("O", 1)):
        s = match["stats"][side]
        stats[seat] = {"checker": s["moves"]["error-skill"],
                       "unforced": s["moves"]["unforced-moves"],
                       "cube": s["cube"]["error-skill"], "close": s["cube"]["close-cube"],
                       "luck": s["dice"]["luck"]}
    return {"games": games, "stats": stats}

emit([analyse(path) for path in paths])
"""


def reference(paths: Sequence[Path], plies: int, processes: int = 4) -> dict[Path, Any]:
    """gnubg 1.07's analysis of each file at ``plies``, a few gnubg processes at once."""
    shares = [[str(p) for p in paths[i::processes]] for i in range(processes)]
    shares = [share for share in shares if share]
    answers = run_gnubg_scripts(SCRIPT, [[plies, share] for share in shares], timeout=3600)
    out: dict[Path, Any] = {}
    for share, done in zip(shares, answers, strict=True):
        for path, answer in zip(share, done, strict=True):
            out[Path(path)] = answer
    return out


def gnubg_mark(loss: float) -> str:
    if loss >= BLUNDER - 1e-9:
        return "blunder"
    if loss >= ERROR - 1e-9:
        return "error"
    if loss >= DOUBTFUL - 1e-9:
        return "doubtful"
    return ""


def gnubg_pr(stats: dict[str, float]) -> float:
    """gnubg's PR from its statistics: its cube ``error-skill`` is already per close cube
    decision (gnubg's "Error rate" of the cube), so the cube's total is it times their
    number; the checker ``error-skill`` is a total."""
    decisions = stats["unforced"] + stats["close"]
    total = stats["checker"] + stats["cube"] * stats["close"]
    return 500.0 * total / decisions if decisions else 0.0


@dataclass
class Agreement:
    plays: int = 0
    best: int = 0
    marks: int = 0
    bearoff_plays: int = 0
    bearoff_best: int = 0
    cube: int = 0
    cube_agree: int = 0
    pr_deltas: list[float] = field(default_factory=list)
    luck_deltas: list[float] = field(default_factory=list)
    misses: list[str] = field(default_factory=list)

    def add(self, other: Agreement) -> None:
        for name in ("plays", "best", "marks", "bearoff_plays", "bearoff_best", "cube",
                     "cube_agree"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.pr_deltas += other.pr_deltas
        self.luck_deltas += other.luck_deltas
        self.misses += other.misses

    def table(self) -> str:
        def pct(a: int, b: int) -> str:
            return f"{100.0 * a / b:.1f}% ({a}/{b})" if b else "n/a"

        return "\n".join([
            f"best play        {pct(self.best, self.plays)}",
            f"  bear-offs      {pct(self.bearoff_best, self.bearoff_plays)}",
            f"marks            {pct(self.marks, self.plays)}",
            f"cube verdicts    {pct(self.cube_agree, self.cube)}",
            f"PR delta         median {statistics.median(self.pr_deltas):.2f}, "
            f"max {max(self.pr_deltas):.2f}",
            f"luck delta (EMG) median {statistics.median(self.luck_deltas):.3f}, "
            f"max {max(self.luck_deltas):.3f}",
        ])


def _after_best(decision: Decision) -> str:
    assert decision.dice is not None
    position = Position.from_id(decision.position_id)
    return parse_play(position, *decision.dice, decision.best or decision.chosen).position.to_id()


def compare(path: Path, ref: dict[str, Any], plies: int, *, own: bool = False) -> Agreement:
    """Our analysis of ``path`` against gnubg's ``ref``, decision by decision. ``own``:
    Tavla's own analysis (the record without its text, so gnubg's own analysis in the
    package, tavla.analysis.native, cannot import it), as every table gnubg does not know
    gets."""
    record = read_mat(path.read_text())
    if own:
        record = dataclasses.replace(record, text="")
    analysis = analyse_record(record, plies)
    out = Agreement()
    games: dict[int, list[Decision]] = {}
    for decision in analysis.decisions:
        games.setdefault(decision.game, []).append(decision)
    numbers = sorted(games)
    for number, actions in zip(numbers, ref["games"], strict=False):
        ours = games[number]
        our_moves = [d for d in ours if d.kind == "move"]
        our_cube = [d for d in ours if d.kind in ("no_double", "double")]
        their_moves = [a for a in actions if a["action"] == "move"]
        for mine, theirs in zip(our_moves, their_moves, strict=False):
            if mine.position_id != theirs["board"] or mine.forced or len(theirs["moves"]) < 2:
                continue
            scores = dict(reversed(theirs["moves"]))
            top = theirs["moves"][0][1]
            best_after = _after_best(mine)
            same = best_after == theirs["moves"][0][0] or scores.get(best_after, -9) >= top - 1e-5
            played = scores.get(theirs["played"], theirs["moves"][-1][1])
            mark_agrees = gnubg_mark(top - played) == mine.mark
            bearoff = all(Position.from_id(mine.position_id).mover[i] == 0 for i in range(6, 25))
            out.plays += 1
            out.best += same
            out.marks += mark_agrees
            out.bearoff_plays += bearoff
            out.bearoff_best += bearoff and same
            if not same or not mark_agrees:
                out.misses.append(f"{path.name} g{number} {mine.position_id} {mine.dice} "
                                  f"ours {mine.best or mine.chosen} {mine.loss:.3f} {mine.mark!r}"
                                  f" gnubg loss {top - played:.3f}")
        # Cube verdicts: gnubg's no double / double-take against our double-pass (the match
        # equity table is the same), at every decision both analysed.
        their_cube = [a for a in actions
                      if a["nd"] is not None and a["action"] in ("move", "double")]
        by_board: dict[tuple[str, str], dict[str, Any]] = {}
        for action in their_cube:
            by_board.setdefault((action["board"], action["action"]), action)
        for mine in our_cube:
            kind = "double" if mine.kind == "double" else "move"
            theirs = by_board.get((mine.position_id, kind))
            if theirs is None or mine.cube is None:
                continue
            if "mwc_double_pass" in mine.cube:
                dp = mine.cube["mwc_double_pass"]
                theirs_double = min(theirs["dt"], dp) > theirs["nd"]
            else:
                theirs_double = min(2 * theirs["dt"], 1.0) > theirs["nd"]
            ours_double = mine.best == "double"
            out.cube += 1
            out.cube_agree += ours_double == theirs_double
    for seat in (0, 1):
        stats = ref["stats"][str(seat)] if str(seat) in ref["stats"] else ref["stats"][seat]
        out.pr_deltas.append(abs(analysis.players[seat].pr - gnubg_pr(stats)))
        out.luck_deltas.append(abs(analysis.players[seat].luck - stats["luck"]))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--plies", type=int, default=0)
    parser.add_argument("--misses", action="store_true")
    parser.add_argument("--own", action="store_true",
                        help="Tavla's own analysis, not gnubg's own read back")
    parser.add_argument("files", nargs="+", type=Path)
    args = parser.parse_args()
    refs = reference(args.files, args.plies)
    total = Agreement()
    for path in args.files:
        part = compare(path, refs[path], args.plies, own=args.own)
        print(f"{path.name}: best {part.best}/{part.plays}, marks {part.marks}/{part.plays}, "
              f"cube {part.cube_agree}/{part.cube}, PR deltas "
              f"{', '.join(f'{d:.2f}' for d in part.pr_deltas)}, luck deltas "
              f"{', '.join(f'{d:.3f}' for d in part.luck_deltas)}")
        total.add(part)
    print(f"gnubg 1.07 against Tavla at {args.plies}-ply:")
    print(total.table())
    if args.misses:
        print("\n".join(total.misses))


if __name__ == "__main__":
    main()
