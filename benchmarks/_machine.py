"""What the machine did during a ``live_load.py`` run: CPU of processes by pid or name, how
busy the whole machine was (and how much the host stole), the load before a run, and a
calibration of its speed. Used by ``live_load.py`` and ``action_cost.py``."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from deploy.observe import cpu_seconds as cpu_ticks_of  # noqa: E402


def pids_named(*names: str) -> list[int]:
    """Processes whose command name is one of ``names`` (PostgreSQL, Redis: for the report)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if (entry / "comm").read_text().strip() in names:
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


class ProcessCPU:
    """The CPU seconds processes of these names use from now on, sampled every half second:
    PostgreSQL's backends come and go (each web thread's connection is replaced after a
    minute), so a backend born meanwhile counts from its start, and one that ended loses at
    most its last half second."""

    def __init__(self, names: tuple[str, ...]) -> None:
        self.names = names
        self.used = dict.fromkeys(names, 0.0)
        self.seen = {name: {pid: cpu_ticks_of([pid]) for pid in pids_named(name)}
                     for name in names}

    def sample(self) -> None:
        for name in self.names:
            seen = self.seen[name]
            for pid in pids_named(name):
                now = cpu_ticks_of([pid])
                self.used[name] += now - seen.get(pid, 0.0)
                seen[pid] = now


def machine_busy() -> tuple[float, float, float]:
    """(busy, total, stolen) CPU seconds of the whole machine so far, from /proc/stat.

    Stolen time (the hypervisor running other machines on these cores) is not counted as
    busy: on a shared host it moved this benchmark's figures by a fifth from one run to the
    next, so it is reported on its own.
    """
    ticks = os.sysconf("SC_CLK_TCK")
    values = [int(v) for v in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    idle, steal = values[3] + values[4], values[7]
    return (sum(values) - idle - steal) / ticks, sum(values) / ticks, steal / ticks


def load_note() -> str:
    one, five, _ = os.getloadavg()
    return f"load average before the run {one:.2f} (1 min), {five:.2f} (5 min)"


def calibration_ms() -> float:
    """The machine's speed now: a fixed pure-Python workload (the rules engine playing 20
    seeded random games), the best of three, in ms. The same code gave figures a half apart
    on two evenings; dividing by this tells a change of code from a change of machine."""
    import random

    from tavla.engine import Position, legal_plays

    def games() -> None:
        rng = random.Random(20261203)
        for _ in range(20):
            position = Position.initial()
            while not position.is_game_over():
                plays = legal_plays(position, rng.randint(1, 6), rng.randint(1, 6))
                position = rng.choice(plays).position.swap()

    best = float("inf")
    for _ in range(3):
        started = time.process_time()
        games()
        best = min(best, time.process_time() - started)
    return 1000 * best
