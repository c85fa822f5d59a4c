"""gnubg never loads in a web process: ``tavla.site.asgi`` declares the process a web process,
after which importing the evaluator fails loudly, and nothing a web process imports (every
module of the site but the workers' :mod:`matches.gnubg.evaluation`) loads gnubg. Workers,
``manage.py`` commands and the analysis command line still import it.

Each case runs in a fresh interpreter: the test runner itself is exempt (it drives the ASGI
application in-process and evaluates on its main thread; see tests/conftest.py).
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tavla.analysis import gnubg_guard

BASE_DIR = Path(__file__).resolve().parent.parent

# The modules that evaluate: only workers (and the analysis command line) import them.
EVALUATING = {
    "matches.gnubg.evaluation",
    "tavla.analysis.adjudication", "tavla.analysis.analyse", "tavla.analysis.board",
    "tavla.analysis.bots", "tavla.analysis.checkerplay", "tavla.analysis.cube",
    "tavla.analysis.luck", "tavla.analysis.native",
    "tavla.analysis.cli", "tavla.analysis.evaluator", "tavla.analysis.__main__",
}


def run_python(code: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "DEBUG": "1", "DJANGO_SETTINGS_MODULE": "tavla.settings",
           "PYTHONPATH": str(BASE_DIR)}
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], cwd=BASE_DIR,
                          env=env, capture_output=True, text=True, timeout=120)


def test_a_web_process_refuses_to_import_the_evaluator() -> None:
    result = run_python("""
        import sys
        import tavla.site.asgi
        from tavla.analysis.gnubg_guard import GnubgInWebProcessError
        assert "gnubg" not in sys.modules, "the ASGI application loaded gnubg"
        try:
            import tavla.analysis.evaluator
        except GnubgInWebProcessError as error:
            print("refused:", error)
        else:
            raise SystemExit("the evaluator was imported in a web process")
        assert "gnubg" not in sys.modules
    """)
    assert result.returncode == 0, result.stderr
    assert "refused: tavla.analysis.evaluator (gnubg) may not be imported in a web process" \
        in result.stdout


def test_nothing_a_web_process_imports_loads_gnubg() -> None:
    """Every module of the site, its URL configuration and admin included, imported after
    the web process is declared: none but the workers' own modules touches gnubg."""
    result = run_python(f"""
        import importlib, pkgutil, sys
        import tavla.site.asgi
        from django.urls import get_resolver
        from tavla.analysis.gnubg_guard import GnubgInWebProcessError

        get_resolver().url_patterns  # loads every view, as the first request would
        evaluating = set({sorted(EVALUATING)!r})
        refused, imported = [], 0
        for package in ("tavla", "matches", "tournaments"):
            root = importlib.import_module(package)
            for info in pkgutil.walk_packages(root.__path__, package + "."):
                if ".migrations." in info.name or info.name.endswith(".__main__"):
                    continue
                try:
                    importlib.import_module(info.name)
                    imported += 1
                except GnubgInWebProcessError:
                    refused.append(info.name)
        print("imported", imported)
        print("refused", sorted(refused))
        assert "gnubg" not in sys.modules
        assert not set(refused) - evaluating, set(refused) - evaluating
        assert "matches.gnubg.evaluation" in refused
    """)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "refused ['matches.gnubg.evaluation'" in result.stdout


def test_declaring_a_web_process_after_gnubg_loaded_fails() -> None:
    result = run_python("""
        import tavla.analysis.evaluator
        from tavla.analysis.gnubg_guard import GnubgInWebProcessError, declare_web_process
        try:
            declare_web_process()
        except GnubgInWebProcessError as error:
            print("refused:", error)
    """)
    assert result.returncode == 0, result.stderr
    assert "already loaded in a process starting as a web server" in result.stdout


def test_workers_commands_and_the_command_line_still_evaluate() -> None:
    # What a Celery worker and a manage.py command do: set Django up, import the tasks'
    # evaluating module, evaluate on the main thread.
    worker = run_python("""
        import django
        django.setup()
        import matches.gnubg.evaluation
        from tavla.analysis import evaluator
        from tavla.analysis.adjudication import match_winning_chances
        from tavla.engine.match import MatchState
        from tavla.engine.rules import Rules
        print("gnubg", evaluator.version(), match_winning_chances(MatchState.new(Rules(5))))
    """)
    assert worker.returncode == 0, worker.stderr
    assert worker.stdout.startswith("gnubg ")
    command = subprocess.run([sys.executable, "-m", "tavla.analysis", "--help"], cwd=BASE_DIR,
                             env={**os.environ, "PYTHONPATH": str(BASE_DIR)},
                             capture_output=True, text=True, timeout=120)
    assert command.returncode == 0, command.stderr


def test_an_exemption_must_say_why() -> None:
    with pytest.raises(ValueError, match="say why"):
        gnubg_guard.allow_in_this_process("  ")
