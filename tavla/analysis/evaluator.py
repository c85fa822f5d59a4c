"""GNU Backgammon's neural nets behind a small typed interface, the evaluation context the
analysis shares: the only module that imports ``gnubg`` (the PyPI package: GNU Backgammon's
evaluator, nets and match equity table). Checker play is :mod:`tavla.analysis.checkerplay`,
luck (each roll against the average roll) :mod:`tavla.analysis.luck`, cube decisions
:mod:`tavla.analysis.cube`; they reach gnubg only through this module.

Everything here is seen from the player on roll and in *normalised equity*: for a money game
points per unit of the current cube, for a match gnubg's ``mwc2eq`` of the match-winning
chance at the current cube (+1 = winning the cube's points, -1 = losing them), so one loss
means the same whatever the cube. Positions are :class:`tavla.engine.Position` values;
gnubg's board is the same two tuples, the opponent's first.

Never imported in a web process: gnubg crashes the process when it evaluates off the main
thread, so importing this module there raises
:class:`tavla.analysis.gnubg_guard.GnubgInWebProcessError` (see that module).
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

from tavla.analysis import gnubg_guard, janowski, nets

# Before gnubg itself loads: a web process must fail here, loudly, not segfault later.
gnubg_guard.refuse_in_web_process()
# Also before: the package reads its data directory (the nets) once, when it is imported.
NETS: Final = nets.use()

import gnubg  # noqa: E402

from tavla.analysis.levels import Level  # noqa: E402
from tavla.engine import Position  # noqa: E402

#: GNU Backgammon 1.07's cube efficiencies (``show cubeefficiency``), the reference Tavla's
#: analysis is checked against. Later gnubg builds, this package among them, use larger ones
#: below 2-ply (0.76 in contact), which moves every 0-ply cubeful equity a little (a
#: double/take by about 0.0025 match-winning chance); with these the package's 0-ply
#: cubeful equities are gnubg 1.07's.
GNUBG_107_CUBE_EFFICIENCY: Final = (
    "contact 0.68", "crashed 0.68", "os 0.6", "race factor 0.00125",
    "race coefficient 0.55", "race max 0.7", "race min 0.6",
)


def _quietly(commands: Sequence[str]) -> None:
    """Run gnubg commands without their confirmations on standard output (gnubg prints
    them from C, so they would land in the middle of, say, the command line's JSON)."""
    sys.stdout.flush()
    saved = os.dup(1)
    try:
        with open(os.devnull, "w") as devnull:
            os.dup2(devnull.fileno(), 1)
            for command in commands:
                gnubg.command(command)
    finally:
        os.dup2(saved, 1)
        os.close(saved)


#: Entries in gnubg's evaluation cache. Small on purpose: an analysis evaluates a position
#: again within a decision or two (the luck's 21 rolls, then the played roll's plays), and a
#: cache this size holds that while it stays in the processor's own caches; a large one
#: keeps more positions but pays a trip to memory on more lookups (cache lookups took 24 % of
#: gnubg's time at 2-ply with 2^20 entries, 16 % with 2^14). Measured on the benchmark's ten matches
#: at 0-ply, four runs each: gnubg's own analysis 1.9 s with 2^12 to 2^14 entries, 2.0 s
#: with 2^16 and 2^17, 2.2 s with 2^20; Tavla's own 2.7 s with 2^14, 3.1 to 3.6 s with 2^20.
EVAL_CACHE_ENTRIES: Final = 1 << 14

_quietly([f"set cubeefficiency {setting}" for setting in GNUBG_107_CUBE_EFFICIENCY]
         + [f"set cache {EVAL_CACHE_ENTRIES}"])

__all__ = [
    "CACHE_LIMIT", "Cube", "Level", "Result", "Side", "analysis_filter", "analysis_thresholds",
    "apply_gnubg_move", "board", "cube_info", "cubeful_equity", "cubeinfo_for", "context_for",
    "deep_context", "eval_context", "find_best_moves", "find_plays", "from_mwc",
    "has_contact", "move_sides", "no_double_equity", "remember_score", "remember_scores",
    "resignation_equities", "result_score", "static_equity", "to_mwc", "version", "win_probability",
]

Side = tuple[int, ...]
Result = tuple[Side, Side]  # (mover, opponent) after a play, before the turn passes


@dataclass(frozen=True, slots=True)
class Cube:
    """The cube and the score as the player on roll (``mover``, 0 or 1) faces them.

    ``owner`` is the player who owns the cube or None when centred; ``match_length`` 0 is a
    money game; ``crawford`` says *this* game is the Crawford game (nobody may double);
    ``score`` is (player 0, player 1).
    """

    value: int
    owner: int | None
    mover: int
    match_length: int
    score: tuple[int, int]
    crawford: bool
    #: Gammons count. Off (a table without gammons), every equity is cubeless winning
    #: chances, 2 P(win) - 1: gnubg evaluates cubeless with gammons priced at nothing.
    gammons: bool = True

    def doubled(self) -> Cube:
        """After the mover doubles and the opponent takes."""
        return Cube(self.value * 2, 1 - self.mover, self.mover, self.match_length,
                    self.score, self.crawford, self.gammons)

    def for_player(self, mover: int) -> Cube:
        return Cube(self.value, self.owner, mover, self.match_length, self.score,
                    self.crawford, self.gammons)

    @property
    def cubeful(self) -> bool:
        """Whether gnubg evaluates at this cube cubeful. Not without gammons (every equity
        is then cubeless winning chances), and not at double match point: with both players
        one point away the cube is dead and gnubg's cubeless equities are its cubeful ones,
        to the last digit. Cubeful there, gnubg's evaluation cache would mix two games up:
        its key for a match holds each player's points to go *less one*, so at double match
        point with the cube at 1 the key is a money game's, and a process that evaluated one
        hands the other its numbers (a match's winning chances read as a money game's
        equities: the opening position "doubled" in a money game)."""
        double_match_point = bool(self.match_length) and all(
            points == self.match_length - 1 for points in self.score)
        return self.gammons and not double_match_point

    @property
    def mover_may_double(self) -> bool:
        """The cube is the mover's to turn: centred or theirs, not Crawford, not dead."""
        if self.crawford or self.owner not in (None, self.mover) or self.value >= 64:
            return False
        if self.match_length:
            # gnubg never doubles a dead cube: one that already wins the doubler the match.
            return self.score[self.mover] + self.value < self.match_length
        return True


def eval_context(level: Level, cube: Cube, *,
                 deterministic: bool = True) -> dict[str, Any]:
    """gnubg's evaluation context for ``level`` at ``cube`` (cubeful: :attr:`Cube.cubeful`)."""
    context: dict[str, Any] = gnubg.eval_context(
        1 if cube.cubeful else 0, level.plies, 1 if deterministic else 0,
        1 if level.plies else 0, float(level.noise)
    )
    return context


def cube_info(cube: Cube) -> dict[str, Any]:
    """gnubg's cubeinfo for ``cube`` (no Jacoby rule and no beavers: Tavla has neither)."""
    owner = -1 if cube.owner is None else cube.owner
    info: dict[str, Any] = gnubg.cube_info(
        cube.value, owner, cube.mover, cube.match_length, cube.score,
        1 if cube.crawford else 0, 0,
    )
    if not cube.match_length:
        # gnubg.cube_info turns the Jacoby rule on for money, which zeroes gammons while
        # the cube is centred; Tavla plays without it, so gammons count fully.
        info["jacoby"] = 0
        info["gammonprice"] = ((1.0, 1.0), (1.0, 1.0))
    if not cube.gammons:
        info["gammonprice"] = ((0.0, 0.0), (0.0, 0.0))
    return info


def find_best_moves(gnubg_board: tuple[Side, Side], info: dict[str, Any],
                    context: dict[str, Any], dice: tuple[int, int],
                    filters: list[dict[str, Any]] | None = None) -> list[dict[str, Any]]:
    """gnubg's plays of ``dice`` on ``gnubg_board`` (opponent's side first), each as
    ``{"move": tuple, "score": float}``, best first: the one door to the package's move
    evaluation for the checker-play, luck and cube modules."""
    if filters is None:
        found: list[dict[str, Any]] = gnubg.find_best_moves(gnubg_board, info, context, dice)
    else:
        found = gnubg.find_best_moves(gnubg_board, info, context, dice, filters)
    return found


_DEEP_CONTEXTS: dict[tuple[int, bool], dict[str, Any]] = {}


def deep_context(plies: int, cubeful: bool) -> dict[str, Any]:
    """A cubeful (or cubeless: :attr:`Cube.cubeful`) context at ``plies`` without pruning,
    made once: gnubg's n-ply evaluation of one chosen play (:mod:`tavla.analysis.cube`)."""
    key = (plies, cubeful)
    context = _DEEP_CONTEXTS.get(key)
    if context is None:
        context = _DEEP_CONTEXTS[key] = gnubg.eval_context(1 if cubeful else 0, plies, 1, 0,
                                                            0.0)
    return context


def board(position: Position) -> tuple[Side, Side]:
    """gnubg's board for ``position``: the opponent's side first, then the player on roll."""
    return (position.opponent, position.mover)


def apply_gnubg_move(position: Position, move: Sequence[int]) -> Result | None:
    """The position after gnubg's move tuple ``(from, to, from, to, ...)`` (1-based from the
    mover's side, 25 the bar, 0 off), seen from the mover.

    The gnubg package ends the tuple at the first checker borne off (it mistakes "off" for
    the end of the list), so a tuple of odd length says only where the play starts: None.
    """
    return move_sides(position.mover, position.opponent, move)


def move_sides(mover_side: Side, opponent_side: Side, move: Sequence[int]) -> Result | None:
    """:func:`apply_gnubg_move` on the two sides (no :class:`Position` to build and check:
    this runs for every play gnubg lists)."""
    if len(move) % 2:
        return None
    mover, opponent = list(mover_side), list(opponent_side)
    for i in range(0, len(move), 2):
        source, destination = move[i], move[i + 1]
        mover[source - 1] -= 1
        if destination > 0:
            mover[destination - 1] += 1
            if opponent[24 - destination] == 1:
                opponent[24 - destination] = 0
                opponent[24] += 1
    return tuple(mover), tuple(opponent)


def static_equity(position: Position, cube: Cube, level: Level | None = None) -> float:
    """gnubg's 0-ply cubeless equity of the mover before rolling; the fallback when both
    players would have to dance in turn. A ``level`` with noise gives the equity as that
    level sees it (gnubg's deterministic noise on each output: a bot's cube decisions)."""
    output = gnubg.evaluate(board(position), cube_info(cube),
                            eval_context(level or Level(), cube))
    return float(output[5])


def resignation_equities(position: Position, cube: Cube, level: Level,
                         resigned: int) -> tuple[float, float]:
    """gnubg's judgement of a resignation (``getResignation``, ``getResignEquities``): the
    resigner (the mover of ``position`` and ``cube``) is worth the position's *cubeless*
    utility at ``level`` (the winning, gammon and backgammon chances priced at the score:
    gnubg's ``Utility``, normalised equity), and resigning ``resigned`` (1 single, 2 gammon,
    3 backgammon) is worth the utility of losing that: -1, less the opponent's gammon price,
    less their backgammon price. Returns (playing on, resigning), the resigner's side."""
    if resigned not in (1, 2, 3):
        raise ValueError(f"a resignation is 1, 2 or 3, not {resigned!r}")
    info = cubeinfo_for(cube)
    output = gnubg.evaluate(board(position), info, context_for(level, cube.cubeful))
    # The package's gammon prices are each player's (gammon, backgammon); the opponent's
    # price is what losing a gammon or a backgammon costs the resigner.
    gammon, backgammon = info["gammonprice"][1 - cube.mover]
    after = -1.0
    if resigned > 1:
        after -= float(gammon)
    if resigned > 2:
        after -= float(backgammon)
    return float(output[5]), after


def to_mwc(equity: float, cube: Cube) -> float:
    """The mover's match-winning chance for ``equity`` at ``cube`` (matches only)."""
    return float(gnubg.eq_to_mwc(equity, cube_info(cube)))


def from_mwc(mwc: float, cube: Cube) -> float:
    return float(gnubg.mwc_to_eq(mwc, cube_info(cube)))


def win_probability(position: Position) -> float:
    """gnubg's 0-ply cubeless chance that the player on roll wins the game."""
    output = gnubg.evaluate(board(position), cubeinfo_for(Cube(1, None, 0, 0, (0, 0), False)),
                            context_for(Level(), cubeful=False))
    return float(output[0])


def version() -> str:
    """The gnubg package version and the nets it evaluates with, recorded with every
    analysis: ``1.1.0a16, nets gnubg-1.07``."""
    return f"{gnubg.__version__}, {NETS.describe()}"


#: The process whose gnubg ran ``analyse match``. gnubg's analysis starts a worker thread the
#: first time it runs and hands it the work; a process forked after that (say a pool's child
#: of a process that analysed) inherits gnubg's state but not the thread, and its analysis
#: would wait for the thread forever. Such a process analyses without it (returns False).
_ANALYSING_PROCESS: list[int] = []


def analyse_match_file(mat: str, sgf: str, plies: int) -> bool:
    """gnubg's own ``analyse match`` of the ``.mat`` file ``mat`` at ``plies`` (checker play and
    cube; the luck at 0-ply, as gnubg 1.07's analysis), saved as gnubg's SGF in ``sgf``: the
    whole analysis in C (:mod:`tavla.analysis.native` reads it back). The package's current
    match is replaced; nothing else Tavla asks of it depends on that match. File names must
    not hold white space (gnubg's command line splits at it). False, doing nothing, in a
    process forked from one whose gnubg had analysed (see ``_ANALYSING_PROCESS``)."""
    if not _ANALYSING_PROCESS:
        _ANALYSING_PROCESS.append(os.getpid())
    elif _ANALYSING_PROCESS[0] != os.getpid():
        return False
    _quietly([
        # An empty evaluation cache: gnubg's key for a position at double match point is a
        # money game's (Cube.cubeful), and its own analysis evaluates there cubefully, so a
        # money game evaluated before in this process would hand it its equities (a 1-point
        # match's plays scored above +1). A new size empties it (the same size does not).
        f"set cache {EVAL_CACHE_ENTRIES // 2}",
        f"set cache {EVAL_CACHE_ENTRIES}",
        # One thread: with gnubg's default, the package's analysis hung in a child process
        # in our trials; and an analysis is measured in CPU, not in wall time.
        "set threads 1",
        "set display off",
        "set sound enable off",
        f"set analysis chequerplay evaluation plies {plies}",
        f"set analysis cubedecision evaluation plies {plies}",
        "set analysis luckanalysis plies 0",
        # gnubg 1.07's move filter (the package's own prunes again at 1-ply: less work,
        # other verdicts).
        *(f"set analysis movefilter {plies} {step['level']} {step['acceptmoves']} "
          f"{step['extramoves']} {step['threshold']}" for step in analysis_filter(plies)
          if plies),
        f"import mat {mat}",
        "analyse match",
        f"save match {sgf}",
        # And empty after: the same collision the other way (a money game handed the
        # match's double-match-point equities).
        f"set cache {EVAL_CACHE_ENTRIES // 2}",
        f"set cache {EVAL_CACHE_ENTRIES}",
    ])
    return True


# --- gnubg's analysis as gnubg 1.07's ``analyse match`` does it ------------------------------

@dataclass(frozen=True, slots=True)
class Thresholds:
    """gnubg's analysis thresholds (``show analysis``): the marks on a decision's loss and the
    luck marks on a roll, in normalised equity."""

    doubtful: float
    error: float
    blunder: float
    lucky: float
    very_lucky: float


#: gnubg's defaults, used only if the evaluator's ``show analysis`` cannot be read.
DEFAULT_THRESHOLDS: Final = Thresholds(0.030, 0.060, 0.120, 0.300, 0.600)
_THRESHOLD_LINE: Final = re.compile(
    r"^\s*([-+]\d+\.\d+)\s+(doubtful|bad|very bad|lucky|very lucky)\s*$")
_thresholds: Thresholds | None = None


def analysis_thresholds() -> Thresholds:
    """The thresholds gnubg itself analyses with, read from the evaluator (its ``show
    analysis`` text: 0.030 / 0.060 / 0.120 and luck 0.3 / 0.6 in gnubg 1.07 and the package)."""
    global _thresholds  # noqa: PLW0603 - read once per process: the evaluator's settings are fixed
    if _thresholds is None:
        found: dict[str, float] = {}
        for line in str(gnubg.show("analysis")).splitlines():
            match = _THRESHOLD_LINE.match(line)
            if match:
                found.setdefault(match.group(2), abs(float(match.group(1))))
        try:
            _thresholds = Thresholds(found["doubtful"], found["bad"], found["very bad"],
                                     found["lucky"], found["very lucky"])
        except KeyError:
            _thresholds = DEFAULT_THRESHOLDS
    return _thresholds


def analysis_filter(plies: int, accept: int = 0) -> list[dict[str, Any]]:
    """gnubg 1.07's analysis move filter at ``plies`` (``show analysis``: keep up to 16 plays
    within 0.32 of the best at 0-ply, no pruning at 1-ply), keeping at least the first
    ``accept`` plays of the 0-ply ranking whatever their equity (the played one)."""
    return [{"ply": plies, "level": 0, "acceptmoves": accept, "extramoves": 16,
             "threshold": 0.32}] + [
        {"ply": plies, "level": level, "acceptmoves": -1, "extramoves": 0, "threshold": 0.0}
        for level in range(1, plies)
    ]


_CONTEXTS: dict[tuple[int, float, bool], dict[str, Any]] = {}
_CUBE_INFOS: dict[Cube, dict[str, Any]] = {}


def context_for(level: Level, cubeful: bool = True) -> dict[str, Any]:
    """The evaluation context, made once (``cubeful``: :attr:`Cube.cubeful`)."""
    key = (level.plies, level.noise, cubeful)
    if key not in _CONTEXTS:
        _CONTEXTS[key] = gnubg.eval_context(1 if cubeful else 0, level.plies, 1,
                                            1 if level.plies else 0, float(level.noise))
    return _CONTEXTS[key]


def cubeinfo_for(cube: Cube) -> dict[str, Any]:
    info = _CUBE_INFOS.get(cube)
    if info is None:
        info = _CUBE_INFOS[cube] = cube_info(cube)
    return info


#: 0-ply scores of plays already evaluated, by (where the play ends, cube): a play's score
#: depends only on that, so the opponent's list of plays answers the 0-ply cube decision
#: of the position they left (see :func:`cube_decision`). Bounded; cleared when full.
_SCORES: dict[tuple[Result, Cube], float] = {}
CACHE_LIMIT: Final = 200_000


def remember_scores(ranked: list[tuple[Result, float]], cube: Cube) -> None:
    if len(_SCORES) > CACHE_LIMIT:
        _SCORES.clear()
    for result, score in ranked:
        _SCORES[(result, cube)] = score


def find_plays(position: Position | Result, dice: tuple[int, int], cube: Cube, level: Level,
          accept: int | None = None) -> list[dict[str, Any]]:
    """gnubg's plays of ``dice`` from ``position`` (mover first), scored at ``level`` with the
    analysis filter (all plays at 0-ply)."""
    sides = (position.mover, position.opponent) if isinstance(position, Position) else position
    gnubg_board = (sides[1], sides[0])
    if level.plies == 0:
        found: list[dict[str, Any]] = gnubg.find_best_moves(
            gnubg_board, cubeinfo_for(cube), context_for(level, cube.cubeful), dice)
    else:
        found = gnubg.find_best_moves(gnubg_board, cubeinfo_for(cube),
                                      context_for(level, cube.cubeful), dice,
                                      analysis_filter(level.plies, accept or 0))
    return found


def _synthetic(result: Result) -> tuple[Result, tuple[int, int]] | None:
    """A position and non-double roll from which one play (no checker borne off, nobody hit)
    reaches ``result``: the score gnubg gives a play depends only on where it ends, so this
    scores ``result`` when the real play's move tuple cannot say where it ends (a bear-off)
    or there is no play at all (a roll that cannot be played)."""
    mover, opponent = result
    if mover[24]:
        # Still on the bar: enter one checker with ``a`` onto 25-a, the other die blocked.
        for a in range(1, 7):
            if not mover[24 - a]:
                continue
            for b in range(1, 7):
                if b != a and opponent[b - 1] >= 2:
                    before = list(mover)
                    before[24 - a] -= 1
                    before[24] += 1
                    return (tuple(before), opponent), (a, b)
        return None
    for q in range(1, 25):
        if not mover[q - 1]:
            continue
        for a in range(2, 7):
            for b in range(1, a):
                source = q + a + b
                if source > 24 or opponent[24 - source]:
                    continue
                if opponent[24 - (q + a)] and opponent[24 - (q + b)]:
                    continue
                before = list(mover)
                before[q - 1] -= 1
                before[source - 1] += 1
                return (tuple(before), opponent), (a, b)
    return None


def result_score(result: Result, cube: Cube, level: Level) -> float | None:
    """gnubg's score (the mover's cubeful equity, ``level`` deep) of a play that ends in
    ``result``; None when no synthetic play reaches it (see :func:`_synthetic`)."""
    if level.plies == 0 and not level.noise:
        known = _SCORES.get((result, cube))
        if known is not None:
            return known
    synthetic = _synthetic(result)
    if synthetic is None:
        return None
    start, dice = synthetic
    accept = -1 if level.plies else None  # every play at full depth: the wanted one too
    for entry in find_plays(start, dice, cube, level, accept):
        if _apply(start, entry["move"]) == result:
            return float(entry["score"])
    return None


def _apply(sides: Result, move: Sequence[int]) -> Result | None:
    return move_sides(sides[0], sides[1], move)


def remember_score(result: Result, cube: Cube, score: float) -> None:
    """Only the played play's score is read again (the next cube decision is made in the
    position it left), so only it is remembered."""
    if len(_SCORES) > CACHE_LIMIT:
        _SCORES.clear()
    _SCORES[(result, cube)] = score


#: The longest match gnubg's match equity table covers.
MAX_MET_SCORE: Final = 64
#: gnubg 1.07's cube efficiency in contact and crashed positions (the same, 0.68).
CONTACT_EFFICIENCY: Final = 0.68
_MET: list[janowski.Met] = []


def _met() -> janowski.Met:
    if not _MET:
        # The whole table: without an argument gnubg gives only the current match's part.
        pre, post0, post1 = gnubg.met(MAX_MET_SCORE)
        _MET.append(janowski.Met(pre, (post0, post1)))
    return _MET[0]


def has_contact(position: Position) -> bool:
    """gnubg's contact or crashed classes (``ClassifyPosition``): the two back checkers
    have not passed each other."""
    back = max((i for i in range(25) if position.mover[i]), default=-1)
    their_back = max((i for i in range(25) if position.opponent[i]), default=-1)
    return back + their_back > 22


def cubeful_equity(position: Position, cube: Cube) -> float:
    """gnubg's 0-ply cubeful equity of ``position`` for the mover before rolling, with
    their cube action (what gnubg scores a play that leaves this position to them with),
    from the package's cubeless evaluation and gnubg 1.07's cube efficiency
    (:mod:`tavla.analysis.janowski`). Contact positions only: their efficiency is a
    constant; elsewhere read the equity from a play's score (:func:`result_score`)."""
    if not has_contact(position):
        raise ValueError("cubeful_equity is gnubg's conversion for contact positions only")
    out = gnubg.evaluate(board(position), cubeinfo_for(cube), context_for(Level(), cube.cubeful))
    return janowski.cubeful_equity(out[:5], _cube_state(cube), _cube_state(cube.doubled()),
                                   _met(), CONTACT_EFFICIENCY)


def no_double_equity(position: Position, cube: Cube) -> float:
    """gnubg's 0-ply cubeful equity of ``position`` for the mover if they do not double now
    (gnubg's top-level no-double branch: ``Cl2CfMatch`` / ``Cl2CfMoney`` at the current
    cube), normalised. Contact positions only, as :func:`cubeful_equity`."""
    if not has_contact(position):
        raise ValueError("no_double_equity is gnubg's conversion for contact positions only")
    out = gnubg.evaluate(board(position), cubeinfo_for(cube), context_for(Level(), cube.cubeful))
    state, met = _cube_state(cube), _met()
    if cube.match_length:
        return janowski.mwc2eq(janowski.match_cubeful(out[:5], state, met, CONTACT_EFFICIENCY),
                               state, met)
    return janowski.money_cubeful(out[:5], state, CONTACT_EFFICIENCY)


def _cube_state(cube: Cube) -> janowski.CubeState:
    info = cubeinfo_for(cube)
    # The package's cubeinfo gives each player's (gammon, backgammon) prices; gnubg's
    # arGammonPrice lists both gammon prices, then both backgammon prices.
    (gammon0, backgammon0), (gammon1, backgammon1) = info["gammonprice"]
    return janowski.CubeState(
        cube.value, -1 if cube.owner is None else cube.owner, cube.mover, cube.match_length,
        cube.score, cube.crawford, (gammon0, gammon1, backgammon0, backgammon1),
        bool(info["jacoby"]))


