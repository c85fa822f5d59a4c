"""The engine's modules import one another without a circle.

python-chess keeps each conversion beside its type; where a conversion needs more than its
type (a Match ID needs the whole match state), its module is the entry point and the type
does not import it back. Every import counts: at the top, inside functions and under
``if TYPE_CHECKING``, since a lazy import only hides a circle.
"""

from __future__ import annotations

import ast
from pathlib import Path

from tests.engine.test_purity import ENGINE, SOURCES
from tests.test_import_graph import find_cycle


def _module_name(path: Path) -> str:
    parts = path.relative_to(ENGINE.parent.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {_module_name(path): path for path in SOURCES}


def engine_imports(path: Path) -> set[str]:
    return imports_of(path.read_text(), _module_name(path), package=path.name == "__init__.py")


def imports_of(source: str, here: str, *, package: bool = False) -> set[str]:
    """The engine modules that the module ``here`` imports (a name imported from the package
    itself counts as importing the package)."""
    tree = ast.parse(source)
    found: set[str] = set()
    for node in ast.walk(tree):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = here if package else here.rsplit(".", node.level)[0]
                module = f"{base}.{node.module}" if node.module else base
            else:
                module = node.module or ""
            # `from tavla.engine import moves` imports a module; `import Play` the package.
            names = [f"{module}.{alias.name}" if f"{module}.{alias.name}" in MODULES
                     else module for alias in node.names]
        found |= {name for name in names if name in MODULES and name != here}
    return found


def test_the_engine_has_no_import_circle() -> None:
    graph = {name: engine_imports(path) for name, path in MODULES.items()}
    assert graph["tavla.engine.match"], "the graph was read"
    cycle = find_cycle(graph)
    assert cycle is None, "import circle: " + " -> ".join(cycle or [])


def test_the_cycle_finder_finds_a_circle() -> None:
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set(), "c": {"a", "b"}}) is None


def test_imports_in_functions_and_for_type_checking_count() -> None:
    lazy = "def f():\n    from tavla.engine.match import MatchState\n"
    typing = "if TYPE_CHECKING:\n    from .match import MatchState\n"
    package = "from tavla.engine import Position\nimport tavla.engine.dice\n"
    assert imports_of(lazy, "tavla.engine.match_id") == {"tavla.engine.match"}
    assert imports_of(typing, "tavla.engine.match_id") == {"tavla.engine.match"}
    assert imports_of(package, "tavla.engine.cli") == {"tavla.engine", "tavla.engine.dice"}
    assert "tavla.engine.gnubg_id" in engine_imports(ENGINE / "position.py")
