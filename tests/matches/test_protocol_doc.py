"""The docs and the code say the same thing: one error vocabulary, one version.

Every error code the server can send is found in the source by its syntax tree, in every
module of ``matches``, ``tournaments`` and ``tavla`` (services, sockets, APIs, formats):

* the first argument of a :class:`~matches.errors.ServiceError` (or of any subclass, such as
  ``TournamentError``), or its ``code=``;
* the ``code=`` (or the default ``code``) of an exception that a handler turns into one
  (``except PairingError as error: raise TournamentError(error.code, ...)``);
* a literal ``{"error": "code"}`` and the first argument of ``error_response``, ``send_error``
  and ``_error``;
* the codes of Django REST framework's own exceptions, as :mod:`matches.rest.errors` renames
  them.

Each must be in :data:`matches.errors.ERROR_STATUS` and in the error table of
``docs/protocol.md`` or ``docs/tournaments.md`` with the same HTTP status. A module planted
with a new code shows that the check finds it.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from rest_framework import exceptions

from matches.errors import ERROR_STATUS
from matches.rest.errors import _DRF_CODES
from matches.selectors import PROTOCOL_VERSION
from tavla.api_http import too_large_response
from tavla.security import LOCKED_OUT_STATUS

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("matches", "tournaments", "tavla")
DOC = (ROOT / "docs" / "protocol.md").read_text(encoding="utf-8")
TOURNAMENT_DOC = (ROOT / "docs" / "tournaments.md").read_text(encoding="utf-8")
SENDERS = {"error_response", "send_error", "_error"}  # helpers whose first argument is a code


def documented_codes(text: str, heading: str) -> dict[str, int]:
    """The rows ``| `code` | HTTP | meaning |`` of the section under ``heading``."""
    section = text.split(f"\n{heading}\n", 1)[1].split("\n## ", 1)[0]
    return {code: int(status)
            for code, status in re.findall(r"^\| `([a-z_]+)` \| (\d{3}) \|", section, re.M)}


def protocol_codes() -> dict[str, int]:
    return documented_codes(DOC, "## Errors")


def tournament_codes() -> dict[str, int]:
    return documented_codes(TOURNAMENT_DOC, "## Error codes")


# -- finding the codes in the source ---------------------------------------------------------


def _name(node: ast.expr) -> str:
    """``X`` of ``X`` and of ``module.X``; '' for anything else."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return ""


def _text(node: ast.expr | None) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def _keyword(call: ast.Call, name: str) -> ast.expr | None:
    return next((kw.value for kw in call.keywords if kw.arg == name), None)


@dataclass
class Found:
    """What the source can send: each code with where it is raised, and every raise of a
    refused request whose code could not be read (it must be a literal, or a re-raise)."""

    codes: dict[str, set[str]] = field(default_factory=dict)
    unreadable: list[str] = field(default_factory=list)

    def add(self, code: str, where: str) -> None:
        self.codes.setdefault(code, set()).add(where)


def modules(root: Path, packages: Iterable[str] = PACKAGES) -> Iterator[tuple[str, ast.Module]]:
    """Every Python module of ``packages`` under ``root`` (migrations aside), parsed."""
    for package in packages:
        for path in sorted((root / package).rglob("*.py")):
            if "migrations" not in path.parts:
                yield (str(path.relative_to(root)),
                       ast.parse(path.read_text(encoding="utf-8"), str(path)))


def sent_codes(trees: list[tuple[str, ast.Module]]) -> Found:
    """Every error code the modules ``trees`` can send (see the module's docstring)."""
    classes = [node for _, tree in trees for node in ast.walk(tree)
               if isinstance(node, ast.ClassDef)]
    refusals = {"ServiceError"}  # ServiceError and its subclasses, found to a fixed point
    while True:
        more = {c.name for c in classes if any(_name(b) in refusals for b in c.bases)}
        if more <= refusals:
            break
        refusals |= more
    # Exceptions that carry a ``code`` of their own (a keyword-only argument, maybe defaulted).
    coded: dict[str, str | None] = {}
    for cls in classes:
        for item in cls.body:
            if isinstance(item, ast.FunctionDef) and item.name == "__init__":
                for arg, default in zip(item.args.kwonlyargs, item.args.kw_defaults,
                                        strict=True):
                    if arg.arg == "code":
                        coded[cls.name] = _text(default)
    found = Found()
    coded_raises: dict[str, list[tuple[str, str]]] = {}  # class -> [(code, where)]
    passed_on: set[str] = set()  # coded classes whose code a handler raises as a refusal
    for where, tree in trees:
        handlers = [node for node in ast.walk(tree) if isinstance(node, ast.ExceptHandler)]
        handled: dict[int, tuple[str, str]] = {}  # id(call) -> (caught class, its name)
        for handler in handlers:
            if handler.type is None or handler.name is None:
                continue
            for node in ast.walk(handler):
                if isinstance(node, ast.Call):
                    handled.setdefault(id(node), (_name(handler.type), handler.name))
        for node in ast.walk(tree):
            if isinstance(node, ast.Dict):
                for key, value in zip(node.keys, node.values, strict=True):
                    if key is not None and _text(key) == "error" and _text(value):
                        found.add(str(_text(value)), where)
            if not isinstance(node, ast.Call):
                continue
            called = _name(node.func)
            first = node.args[0] if node.args else _keyword(node, "code")
            if called in SENDERS and _text(first):
                found.add(str(_text(first)), where)
            elif called in refusals:
                if _text(first):
                    found.add(str(_text(first)), where)
                elif (isinstance(first, ast.Attribute) and first.attr == "code"
                      and isinstance(first.value, ast.Name) and id(node) in handled
                      and handled[id(node)][1] == first.value.id):
                    caught = handled[id(node)][0]
                    if caught in coded:
                        passed_on.add(caught)
                    elif caught not in refusals:  # a refusal re-raised keeps a known code
                        found.unreadable.append(f"{where}:{node.lineno}")
                else:
                    found.unreadable.append(f"{where}:{node.lineno}")
            elif called in coded:
                code = _text(_keyword(node, "code")) or coded[called]
                if code:
                    coded_raises.setdefault(called, []).append((code, where))
    for caught in passed_on:
        for code, where in coded_raises.get(caught, []):
            found.add(code, where)
    return found


