"""gnubg's own ``analyse match`` of a standard match, read back decision by decision.

Tavla's analysis (:mod:`tavla.analysis.analyse`) asks the gnubg package for every number it
needs, and each question crosses from Python into C: the luck of one roll alone is 21 move
searches, so a match of 2,000 rolls is 42,000 crossings, and the crossings (the package
building its arguments and a Python dict per play it returns) cost more than the searches.
For a match gnubg itself knows how to analyse (cube and gammons on, Crawford, a match of N
points: what a ``.mat`` says) the package runs gnubg's own ``analyse match`` in C, saves the
analysed match as gnubg's SGF, and this module reads the SGF back: for each action the ranked
plays with their scores, the luck, and the cube decision's equities. The walker
(:mod:`tavla.analysis.analyse`) takes each verdict from here and checks it against the
record (the same player, dice and played play), and computes anything missing or out of
step itself; tables gnubg does not know (no cube, no gammons, money, no Crawford rule) and
resignations are Tavla's own analysis throughout.

The SGF parsing is pure (no gnubg); :func:`native_games` reaches gnubg only through
:mod:`tavla.analysis.evaluator`.

SGF as gnubg writes it (``sgf.c``): one game tree per game; a node ``;W[42hdfd]`` is a play
by White (the ``.mat``'s first player, seat 0; ``B`` seat 1) of the dice ``42`` with the
checker moves ``hd fd`` in pairs of points; ``W[double]``, ``B[take]``, ``B[drop]`` are
cube actions. Points are letters: ``a`` to ``x`` are White's 1 to 24 (Black's 24 to 1),
``y`` is the bar and ``z`` off. A play's analysis is ``A[i][play E ver 3 p1 p2 p3 p4 p5
score ...]...``: ``i`` the played play's place in the list that follows, best first, each
with its five cubeless outputs and its score (normalised cubeful equity for the mover). The
cube's analysis ``DA[E ver 3 <context> <7 outputs> <7 outputs>]`` gives no double and
double/take, the seventh output of each being the cubeful equity (as match-winning chances
in a match). ``LU[x]`` is the roll's luck in normalised equity.
"""

from __future__ import annotations

import re
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from tavla.analysis import evaluator
from tavla.analysis.matread import MatRecord

#: A node's properties: an upper-case name and one or more bracketed values (``\\]`` is an
#: escaped bracket inside a value).
_PROPERTY: Final = re.compile(r"([A-Z]+)((?:\[(?:\\.|[^\]\\])*\])+)")
_VALUE: Final = re.compile(r"\[((?:\\.|[^\]\\])*)\]")
_DICE: Final = re.compile(r"^([1-6])([1-6])([a-z]*)$")
#: The end of a property's values: a "]" not followed by another value.
_PROPERTY_END: Final = re.compile(r"\](?!\[)")
_CUBE_ACTIONS: Final = ("double", "take", "drop")
#: In a ``DA`` value: ``E ver 3``, the context (4 tokens), then two times 7 outputs.
_CUBE_CONTEXT_TOKENS: Final = 7
_OUTPUTS: Final = 7


@dataclass(frozen=True, slots=True)
class Node:
    """One action of gnubg's analysed match.

    ``player`` is the seat (0 White, 1 Black); ``kind`` ``move`` or a cube action; for a move
    ``dice`` and ``move``, gnubg's move tuple (from, to, ...; 1-based from the mover's side,
    25 the bar, 0 off; empty when the roll could not be played), ``plays`` how many plays
    gnubg ranked (0: no analysis), ``best`` the best one (move tuple, score), ``played_score``
    the played one's score, ``luck``; ``cube`` the cube decision's no double and double/take
    cubeful equities as gnubg stores them (match-winning chances in a match), when gnubg
    analysed one here.
    """

    player: int
    kind: str
    dice: tuple[int, int] | None = None
    move: tuple[int, ...] = ()
    plays: int = 0
    best: tuple[tuple[int, ...], float] | None = None
    played_score: float | None = None
    luck: float | None = None
    cube: tuple[float, float] | None = None


def point(letter: str, player: int) -> int:
    """gnubg's SGF point letter as a point seen from ``player`` (25 the bar, 0 off)."""
    if letter == "y":
        return 25
    if letter == "z":
        return 0
    index = ord(letter) - ord("a")
    if not 0 <= index < 24:
        raise ValueError(f"not an SGF point: {letter!r}")
    return index + 1 if player == 0 else 24 - index


def move_tuple(letters: str, player: int) -> tuple[int, ...]:
    """The letters of a play (``hdfd``) as gnubg's move tuple from ``player``'s side."""
    if len(letters) % 2:
        raise ValueError(f"not an SGF play: {letters!r}")
    return tuple(point(letter, player) for letter in letters)


