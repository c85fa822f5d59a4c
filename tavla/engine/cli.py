"""``python -m tavla.engine``: the rules engine from the command line.

Commands (``python -m tavla.engine COMMAND --help`` for each):

``show POSITION_ID``
    Draws the board from the side of the player on roll, with both pip counts.
``legal POSITION_ID D1 D2``
    One line per legal play: the Position ID right after the play (before the turn passes,
    so the same player is still "on roll" in it, as in GNU Backgammon), a space, and the
    play in standard notation. A roll that cannot be played prints one line: the unchanged
    ID followed by ``(no legal play)``. Lines are ordered by the moves, highest points first.
``legal --batch``
    Reads JSON lines ``{"position_id": "...", "dice": [d1, d2]}`` from stdin and writes, for
    each, one line ``{"results": [...]}`` with the sorted distinct Position IDs after every
    legal play (the unchanged ID alone when nothing can be played). A line that cannot be
    read gets ``{"error": "line N: ..."}`` in its place, the same message goes to stderr,
    and the batch goes on; the exit status is then 1. Blank lines are skipped.
``verify-dice AUDIT.json [--mat FILE.mat] [--commitment HEX]``
    Recomputes every fair roll of a finished match from its dice audit (the JSON of
    ``GET /api/matches/<id>/dice/``) by the algorithm of ``docs/dice.md`` and prints each
    problem (:mod:`tavla.engine.dice_audit`). With ``--mat`` it also checks that the match
    record shows the audit's rolls, game for game and roll for roll. Its own exit status:
    0 verified, 1 the dice do not verify, 3 not verifiable (scripted dice, or the seed not
    revealed yet), 2 a wrong command line.
``selfplay --length N --seed S``
    Plays a random N-point match with the cube from the seed and prints it as a Jellyfish
    ``.mat`` file (GNU Backgammon's ``import mat`` reads it). The same seed gives the same match.

Exit status: 0 on success; 1 when an input was rejected (message on stderr, or error lines in
a batch); 2 for a wrong command line; 3 only from ``verify-dice``, for dice that cannot be
proved fair although nothing is wrong with them.

To add a command: write ``_command_NAME(args) -> int`` and register it in :func:`build_parser`
with ``set_defaults(handler=...)``.
"""

from __future__ import annotations

import argparse
import io
import json
import re
import sys
from collections.abc import Sequence
from typing import Any, TextIO

from tavla.engine.board_text import draw_board
from tavla.engine.dice_audit import Verdict, check_audit
from tavla.engine.errors import EngineError
from tavla.engine.moves import check_dice, legal_plays
from tavla.engine.notation import PASS_TEXT
from tavla.engine.plays import Play
from tavla.engine.position import Position
from tavla.engine.selfplay import selfplay_mat


def _die(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"a die shows 1 to 6, not {text!r}") from None
    if not 1 <= value <= 6:
        raise argparse.ArgumentTypeError(f"a die shows 1 to 6, not {value}")
    return value


def _play_order(play: Play) -> list[tuple[int, int]]:
    return sorted((-move.source, -move.destination) for move in play.moves)


def _command_show(args: argparse.Namespace) -> int:
    print(draw_board(Position.from_id(args.position_id)))
    return 0


def _command_legal(args: argparse.Namespace) -> int:
    if args.batch:
        if args.position_id is not None:
            raise _UsageError("legal --batch reads its positions from stdin: give no arguments")
        # Undecodable bytes become U+FFFD, so such a line is one bad line, not a crash.
        source = io.TextIOWrapper(sys.stdin.buffer, encoding="utf-8", errors="replace")
        return _legal_batch(source, sys.stdout, sys.stderr)
    if args.position_id is None or args.die2 is None:
        raise _UsageError("legal needs POSITION_ID D1 D2 (or --batch)")
    position = Position.from_id(args.position_id)
    plays = sorted(legal_plays(position, args.die1, args.die2), key=_play_order)
    for play in plays:
        print(play.position.to_id(), play.notation() or PASS_TEXT)
    return 0


def _batch_results(line: str) -> list[str]:
    try:
        request: Any = json.loads(line)
    except json.JSONDecodeError as error:
        raise EngineError(f"not JSON: {error}") from None
    except RecursionError:
        raise EngineError("not JSON this reader accepts: nested too deeply") from None
    if not isinstance(request, dict) or set(request) != {"position_id", "dice"}:
        raise EngineError('expected {"position_id": "...", "dice": [d1, d2]}')
    dice = request["dice"]
    if not isinstance(dice, list) or len(dice) != 2:
        raise EngineError(f"dice: expected a list of two dice, not {dice!r}")
    check_dice(dice[0], dice[1])
    position = Position.from_id(request["position_id"])
    return sorted({play.position.to_id() for play in legal_plays(position, dice[0], dice[1])})


def _legal_batch(source: TextIO, out: TextIO, errors: TextIO | None = None) -> int:
    """Answer every line of ``source``; a bad line is answered with its error (and reported
    by number on ``errors``), the others still get their results."""
    status = 0
    for number, line in enumerate(source, start=1):
        if not line.strip():
            continue
        try:
            answer: dict[str, Any] = {"results": _batch_results(line)}
        except EngineError as error:
            answer = {"error": f"line {number}: {error}"}
            if errors is not None:
                print(f"error: line {number}: {error}", file=errors)
            status = 1
        out.write(json.dumps(answer) + "\n")
    return status


