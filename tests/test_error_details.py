"""Every refusal's ``detail`` is translated where it is raised, as a mechanism.

A :class:`~matches.errors.ServiceError` (or one of its subclasses) carries ``code`` for programs
and ``detail`` for people; the detail reaches a Persian or Turkish reader on the lobby's status
line, the table page, a page's message and REST's ``detail``/``fields``. So it must be made by
``gettext``/``ngettext`` (with named ``%`` placeholders, which ``makemessages`` can extract) in
the language active when the error is raised: the reader's (HTTP: ``LocaleMiddleware``;
sockets: :func:`matches.live.language.reader_language`).

The walk reads every non-test module of the product and fails with ``file:line`` for a
``ServiceError(...)``-family call whose detail is anything else: an English literal, an
f-string, ``str(error)``. A few helpers build the error from a detail handed to them
(:data:`PASS_THROUGH`); every call of those must hand a translated detail in turn. The checker
is shown to catch each pattern. Serializers' own messages (``ValidationError`` and
``error_messages``) are held to the same rule.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from django.utils import translation

from tavla.engine.scores import final_score_problem
from tournaments.models import Tournament
from tournaments.services.common import TournamentError, check_points

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("matches", "tournaments", "tavla", "seasons")
# The error type and every subclass the services raise.
ERRORS = {"ServiceError", "TournamentError", "LadderError", "LeagueError", "ArenaError"}
TRANSLATORS = {"_", "gettext", "ngettext", "pgettext", "npgettext"}
# Helpers that raise a ServiceError with a detail their caller translates: name -> the
# position of that detail among the call's positional arguments (or its keyword).
PASS_THROUGH: dict[str, tuple[int, str]] = {
    "_require_player": (1, "detail"),  # matches.services.log
    "_bad": (0, "detail"),  # matches.gnubg.board
}
# The pure layers (the rules engine, tournament formats and money, the seasons' formats) may
# not import Django, so their refusals are English; they raise ``ValueError``s (some named like
# the services' errors), not ServiceErrors, and are left out of the walk.
PURE = ("tavla/engine", "tavla/analysis", "tournaments/formats", "tournaments/money.py",
        "seasons/formats")
# Where a pure layer's English sentence still passes into a detail, as (file, the detail as
# written): each is a known gap, listed so that no new one joins it unseen. Translating them
# needs the pure layers to hand back a message id and its values instead of a sentence.
PURE_WORDS: set[tuple[str, str]] = set()
# A detail another module hands over, translated there: (file, the detail) -> where.
HANDED_OVER: dict[tuple[str, str], str] = {
    ("matches/services/rematch.py", "reason"): "rematch_requested's receivers "
    "(tournaments.selectors.refuse_rematch returns gettext's sentence)",
    ("matches/services/change.py", "refusal_words(before, action, error)"):
    "matches.engine_words, which words the engine's refusal with gettext",
    ("seasons/services/ladder.py", "_format_words(refusal)"): "its own gettext sentences, "
    "else the formats' template by gettext",
    ("seasons/services/ladder.py", "_format_words(error)"): "the same",
    ("matches/gnubg/board.py", "sentence"): "_unreadable: the field's gettext sentence (and "
    "the engine's English reason for an English reader only)",
    ("seasons/services/ladder.py", "refusal"): "seasons.services.tables.correspondence_refusal, "
    "which returns gettext's sentence",
    ("seasons/services/league.py", "refusal"): "the same",
    ("seasons/services/league.py", "' '.join(problems)"): "one gettext sentence per bad user "
    "name, joined",
}


def _name(func: ast.expr) -> str | None:
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return None


def translated(node: ast.expr) -> bool:
    """Whether ``node`` is a gettext call, or a ``%`` formatting of one, or a choice between
    such (``a if c else b``)."""
    if isinstance(node, ast.Call):
        return _name(node.func) in TRANSLATORS
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod):
        return translated(node.left)
    if isinstance(node, ast.IfExp):
        return translated(node.body) and translated(node.orelse)
    return False


def _argument(call: ast.Call, position: int, keyword: str) -> ast.expr | None:
    if len(call.args) > position:
        return call.args[position]
    return next((k.value for k in call.keywords if k.arg == keyword), None)


def _helper_parameter(function: ast.FunctionDef | None, detail: ast.expr) -> bool:
    """Whether ``detail`` is a parameter of the listed pass-through helper it is raised in."""
    return (function is not None and function.name in PASS_THROUGH
            and isinstance(detail, ast.Name)
            and detail.id == PASS_THROUGH[function.name][1])


def untranslated(source: str, filename: str = "<source>") -> list[str]:
    """``file:line`` of every refusal whose detail is not translated where it is made."""
    found: list[str] = []

    def visit(node: ast.AST, function: ast.FunctionDef | None) -> None:
        for child in ast.iter_child_nodes(node):
            inner = child if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)) \
                else function
            if isinstance(child, ast.Call):
                name = _name(child.func)
                detail = None
                if name in ERRORS:
                    detail = _argument(child, 1, "detail")
                    ok = detail is None or translated(detail) or _helper_parameter(function, detail)
                elif name in PASS_THROUGH:
                    position, keyword = PASS_THROUGH[name]
                    detail = _argument(child, position, keyword)
                    ok = detail is None or translated(detail)
                else:
                    ok = True
                if not ok and (filename, ast.unparse(detail)) not in PURE_WORDS | set(HANDED_OVER):  # type: ignore[arg-type]
                    found.append(f"{filename}:{child.lineno}")
            visit(child, inner)  # type: ignore[arg-type]

    visit(ast.parse(source), None)
    return found


def _modules() -> list[Path]:
    return sorted(path for package in PACKAGES for path in (ROOT / package).rglob("*.py")
                  if "migrations" not in path.parts and "tests" not in path.parts
                  and not str(path.relative_to(ROOT)).startswith(PURE))


def test_every_refusal_detail_is_translated_where_it_is_raised() -> None:
    found = [spot for path in _modules()
             for spot in untranslated(path.read_text(), str(path.relative_to(ROOT)))]
    assert not found, "details not made by gettext at the raise:\n" + "\n".join(found)


# The pure layers' refusals: a template marked for makemessages, its values apart.
PURE_ERRORS = {"PairingError": (0, "message"), "MoneyError": (0, "message"),
               "LeagueError": (1, "message"), "LadderError": (1, "message")}


def unmarked(source: str, filename: str = "<source>") -> list[str]:
    """``file:line`` of a pure layer's refusal whose message is not ``gettext_noop("...")``."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and _name(node.func) in PURE_ERRORS:
            message = _argument(node, *PURE_ERRORS[_name(node.func)])  # type: ignore[index]
            if message is not None and not (
                    isinstance(message, ast.Call) and _name(message.func) == "gettext_noop"
                    and isinstance(message.args[0], ast.Constant)):
                found.append(f"{filename}:{node.lineno}")
    return found


