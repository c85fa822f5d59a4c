"""Concurrent writers on the SQLite default: BEGIN IMMEDIATE against plain DEFERRED.

Several processes each run read-then-write transactions (the shape of a match action: read
the row, then write it) on one WAL database. With DEFERRED transactions a writer whose
read snapshot went stale fails at once with "database is locked"; with IMMEDIATE (Tavla's
default, `tavla.settings.SQLITE_OPTIONS`) writers queue. Prints throughput and failures.

Run: .venv/bin/python benchmarks/bench_sqlite_writers.py [processes] [transactions]
"""

from __future__ import annotations

import multiprocessing
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

WRITERS = int(sys.argv[1]) if len(sys.argv) > 1 else 4
TRANSACTIONS = int(sys.argv[2]) if len(sys.argv) > 2 else 300
BUSY_TIMEOUT_SECONDS = 20  # as tavla.settings.SQLITE_OPTIONS["timeout"]


def writer(path: str, mode: str, count: int, failures: multiprocessing.Queue) -> None:  # type: ignore[type-arg]
    conn = sqlite3.connect(path, timeout=BUSY_TIMEOUT_SECONDS, isolation_level=None)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=NORMAL")
    failed = 0
    for _ in range(count):
        try:
            conn.execute(f"BEGIN {mode}")
            (version,) = conn.execute("SELECT version FROM match WHERE id = 1").fetchone()
            conn.execute("UPDATE match SET version = ? WHERE id = 1", (version + 1,))
            conn.execute("COMMIT")
        except sqlite3.OperationalError:
            failed += 1
            if conn.in_transaction:
                conn.execute("ROLLBACK")
    conn.close()
    failures.put(failed)


def run(mode: str) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = str(Path(tmp) / "bench.sqlite3")
        conn = sqlite3.connect(path)
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("CREATE TABLE match (id INTEGER PRIMARY KEY, version INTEGER NOT NULL)")
        conn.execute("INSERT INTO match VALUES (1, 0)")
        conn.commit()
        failures: multiprocessing.Queue = multiprocessing.Queue()  # type: ignore[type-arg]
        procs = [multiprocessing.Process(target=writer, args=(path, mode, TRANSACTIONS, failures))
                 for _ in range(WRITERS)]
        started = time.perf_counter()
        for proc in procs:
            proc.start()
        failed = sum(failures.get() for _ in procs)
        for proc in procs:
            proc.join()
        elapsed = time.perf_counter() - started
        (version,) = conn.execute("SELECT version FROM match WHERE id = 1").fetchone()
        conn.close()
    total = WRITERS * TRANSACTIONS
    print(f"{mode:<9} {WRITERS} writers x {TRANSACTIONS}: {total - failed:>5} committed, "
          f"{failed:>5} failed, {(total - failed) / elapsed:8.0f} commits/s, "
          f"final version {version} (lost updates: {total - failed - version})")


if __name__ == "__main__":
    run("IMMEDIATE")
    run("DEFERRED")