def _node(text: str) -> Node | None:
    """One node's text (without the leading ``;``) as a :class:`Node`, or None for a node
    that is not an action (the game's root, a comment).

    A play's ``A`` lists every legal play (hundreds for some doubles), so it is cut, not
    parsed: only the best and the played play are read, and the plays are counted. gnubg
    writes the colour first, then ``DA``, ``A``, and ``LU`` near the end; analysis values
    hold no brackets. A node with a comment (whose text might) is read property by property
    instead."""
    if "C[" in text:
        return _node_slowly(text)
    colour = text[:1]
    if colour not in ("W", "B") or text[1:2] != "[":
        return None
    player = 0 if colour == "W" else 1
    action = text[2:text.index("]")]
    at = text.find("DA[")
    cube = _cube(text[at + 3:text.index("]", at)]) if at >= 0 else None
    if action in _CUBE_ACTIONS:
        return Node(player, action, cube=cube)
    found = _DICE.match(action)
    if found is None:
        return None
    dice = (int(found.group(1)), int(found.group(2)))
    move = move_tuple(found.group(3), player)
    at = text.rfind("LU[")
    luck = float(text[at + 3:text.index("]", at)]) if at >= 0 else None
    at = text.find("]A[")
    if at < 0:
        return Node(player, "move", dice, move, luck=luck, cube=cube)
    index_end = text.index("]", at + 3)
    played = int(text[at + 3:index_end])
    # The plays: "[...][...]...[...]" up to the first "]" not followed by "[".
    first = index_end + 2
    body_end = _PROPERTY_END.search(text, first)
    last = body_end.start() if body_end else text.rindex("]")
    count = text.count("][", first, last) + 1
    best_end = text.find("]", first)
    best = _entry(text[first:best_end], player)
    chosen = best
    if played and 0 < played < count:
        entry_start = first
        for _ in range(played):
            entry_start = text.index("][", entry_start) + 2
        chosen = _entry(text[entry_start:text.index("]", entry_start)], player)
    elif played:
        chosen = None
    if best is None or chosen is None:
        return Node(player, "move", dice, move, luck=luck, cube=cube)
    return Node(player, "move", dice, move, count, best, chosen[1], luck, cube)


def _entry(entry: str, player: int) -> tuple[tuple[int, ...], float] | None:
    """``letters E ver 3 p1 p2 p3 p4 p5 score ...`` as (move tuple, score); None for what is
    not gnubg's evaluation (a rollout)."""
    tokens = entry.split(" ", 10)
    if len(tokens) < 10 or tokens[1] != "E":
        return None
    return move_tuple(tokens[0], player), float(tokens[9])


def _node_slowly(text: str) -> Node | None:
    """:func:`_node` for a node with a comment: every property read in full."""
    properties: dict[str, list[str]] = {}
    for name, values in _PROPERTY.findall(text):
        properties[name] = [re.sub(r"\\(.)", r"\1", value) for value in _VALUE.findall(values)]
    colour = "W" if "W" in properties else "B" if "B" in properties else None
    if colour is None:
        return None
    rebuilt = f"{colour}[{properties[colour][0]}]" + "".join(
        name + "".join(f"[{value}]" for value in values)
        for name, values in properties.items() if name in ("DA", "A", "LU"))
    return _node(rebuilt)


def _cube(value: str) -> tuple[float, float] | None:
    tokens = value.split()
    if len(tokens) < _CUBE_CONTEXT_TOKENS + 2 * _OUTPUTS or tokens[0] != "E":
        return None
    no_double = float(tokens[_CUBE_CONTEXT_TOKENS + _OUTPUTS - 1])
    double_take = float(tokens[_CUBE_CONTEXT_TOKENS + 2 * _OUTPUTS - 1])
    return no_double, double_take


def parse_sgf(text: str) -> list[list[Node]]:
    """gnubg's SGF of an analysed match: each game's actions in order."""
    games: list[list[Node]] = []
    for tree in text.split("(;")[1:]:
        nodes = []
        # The first node is the game's root (its properties: players, score, rules).
        for part in tree.split("\n;")[1:]:
            node = _node(part)
            if node is not None:
                nodes.append(node)
        games.append(nodes)
    return games


def eligible(record: MatRecord, cube: bool, gammons: bool) -> bool:
    """Whether gnubg's own analysis knows this table: a match (not money) with the Crawford
    rule, the cube and gammons on, read from a ``.mat`` text."""
    return bool(record.text) and record.match_length > 0 and record.crawford and cube and gammons


def native_games(record: MatRecord, plies: int) -> list[list[Node]] | None:
    """gnubg's own analysis of ``record`` at ``plies``, game by game, or None when gnubg
    could not give it (the walker then analyses every decision itself)."""
    with tempfile.TemporaryDirectory(prefix="tavla-analysis-") as directory:
        mat = Path(directory) / "match.mat"
        sgf = Path(directory) / "match.sgf"
        if any(character.isspace() for character in directory):
            return None  # gnubg's command line splits a file name at white space
        mat.write_text(record.text, encoding="utf-8")
        if not evaluator.analyse_match_file(str(mat), str(sgf), plies) or not sgf.is_file():
            return None
        games = parse_sgf(sgf.read_text(encoding="utf-8"))
    if len(games) != len(record.games):
        return None
    return games
