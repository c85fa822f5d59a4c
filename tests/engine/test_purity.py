"""The rules engine stays pure: no module under tavla/engine imports Django (or the server).

Importing ``tavla.engine`` in a fresh interpreter is not proof enough (``tavla/__init__.py``
may load other things), so every file is read and its imports are checked, including imports
inside functions and ``if TYPE_CHECKING`` blocks.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ENGINE = Path(__file__).resolve().parents[2] / "tavla" / "engine"
FORBIDDEN = ("django", "rest_framework", "channels", "celery", "redis", "psycopg",
             "matches", "tournaments")
SOURCES = sorted(ENGINE.rglob("*.py"))


def _imported_modules(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(), filename=str(path))
    names = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.extend(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                names.append("tavla.engine")  # relative: inside the package
            elif node.module:
                names.append(node.module)
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
              and node.func.id == "__import__" and node.args
              and isinstance(node.args[0], ast.Constant)):
            names.append(str(node.args[0].value))
    return names


def test_the_engine_has_modules_to_check() -> None:
    assert {"position.py", "moves.py", "gnubg_id.py", "cli.py"} <= {p.name for p in SOURCES}


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(ENGINE)))
def test_no_server_imports(path: Path) -> None:
    for name in _imported_modules(path):
        top = name.split(".")[0]
        assert top not in FORBIDDEN, f"{path.name} imports {name}"
        if top == "tavla":
            assert name == "tavla.engine" or name.startswith("tavla.engine."), (
                f"{path.name} imports {name}: of the project, the engine imports only itself")


def test_importing_the_engine_loads_no_django() -> None:
    code = ("import sys, tavla.engine, tavla.engine.cli; "
            "print(sorted(m for m in sys.modules if m.split('.')[0] in "
            f"{FORBIDDEN!r}))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True, cwd=ENGINE.parents[1])
    assert done.stdout.strip() == "[]"
