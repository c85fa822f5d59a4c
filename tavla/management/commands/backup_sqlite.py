"""``manage.py backup_sqlite PATH``: an online copy of the embedded SQLite database.

Uses SQLite's backup API (:meth:`sqlite3.Connection.backup`), which copies a consistent
snapshot while the server keeps playing: pages written during the copy make it start those
pages again, never a torn file, and with WAL (Tavla's default) readers and the writer go on.
The copy is written next to ``PATH`` under a temporary name, checked with
``PRAGMA integrity_check``, and only then renamed to ``PATH`` (so a failed backup never
leaves a half file under the real name). ``PATH`` must not exist yet (``--force`` replaces
it); the command refuses a database that is not SQLite (PostgreSQL: ``pg_dump``, see
``docs/backups.md``).
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError
from django.db import connections

PAGES_PER_STEP = 1024  # copy in steps, so the writer is never held up for the whole copy


class Command(BaseCommand):
    help = "Copy the SQLite database to PATH while Tavla runs (SQLite's online backup API)."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("path", help="the backup file to write (must not exist)")
        parser.add_argument("--force", action="store_true", help="replace PATH if it exists")
        parser.add_argument("--database", default="default", help="the database alias")

    def handle(self, *args: Any, **options: Any) -> None:
        settings = connections[options["database"]].settings_dict
        if settings["ENGINE"] != "django.db.backends.sqlite3":
            raise CommandError(f"the database is not SQLite ({settings['ENGINE']}): back up "
                               "PostgreSQL with pg_dump (docs/backups.md)")
        source_path = Path(str(settings["NAME"]))
        target = Path(options["path"]).resolve()
        if not source_path.exists():
            raise CommandError(f"no database at {source_path}")
        if target == source_path.resolve():
            raise CommandError("the backup cannot be the database itself")
        if target.exists() and not options["force"]:
            raise CommandError(f"{target} exists; choose a new name or pass --force")
        if not target.parent.is_dir():
            raise CommandError(f"no directory {target.parent}")
        partial = target.with_name(f".{target.name}.partial-{os.getpid()}")
        try:
            source = sqlite3.connect(source_path, timeout=30)
            try:
                copy = sqlite3.connect(partial)
                try:
                    source.backup(copy, pages=PAGES_PER_STEP)
                    # The copy is one self-contained file, not a WAL pair.
                    copy.execute("PRAGMA journal_mode=DELETE")
                    verdict = copy.execute("PRAGMA integrity_check").fetchone()[0]
                    pages = copy.execute("PRAGMA page_count").fetchone()[0]
                finally:
                    copy.close()
            finally:
                source.close()
            if verdict != "ok":
                raise CommandError(f"the copy failed its integrity check: {verdict}")
            partial.replace(target)
        except sqlite3.Error as error:
            raise CommandError(f"backup failed: {error}") from error
        finally:
            partial.unlink(missing_ok=True)
        self.stdout.write(f"backed up {source_path} to {target} ({pages} pages, "
                          f"{target.stat().st_size} bytes); integrity check ok")
