"""Drive GNU Backgammon from tests: run its embedded Python on a script and read back JSON.

``gnubg -t -q -r -p script.py`` runs ``script.py`` inside gnubg, where the ``gnubg`` module
gives access to the program (``gnubg.command``, ``gnubg.hint``, ``gnubg.positionid``, ...).
:func:`run_gnubg_script` adds a small prelude to the script: the JSON ``payload`` is available
as the global ``PAYLOAD`` and the script hands its answer back with ``emit(value)``.

gnubg has no move generator in its Python API, so :func:`gnubg_legal_results` uses the hint
machinery: after ``set board``/``set dice``, ``gnubg.hint(n)`` ranks *every* legal play (at
0-ply no move filter drops any), and ``gnubg.parsemove`` turns each into its checker moves.
Every hint call waits about 10 ms inside gnubg while using almost no CPU, so the cases are
split across several gnubg processes that run at the same time.

Other tests may import this module (``from tests.engine.gnubg_ref import run_gnubg_script``).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

_CANDIDATES = ("gnubg", "/usr/games/gnubg")

PRELUDE = """\
import json as _json, os as _os
with open(_os.environ["TAVLA_GNUBG_IN"]) as _f:
    PAYLOAD = _json.load(_f)
def emit(value):
    with open(_os.environ["TAVLA_GNUBG_OUT"], "w") as _f:
        _json.dump(value, _f)
"""


class GnubgError(RuntimeError):
    """gnubg could not run the script, or the script emitted nothing."""


def gnubg_path() -> str | None:
    """The gnubg executable (Debian installs it in /usr/games, often not on PATH), or None."""
    for candidate in _CANDIDATES:
        found = shutil.which(candidate)
        if found:
            return found
    return None


def gnubg_version() -> str:
    """gnubg's version line, e.g. ``GNU Backgammon 1.07.001``."""
    path = gnubg_path()
    if path is None:
        raise GnubgError("gnubg is not installed")
    output = subprocess.run([path, "--version"], capture_output=True, text=True, check=False)
    return output.stdout.splitlines()[0] if output.stdout else "unknown"


def run_gnubg_script(script: str, payload: Any = None, *, timeout: float = 600) -> Any:
    """Run ``script`` in gnubg's embedded Python and return the JSON value it ``emit``s.

    The script sees ``payload`` as ``PAYLOAD``. Raises :class:`GnubgError` when gnubg is
    missing, fails, times out or the script emits nothing (gnubg's output is in the message).
    """
    return run_gnubg_scripts(script, [payload], timeout=timeout)[0]


def run_gnubg_scripts(script: str, payloads: Sequence[Any], *, timeout: float = 600) -> list[Any]:
    """Run ``script`` once per payload, all gnubg processes at the same time; results in order."""
    path = gnubg_path()
    if path is None:
        raise GnubgError("gnubg is not installed (apt-get install gnubg)")
    with tempfile.TemporaryDirectory(prefix="tavla-gnubg-") as tmp:
        folder = Path(tmp)
        script_file = folder / "script.py"
        script_file.write_text(PRELUDE + script)

        def run(index: int) -> Any:
            in_file, out_file = folder / f"in{index}.json", folder / f"out{index}.json"
            in_file.write_text(json.dumps(payloads[index]))
            # HOME points at a folder of this process's own so gnubg neither reads nor writes
            # the user's preferences, and parallel gnubgs do not race to create ~/.gnubg
            # (the loser prints "File exists"); -r skips the rc files, -q the sound, -t the GUI.
            home = folder / f"home{index}"
            home.mkdir()
            env = dict(os.environ, HOME=str(home), TAVLA_GNUBG_IN=str(in_file),
                       TAVLA_GNUBG_OUT=str(out_file))
            try:
                done = subprocess.run(
                    [path, "-t", "-q", "-r", "-p", str(script_file)],
                    capture_output=True, text=True, env=env, timeout=timeout,
                    stdin=subprocess.DEVNULL, check=False,
                )
            except subprocess.TimeoutExpired as error:
                raise GnubgError(f"gnubg took more than {timeout} s") from error
            if not out_file.exists():
                raise GnubgError(
                    f"gnubg exited with {done.returncode} and emitted nothing\n"
                    f"stdout: {done.stdout[-3000:]}\nstderr: {done.stderr[-3000:]}"
                )
            return json.loads(out_file.read_text())

        with ThreadPoolExecutor(max_workers=max(1, len(payloads))) as pool:
            return list(pool.map(run, range(len(payloads))))


# Runs inside gnubg. For each [position_id, die1, die2]: the decoded board (to check the side
# order of Position IDs) and the IDs of the positions after every legal play, or an error.
LEGAL_RESULTS_SCRIPT = """
import gnubg
for command in ("set player 0 human", "set player 1 human", "set display off",
                "set evaluation chequerplay evaluation plies 0", "new game"):
    gnubg.command(command)

def after(board, text):
    opponent, mover = list(board[0]), list(board[1])
    for source, destination in gnubg.parsemove(text):
        mover[source - 1] -= 1
        if destination > 0:
            mover[destination - 1] += 1
            if opponent[24 - destination] == 1:
                opponent[24 - destination] = 0
                opponent[24] += 1
    return gnubg.positionid((tuple(opponent), tuple(mover)))

answers = []
for position_id, die1, die2 in PAYLOAD:
    board = gnubg.positionfromid(position_id)
    gnubg.command("set board " + position_id)
    gnubg.command("set dice %d %d" % (die1, die2))
    if gnubg.positionid(gnubg.board()) != position_id:
        answers.append({"error": "gnubg refused the position", "board": board})
        continue
    moves = [entry["move"] for entry in gnubg.hint(100000)["hint"]]
    results = sorted({after(board, text) for text in moves}) or [position_id]
    answers.append({"board": board, "moves": moves, "results": results,
                    "count": len(moves)})
emit(answers)
"""


def gnubg_legal_results(
    cases: Sequence[tuple[str, int, int]], *, processes: int = 12, timeout: float = 600
) -> list[dict[str, Any]]:
    """Ask gnubg for every (Position ID, die1, die2): one answer per case, in order.

    Each answer has ``board`` (gnubg's decoding of the ID: the opponent's 25 counts, then the
    player on roll's), ``moves`` (gnubg's notation of each legal play), ``count`` and
    ``results`` (sorted distinct Position IDs after each play, before the turn passes; the
    unchanged ID when nothing can be played), or ``error``.
    """
    if not cases:
        return []
    processes = max(1, min(processes, len(cases)))
    chunks = [[list(case) for case in cases[i::processes]] for i in range(processes)]
    answers = run_gnubg_scripts(LEGAL_RESULTS_SCRIPT, chunks, timeout=timeout)
    merged: list[dict[str, Any]] = [{} for _ in cases]
    for i, chunk_answers in enumerate(answers):
        for j, answer in enumerate(chunk_answers):
            merged[i + j * processes] = answer
    return merged