def test_every_pure_refusal_is_a_marked_template() -> None:
    found = [spot for package in PACKAGES for path in sorted((ROOT / package).rglob("*.py"))
             if str(path.relative_to(ROOT)).startswith(PURE) and "tests" not in path.parts
             for spot in unmarked(path.read_text(), str(path.relative_to(ROOT)))]
    assert not found, "pure refusals not marked by gettext_noop:\n" + "\n".join(found)
    assert unmarked('raise PairingError(f"No {x}.", code="c")') == ["<source>:1"]
    assert unmarked('raise LadderError("c", gettext_noop("No %(x)s."), x=x)') == []


@pytest.mark.parametrize("source", [
    'raise ServiceError("x", "English")',
    'raise TournamentError("x", f"There is no tournament {n}.")',
    'raise LadderError("x", str(error))',
    'raise ServiceError("x", "a" + _("b"))',
    'raise ServiceError("x", detail="English")',
    'raise ArenaError("x", _("a") if c else "b")',
])
def test_the_checker_catches_an_untranslated_detail(source: str) -> None:
    assert untranslated(source) == ["<source>:1"]


@pytest.mark.parametrize("source", [
    'raise ServiceError("x", _("A sentence."))',
    'raise ServiceError("x", gettext("A sentence."), field="f")',
    'raise ServiceError("x", _("%(n)s seeks.") % {"n": n})',
    'raise ServiceError("x", ngettext("%(n)s seek.", "%(n)s seeks.", n) % {"n": n})',
    'raise ServiceError("x", detail=_("A sentence."))',
])
def test_the_checker_passes_a_translated_detail(source: str) -> None:
    assert untranslated(source) == []


# -- serializers: DRF's own messages are translated; ours must be too ----------------------


def _serializer_messages(source: str, filename: str) -> list[str]:
    """``file:line`` of a ``ValidationError`` or an ``error_messages`` entry given a literal."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and _name(node.func) == "ValidationError" and node.args:
            first = node.args[0]
            if isinstance(first, (ast.Constant, ast.JoinedStr)) and not translated(first):
                found.append(f"{filename}:{node.lineno}")
        if isinstance(node, ast.keyword) and node.arg == "error_messages" \
                and isinstance(node.value, ast.Dict):
            for value in node.value.values:
                if isinstance(value, (ast.Constant, ast.JoinedStr)):
                    found.append(f"{filename}:{value.lineno}")
    return found


def test_our_serializers_messages_are_translated() -> None:
    found = [spot for path in _modules()
             for spot in _serializer_messages(path.read_text(), str(path.relative_to(ROOT)))]
    assert not found, "serializer messages not made by gettext:\n" + "\n".join(found)


def test_the_serializer_checker_catches_a_literal() -> None:
    assert _serializer_messages('raise serializers.ValidationError("English")', "f") == ["f:1"]
    assert _serializer_messages(
        'x = serializers.IntegerField(error_messages={"invalid": "English"})', "f") == ["f:1"]
    assert _serializer_messages('raise serializers.ValidationError(_("Ours"))', "f") == []


# -- the engine's reasons, worded again at the door ------------------------------------------


@pytest.mark.parametrize("gammons", [True, False])
@pytest.mark.parametrize("cube", [True, False])
def test_a_refused_score_gives_the_engine_s_reason_in_the_reader_s_words(
        cube: bool, gammons: bool) -> None:
    """``check_points`` words the reason anew with gettext; in English it is the engine's."""
    tournament = Tournament(cube_enabled=cube, gammons_enabled=gammons)
    tried = 0
    with translation.override("en"):
        for length in (1, 3, 5):
            for winner in range(-1, 200, 7):
                for loser in (-1, 0, length - 1, length, length + 2):
                    problem = final_score_problem(length, winner, loser, cube=cube,
                                                  gammons=gammons)
                    if problem is None:
                        check_points(tournament, winner, loser, length)
                        continue
                    with pytest.raises(TournamentError) as refused:
                        check_points(tournament, winner, loser, length)
                    assert refused.value.detail == (
                        f"{winner}–{loser} cannot end a {length}-point match: {problem}.")
                    tried += 1
    assert tried > 50