def _read_text(path: str, what: str) -> str:
    try:
        if path == "-":
            return sys.stdin.read()
        with open(path, encoding="utf-8") as file:
            return file.read()
    except (OSError, UnicodeDecodeError) as error:
        raise EngineError(f"cannot read {what} {path}: {error}") from None


def _command_verify_dice(args: argparse.Namespace) -> int:
    if args.audit == "-" and args.mat == "-":
        raise _UsageError("only one of AUDIT.json and --mat can be read from stdin")
    if args.commitment is not None and re.fullmatch(r"[0-9a-fA-F]{64}", args.commitment) is None:
        raise _UsageError("--commitment is the SHA-256 the match published: 64 hex digits")
    text = _read_text(args.audit, "the audit")
    try:
        audit = json.loads(text)
    except (ValueError, RecursionError):
        raise EngineError(f"{args.audit} is not JSON") from None
    mat_text = None if args.mat is None else _read_text(args.mat, "the .mat record")
    check = check_audit(audit, mat_text=mat_text, commitment=args.commitment)
    for problem in check.problems:
        print(f"MISMATCH: {problem}")
    for reason in check.unverifiable:
        print(f"NOT VERIFIABLE: {reason}")
    verdict = check.verdict
    if verdict is Verdict.DOES_NOT_VERIFY:
        print(f"FAILED: {len(check.problems)} problem(s): the dice do NOT verify.")
    elif verdict is Verdict.NOT_VERIFIABLE:
        print("NOT VERIFIABLE: nothing was found wrong, but these dice cannot be proved fair.")
    else:
        record = "" if check.mat_rolls is None else (
            f"; the .mat shows the same {check.mat_rolls} rolls (tied opening rolls aside), "
            "game for game")
        print(f"OK: the seed matches the commitment, all {check.fair_rolls} fair rolls "
              f"recompute and the seed gave no other dice ({check.algorithm}){record}.")
    return check.exit_code


def _command_selfplay(args: argparse.Namespace) -> int:
    sys.stdout.write(selfplay_mat(args.length, args.seed))
    return 0


def _length(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"a match length is a number, not {text!r}") from None
    if not 1 <= value <= 99:
        raise argparse.ArgumentTypeError(f"a match length is 1 to 99 points, not {value}")
    return value


class _UsageError(Exception):
    """A command line that argparse accepted but the command cannot use."""


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with one subcommand per command."""
    parser = argparse.ArgumentParser(
        prog="python -m tavla.engine",
        description="Tavla's backgammon rules engine. Positions are GNU Backgammon Position IDs "
        "seen from the player on roll.",
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    show = commands.add_parser("show", help="draw a position as text, with pip counts")
    show.add_argument("position_id", metavar="POSITION_ID")
    show.set_defaults(handler=_command_show)

    legal = commands.add_parser(
        "legal",
        help="list the legal plays of a position and roll",
        description="Print one line per legal play: the Position ID after it and the play. "
        "With --batch, read JSON lines {\"position_id\": ..., \"dice\": [d1, d2]} on stdin "
        "and write {\"results\": [Position IDs]} (or {\"error\": ...}) per line.",
    )
    legal.add_argument("position_id", metavar="POSITION_ID", nargs="?")
    legal.add_argument("die1", metavar="D1", type=_die, nargs="?")
    legal.add_argument("die2", metavar="D2", type=_die, nargs="?")
    legal.add_argument("--batch", action="store_true", help="read JSON lines from stdin")
    legal.set_defaults(handler=_command_legal)

    selfplay = commands.add_parser(
        "selfplay",
        help="play a random match and print it as a .mat file",
        description="Play a random N-point match with the doubling cube, every choice drawn "
        "from the seed, and print it in Jellyfish .mat format.",
    )
    selfplay.add_argument("--length", type=_length, default=7, help="match length (7)")
    selfplay.add_argument("--seed", type=int, default=0, help="random seed (0)")
    selfplay.set_defaults(handler=_command_selfplay)

    verify = commands.add_parser(
        "verify-dice",
        help="recompute every roll of a finished match from its dice audit",
        description="Read the dice audit JSON of a finished match (GET /api/matches/ID/dice/), "
        "recompute every fair roll from the revealed seed and both client seeds by the "
        "algorithm in docs/dice.md and print each problem. With --mat, also check that the "
        "match record shows the audit's rolls, game for game and roll for roll. Exit status: "
        "0 verified; 1 the dice do not verify (a mismatch, a forged or truncated audit or "
        "record, an unreadable file); 3 not verifiable (scripted dice declared, or the seed "
        "not revealed yet); 2 a wrong command line.",
    )
    verify.add_argument("audit", metavar="AUDIT.json", help="the audit file ('-': stdin)")
    verify.add_argument("--mat", metavar="FILE.mat",
                        help="the match's Jellyfish .mat record (GET /api/matches/ID/mat/)")
    verify.add_argument("--commitment", metavar="HEX",
                        help="the commitment the match published at its start, if you kept it")
    verify.set_defaults(handler=_command_verify_dice)

    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        status: int = args.handler(args)
    except _UsageError as error:
        parser.error(str(error))  # exits with status 2
    except EngineError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    return status
