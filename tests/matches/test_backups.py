"""Backups restore into a fresh database where every match and every finished match's dice
verify (``docs/backups.md``): ``pg_dump``/``pg_restore`` on PostgreSQL, ``manage.py
backup_sqlite`` on SQLite, each test on the database the run uses (the other is skipped).
The restored database is checked by ``manage.py verify_matches`` in a process of its own,
pointed at it by ``DATABASE_URL``, as an operator would; a copy with one event removed must
fail it."""

from __future__ import annotations

import os
import random
import shutil
import sqlite3
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command
from django.db import connection

from matches.demo.tables import play_out
from matches.models import Match, MatchStatus

BASE_DIR = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def played(start_match: Callable[..., Match]) -> dict[str, int]:
    """Two finished matches with real dice and one in play; how many of each."""
    for seed in (3, 4):
        match = play_out(start_match(match_length=1, cube_enabled=False), random.Random(seed))
        assert match.status == MatchStatus.FINISHED and not match.dice_were_scripted
    live = start_match(match_length=5)
    with pytest.raises(RuntimeError, match="did not end"):  # stopped in its first game
        play_out(live, random.Random(5), max_actions=25)
    return {"matches": Match.objects.count(),
            "finished": Match.objects.filter(status=MatchStatus.FINISHED).count()}


def verify(database_url: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "DATABASE_URL": database_url, "PYTHONPATH": str(BASE_DIR)}
    env.pop("DJANGO_SETTINGS_MODULE", None)
    return subprocess.run([sys.executable, "manage.py", "verify_matches"], cwd=BASE_DIR,
                          env=env, capture_output=True, text=True, timeout=300, check=False)


def expect_verified(result: subprocess.CompletedProcess[str], counts: dict[str, int]) -> None:
    assert result.returncode == 0, result.stdout + result.stderr
    assert (f"{counts['matches']} matches: {counts['matches']} logs verify, 0 do not; "
            f"{counts['finished']} finished: {counts['finished']} dice verify, 0 do not"
            ) in result.stdout, result.stdout


@pytest.mark.skipif(connection.vendor != "sqlite",
                    reason="this run's database is PostgreSQL: see the pg_dump test")
def test_a_sqlite_backup_taken_online_restores_and_verifies(played, tmp_path) -> None:
    source = Path(connection.settings_dict["NAME"])
    # A writer in the middle of a transaction does not stop the backup, nor get into it.
    writer = sqlite3.connect(source, timeout=30)
    writer.execute("BEGIN IMMEDIATE")
    writer.execute("INSERT INTO django_session (session_key, session_data, expire_date) "
                   "VALUES ('uncommitted-backup-probe', '', '2999-01-01')")
    try:
        call_command("backup_sqlite", str(tmp_path / "tavla.sqlite3"))
    finally:
        writer.rollback()
        writer.close()
    backup = tmp_path / "tavla.sqlite3"
    with sqlite3.connect(backup) as copy:
        assert copy.execute("SELECT count(*) FROM django_session WHERE session_key = "
                            "'uncommitted-backup-probe'").fetchone()[0] == 0
    # Restoring is copying the file into place: here, a fresh path.
    restored = tmp_path / "restored.sqlite3"
    shutil.copy(backup, restored)
    expect_verified(verify(f"sqlite:///{restored}"), played)

    with sqlite3.connect(restored) as copy:  # one event gone: the log no longer verifies
        copy.execute("DELETE FROM matches_event WHERE id = (SELECT max(id) FROM matches_event)")
    broken = verify(f"sqlite:///{restored}")
    assert broken.returncode == 1 and "does not verify" in broken.stdout, broken.stdout


def test_backup_sqlite_refuses_to_overwrite_or_to_copy_postgresql(tmp_path) -> None:
    target = tmp_path / "exists.sqlite3"
    target.write_bytes(b"keep me")
    with pytest.raises(CommandError) as refused:
        call_command("backup_sqlite", str(target))
    if connection.vendor == "sqlite":
        assert "exists" in str(refused.value)
    else:
        assert "not SQLite" in str(refused.value)
    assert target.read_bytes() == b"keep me"
    assert not list(tmp_path.glob(".*partial*"))
    if connection.vendor == "sqlite":
        with pytest.raises(CommandError, match="no directory"):
            call_command("backup_sqlite", str(tmp_path / "missing" / "x.sqlite3"))


@pytest.mark.skipif(connection.vendor != "postgresql",
                    reason="this run's database is SQLite: see the backup_sqlite test")
@pytest.mark.skipif(shutil.which("pg_dump") is None or shutil.which("pg_restore") is None,
                    reason="pg_dump and pg_restore are not installed (Debian: postgresql-client)")
def test_a_pg_dump_restores_into_a_fresh_database_and_verifies(played, tmp_path) -> None:
    import psycopg

    db = connection.settings_dict
    fresh = f"{db['NAME']}_restored"
    conninfo = {"host": db["HOST"] or "127.0.0.1", "port": str(db["PORT"] or 5432),
                "user": db["USER"] or "postgres"}
    env = {**os.environ, "PGPASSWORD": db.get("PASSWORD") or ""}
    dump = tmp_path / "tavla.dump"
    common = ["-h", conninfo["host"], "-p", conninfo["port"], "-U", conninfo["user"]]
    subprocess.run(["pg_dump", *common, "-Fc", "-f", str(dump), db["NAME"]], env=env,
                   check=True, timeout=300)
    url = (f"postgresql://{conninfo['user']}:{db.get('PASSWORD') or ''}@{conninfo['host']}:"
           f"{conninfo['port']}/")
    admin = psycopg.connect(url + "postgres", autocommit=True)
    try:
        admin.execute(f'DROP DATABASE IF EXISTS "{fresh}"')
        admin.execute(f'CREATE DATABASE "{fresh}"')
        subprocess.run(["pg_restore", *common, "--no-owner", "-d", fresh, str(dump)], env=env,
                       check=True, timeout=300)
        expect_verified(verify(url + fresh), played)
        with psycopg.connect(url + fresh) as restored:
            restored.execute("DELETE FROM matches_event WHERE id = "
                             "(SELECT max(id) FROM matches_event)")
        broken = verify(url + fresh)
        assert broken.returncode == 1 and "does not verify" in broken.stdout, broken.stdout
    finally:
        admin.execute(f'DROP DATABASE IF EXISTS "{fresh}" WITH (FORCE)')
        admin.close()
