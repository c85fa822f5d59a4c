"""tavla.analysis stays free of Django and the server, and only its evaluator imports gnubg;
the rules engine never imports gnubg."""

from __future__ import annotations

from pathlib import Path

from tests.engine.test_purity import _imported_modules

ROOT = Path(__file__).resolve().parents[2] / "tavla"
FORBIDDEN = ("django", "rest_framework", "channels", "celery", "redis", "matches",
             "tournaments")


def test_analysis_imports_no_django_and_only_the_evaluator_imports_gnubg() -> None:
    sources = sorted((ROOT / "analysis").rglob("*.py"))
    assert sources
    for path in sources:
        modules = _imported_modules(path)
        assert not [m for m in modules if m.split(".")[0] in FORBIDDEN], path
        if path.name != "evaluator.py":
            assert "gnubg" not in [m.split(".")[0] for m in modules], path


def test_the_engine_never_imports_gnubg() -> None:
    for path in sorted((ROOT / "engine").rglob("*.py")):
        assert "gnubg" not in [m.split(".")[0] for m in _imported_modules(path)], path