def drf_codes() -> dict[str, int]:
    """The codes REST answers for DRF's own exceptions (renamed as the handler does), with
    DRF's status."""
    out: dict[str, int] = {}
    pending: list[type[exceptions.APIException]] = [exceptions.APIException]
    while pending:
        cls = pending.pop()
        pending.extend(cls.__subclasses__())
        if cls.__module__ == exceptions.__name__ and cls is not exceptions.APIException:
            out[_DRF_CODES.get(cls.default_code, cls.default_code)] = cls.status_code
    return out


def undocumented(found: Found) -> set[str]:
    return set(found.codes) - set(protocol_codes()) - set(tournament_codes())


# -- the checks ------------------------------------------------------------------------------


def test_the_docs_list_every_code_once_with_the_status_rest_answers() -> None:
    protocol, tournaments = protocol_codes(), tournament_codes()
    assert not set(protocol) & set(tournaments), "a code is in both docs' tables"
    assert {**protocol, **tournaments} == ERROR_STATUS


def test_every_code_the_server_sends_is_documented() -> None:
    found = sent_codes(list(modules(ROOT)))
    assert not found.unreadable, f"error codes that are not literals: {found.unreadable}"
    assert len(found.codes) > 60  # the walk reached the services, sockets and formats
    missing = undocumented(found)
    assert not missing, {code: sorted(found.codes[code]) for code in sorted(missing)}
    assert not set(found.codes) - set(ERROR_STATUS)


def test_every_code_in_the_table_is_sent_somewhere() -> None:
    found = sent_codes(list(modules(ROOT)))
    unused = set(ERROR_STATUS) - set(found.codes) - set(drf_codes())
    assert not unused, f"codes nobody sends: {sorted(unused)}"


def test_rest_frameworks_own_errors_use_the_table() -> None:
    for code, status in drf_codes().items():
        assert ERROR_STATUS.get(code) == status, code


def test_responses_made_outside_rest_framework_use_the_tables_status() -> None:
    """The body limit and the login lockout answer before DRF's handler: same statuses."""
    assert too_large_response().status_code == ERROR_STATUS["too_large"]
    assert LOCKED_OUT_STATUS == ERROR_STATUS["locked_out"]


def test_a_planted_module_with_a_new_code_is_caught(tmp_path: Path) -> None:
    planted = tmp_path / "tournaments" / "services"
    planted.mkdir(parents=True)
    (planted / "planted.py").write_text('''
from matches.errors import ServiceError

class PlantedError(ServiceError):
    pass

class PlantedFormatError(ValueError):
    def __init__(self, message, *, code="planted_default"):
        super().__init__(message)
        self.code = code

def refuse(kind):
    if kind == 1:
        raise ServiceError(
            "planted_service_code", "a new code in a nested package")
    if kind == 2:
        raise PlantedError("planted_subclass_code", "through a subclass")
    if kind == 3:
        return {"type": "error", "error": "planted_socket_code"}
    try:
        if kind == 4:
            raise PlantedFormatError("bad", code="planted_format_code")
        raise PlantedFormatError("defaulted")
    except PlantedFormatError as error:
        raise PlantedError(error.code, str(error)) from error
''', encoding="utf-8")
    found = sent_codes([*modules(ROOT), *modules(tmp_path, ["tournaments"])])
    assert undocumented(found) == {"planted_service_code", "planted_subclass_code",
                                   "planted_socket_code", "planted_format_code",
                                   "planted_default"}
    assert found.codes["planted_service_code"] == {"tournaments/services/planted.py"}


def test_a_code_that_is_not_a_literal_is_reported(tmp_path: Path) -> None:
    (tmp_path / "matches").mkdir()
    (tmp_path / "matches" / "sly.py").write_text(
        "from matches.errors import ServiceError\n"
        "CODE = 'hidden'\n"
        "def refuse():\n"
        "    raise ServiceError(CODE, 'a code the docs cannot be checked against')\n",
        encoding="utf-8")
    assert sent_codes(list(modules(tmp_path, ["matches"]))).unreadable == ["matches/sly.py:4"]


def test_the_doc_is_the_protocol_version_the_server_speaks() -> None:
    assert DOC.startswith(f"# Tavla live protocol (protocol {PROTOCOL_VERSION})")
    assert f"**Protocol {PROTOCOL_VERSION}**" in DOC.split("## Change log", 1)[1]
