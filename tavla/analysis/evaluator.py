"""GNU Backgammon's neural nets behind a small typed interface: the only module that imports
``gnubg`` (the PyPI package: GNU Backgammon's evaluator, nets and match equity table).

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
from tavla.engine import Position, legal_plays  # noqa: E402

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


_quietly([f"set cubeefficiency {setting}" for setting in GNUBG_107_CUBE_EFFICIENCY])

__all__ = [
    "OPENING_ROLLS", "ROLLS", "Cube", "CubeEquities", "Level", "Result", "Side",
    "apply_gnubg_move", "best_equity", "board", "cube_equities", "cube_info", "eval_context",
    "from_mwc", "match_winning_chance", "rank_plays", "roll_average", "static_equity",
    "to_mwc", "version",
]

Side = tuple[int, ...]
Result = tuple[Side, Side]  # (mover, opponent) after a play, before the turn passes

#: The 21 distinct rolls and how many of the 36 outcomes each stands for.
ROLLS: Final = tuple(
    ((d1, d2), 1 if d1 == d2 else 2) for d1 in range(1, 7) for d2 in range(1, d1 + 1)
)
#: The 15 non-double rolls: the opening roll is never a double.
OPENING_ROLLS: Final = tuple((roll, weight) for roll, weight in ROLLS if roll[0] != roll[1])


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
    def mover_may_double(self) -> bool:
        """The cube is the mover's to turn: centred or theirs, not Crawford, not dead."""
        if self.crawford or self.owner not in (None, self.mover) or self.value >= 64:
            return False
        if self.match_length:
            # gnubg never doubles a dead cube: one that already wins the doubler the match.
            return self.score[self.mover] + self.value < self.match_length
        return True


def eval_context(level: Level, *, deterministic: bool = True) -> dict[str, Any]:
    """gnubg's evaluation context for ``level``."""
    context: dict[str, Any] = gnubg.eval_context(
        1, level.plies, 1 if deterministic else 0, 1 if level.plies else 0, float(level.noise)
    )
    return context


@dataclass(frozen=True, slots=True)
class CubeEquities:
    """A cube decision from the doubler's side, in equity at the current cube:
    no double, double/take, double/pass; and the same as match-winning chances."""

    no_double: float
    double_take: float
    double_pass: float
    mwc: tuple[float, float, float] | None  # None in a money game

    @property
    def should_double(self) -> bool:
        return min(self.double_take, self.double_pass) > self.no_double

    @property
    def should_take(self) -> bool:
        return self.double_take <= self.double_pass

    @property
    def best(self) -> float:
        """The doubler's equity with the right cube action by both players."""
        return max(self.no_double, min(self.double_take, self.double_pass))


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


def board(position: Position) -> tuple[Side, Side]:
    """gnubg's board for ``position``: the opponent's side first, then the player on roll."""
    return (position.opponent, position.mover)


def apply_gnubg_move(position: Position, move: Sequence[int]) -> Result | None:
    """The position after gnubg's move tuple ``(from, to, from, to, ...)`` (1-based from the
    mover's side, 25 the bar, 0 off), seen from the mover.

    The gnubg package ends the tuple at the first checker borne off (it mistakes "off" for
    the end of the list), so a tuple of odd length says only where the play starts: None.
    """
    return _move_sides(position.mover, position.opponent, move)


def _move_sides(mover_side: Side, opponent_side: Side, move: Sequence[int]) -> Result | None:
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


def rank_plays(
    position: Position, dice: tuple[int, int], cube: Cube, level: Level,
    *, deterministic: bool = True,
) -> list[tuple[Result, float]]:
    """Every legal play of ``dice`` as (resulting position, cubeful equity), best first.

    An empty list means the roll cannot be played. Plays gnubg's move filter drops at a
    deeper level keep the score of the shallower ply that dropped them, as in gnubg's hint.
    Plays whose gnubg move tuple is cut short (see :func:`apply_gnubg_move`) are matched to
    the remaining legal plays in the order of gnubg's cubeless evaluation of each.
    """
    found = gnubg.find_best_moves(
        board(position), cube_info(cube), eval_context(level, deterministic=deterministic), dice
    )
    ranked: list[tuple[Result, float]] = []
    unknown: list[float] = []
    for entry in found:
        result = apply_gnubg_move(position, entry["move"])
        if result is None:
            unknown.append(float(entry["score"]))
        else:
            ranked.append((result, float(entry["score"])))
    if unknown:
        known = {result for result, _ in ranked}
        rest = [
            (play.position.mover, play.position.opponent)
            for play in legal_plays(position, *dice)
            if (play.position.mover, play.position.opponent) not in known
        ]
        opponent = cube.for_player(1 - cube.mover)
        rest.sort(key=lambda result: static_equity(Position(result[1], result[0]), opponent))
        ranked.extend(zip(rest, unknown, strict=False))
        ranked.sort(key=lambda item: -item[1])
    return ranked


def best_equity(position: Position, dice: tuple[int, int], cube: Cube, level: Level,
                _depth: int = 0) -> float:
    """The mover's cubeful equity after the best play of ``dice``."""
    found = gnubg.find_best_moves(board(position), cube_info(cube), eval_context(level), dice)
    if found:
        return float(found[0]["score"])
    # No legal play: the opponent is on roll in the same position, before rolling.
    opponent = cube.for_player(1 - cube.mover)
    if _depth:
        return -static_equity(position.swap(), opponent)
    equity, _ = roll_average(position.swap(), opponent, level, _depth=_depth + 1)
    return -equity


def static_equity(position: Position, cube: Cube, level: Level | None = None) -> float:
    """gnubg's 0-ply cubeless equity of the mover before rolling; the fallback when both
    players would have to dance in turn. A ``level`` with noise gives the equity as that
    level sees it (gnubg's deterministic noise on each output: a bot's cube decisions)."""
    output = gnubg.evaluate(board(position), cube_info(cube), eval_context(level or Level()))
    return float(output[5])


def roll_average(position: Position, cube: Cube, level: Level, *, opening: bool = False,
                 _depth: int = 0) -> tuple[float, dict[tuple[int, int], float]]:
    """The mover's cubeful equity before rolling (not doubling): the average over the 36
    rolls of the best play's equity; and that best equity per roll (higher die first).

    ``opening`` averages over the 30 opening rolls (no doubles)."""
    rolls = OPENING_ROLLS if opening else ROLLS
    per_roll: dict[tuple[int, int], float] = {}
    total = 0.0
    weights = 0
    danced: float | None = None
    context = eval_context(level)
    info = cube_info(cube)
    gnubg_board = board(position)
    for roll, weight in rolls:
        found = gnubg.find_best_moves(gnubg_board, info, context, roll)
        if found:
            equity = float(found[0]["score"])
        else:
            if danced is None:
                danced = best_equity(position, roll, cube, level, _depth)
            equity = danced
        per_roll[(max(roll), min(roll))] = equity
        total += weight * equity
        weights += weight
    return total / weights, per_roll


def to_mwc(equity: float, cube: Cube) -> float:
    """The mover's match-winning chance for ``equity`` at ``cube`` (matches only)."""
    return float(gnubg.eq_to_mwc(equity, cube_info(cube)))


def from_mwc(mwc: float, cube: Cube) -> float:
    return float(gnubg.mwc_to_eq(mwc, cube_info(cube)))


def cube_equities(position: Position, cube: Cube, level: Level,
                  no_double: float | None = None) -> CubeEquities:
    """No double / double-take / double-pass for the mover (who must have cube access).

    Equities are 1-ply deeper than ``level``'s checker play (each roll's best play at
    ``level``, averaged). ``no_double`` may be passed in when already computed.
    """
    if no_double is None:
        no_double, _ = roll_average(position, cube, level)
    doubled = cube.doubled()
    take_raw, _ = roll_average(position, doubled, level)
    if not cube.match_length:
        return CubeEquities(no_double, 2 * take_raw, 1.0, None)
    mwc_nd = to_mwc(no_double, cube)
    mwc_dt = to_mwc(take_raw, doubled)
    mwc_dp = to_mwc(1.0, cube)
    return CubeEquities(no_double, from_mwc(mwc_dt, cube), 1.0, (mwc_nd, mwc_dt, mwc_dp))


def match_winning_chance(position: Position, cube: Cube, level: Level,
                         *, opponent_doubled: bool = False) -> float:
    """The mover's match-winning chance (a money game: probability-weighted equity mapped to
    0..1 is meaningless, so this is for matches) at the current position before rolling,
    with correct cube play (gnubg, cubeful, its match equity table).

    With ``opponent_doubled`` the mover faces a double and chooses take or pass.
    """
    if opponent_doubled:
        doubler = cube.for_player(1 - cube.mover)
        eqs = cube_equities(position.swap(), doubler, level)
        take = eqs.double_take
        assert eqs.mwc is not None
        chosen = min(eqs.mwc[1], eqs.mwc[2]) if take <= eqs.double_pass else eqs.mwc[2]
        return 1.0 - chosen
    if cube.mover_may_double:
        eqs = cube_equities(position, cube, level)
        return to_mwc(eqs.best, cube)
    equity, _ = roll_average(position, cube, level)
    return to_mwc(equity, cube)


def win_probability(position: Position) -> float:
    """gnubg's 0-ply cubeless chance that the player on roll wins the game."""
    output = gnubg.evaluate(board(position), _cube_info(Cube(1, None, 0, 0, (0, 0), False)),
                            _context(Level(), cubeful=False))
    return float(output[0])


def version() -> str:
    """The gnubg package version and the nets it evaluates with, recorded with every
    analysis: ``1.1.0a16, nets gnubg-1.07``."""
    return f"{gnubg.__version__}, {NETS.describe()}"


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


def _context(level: Level, cubeful: bool = True) -> dict[str, Any]:
    """The evaluation context, made once: gammons-off tables are evaluated cubeless."""
    key = (level.plies, level.noise, cubeful)
    if key not in _CONTEXTS:
        _CONTEXTS[key] = gnubg.eval_context(1 if cubeful else 0, level.plies, 1,
                                            1 if level.plies else 0, float(level.noise))
    return _CONTEXTS[key]


def _cube_info(cube: Cube) -> dict[str, Any]:
    info = _CUBE_INFOS.get(cube)
    if info is None:
        info = _CUBE_INFOS[cube] = cube_info(cube)
    return info


#: 0-ply scores of plays already evaluated, by (where the play ends, cube): a play's score
#: depends only on that, so the opponent's list of plays answers the 0-ply cube decision
#: of the position they left (see :func:`cube_decision`). Bounded; cleared when full.
_SCORES: dict[tuple[Result, Cube], float] = {}
#: Results of :func:`roll_equities` by (position, cube, level, rolls), for the next player's
#: luck and the rolls that cannot be played. Bounded; cleared when full.
_ROLLS: dict[tuple[Result, Cube, Level, int], tuple[float, dict[tuple[int, int], float],
                                                   list[dict[str, Any]] | None]] = {}
_CACHE_LIMIT: Final = 200_000


def _remember(ranked: list[tuple[Result, float]], cube: Cube) -> None:
    if len(_SCORES) > _CACHE_LIMIT:
        _SCORES.clear()
    for result, score in ranked:
        _SCORES[(result, cube)] = score


def _find(position: Position | Result, dice: tuple[int, int], cube: Cube, level: Level,
          accept: int | None = None) -> list[dict[str, Any]]:
    """gnubg's plays of ``dice`` from ``position`` (mover first), scored at ``level`` with the
    analysis filter (all plays at 0-ply)."""
    sides = (position.mover, position.opponent) if isinstance(position, Position) else position
    gnubg_board = (sides[1], sides[0])
    if level.plies == 0:
        found: list[dict[str, Any]] = gnubg.find_best_moves(
            gnubg_board, _cube_info(cube), _context(level, cube.gammons), dice)
    else:
        found = gnubg.find_best_moves(gnubg_board, _cube_info(cube),
                                      _context(level, cube.gammons), dice,
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
    for entry in _find(start, dice, cube, level, accept):
        if _apply(start, entry["move"]) == result:
            return float(entry["score"])
    return None


def _apply(sides: Result, move: Sequence[int]) -> Result | None:
    return _move_sides(sides[0], sides[1], move)


def scored_plays(position: Position, dice: tuple[int, int], cube: Cube, level: Level,
                 played: Result | None = None,
                 zero_ply: list[dict[str, Any]] | None = None) -> list[tuple[Result, float]]:
    """Every play gnubg's analysis scores, as (resulting position, cubeful equity), best first,
    as gnubg 1.07's ``analyse match``: the plays its move filter keeps at ``level``'s full
    depth, and ``played`` always at full depth; plays the filter drops keep their shallower
    score. Bear-offs (whose move tuple the package cuts short) are matched by where they end.

    ``zero_ply`` is gnubg's 0-ply list for the same roll when already computed (luck)."""
    if zero_ply is None or level.plies:
        accept = None
        if level.plies and played is not None:
            ranking = zero_ply if zero_ply is not None else _find(position, dice, cube, Level())
            results = _resolve(position, dice, cube, Level(), ranking)
            rank = next((i for i, (result, _) in enumerate(results) if result == played),
                        len(results))
            # The filter ranks on the pruning nets: a little slack keeps the played play in.
            accept = rank + 3
        found = _find(position, dice, cube, level, accept)
    else:
        found = zero_ply
    ranked = _resolve(position, dice, cube, level, found)
    ranked.sort(key=lambda item: -item[1])
    if level.plies == 0 and not level.noise:
        _remember(ranked, cube)
    return ranked


@dataclass(frozen=True, slots=True)
class Verdict:
    """A checker play against gnubg's best: where the best play ends and its score, the
    played play's score and how many plays the roll has."""

    best: Result
    best_score: float
    played_score: float
    plays: int


def played_verdict(position: Position, cube: Cube, played: Result,
                   zero_ply: list[dict[str, Any]]) -> Verdict | None:
    """The played play against the best from gnubg's 0-ply list ``zero_ply`` (best first),
    without resolving every play's position: only the plays up to the played one are
    applied. None when a bear-off's move tuple is cut short before it is found (then
    :func:`scored_plays` matches the plays by where they end)."""
    if not zero_ply:
        return None
    mover, opponent = position.mover, position.opponent
    best: Result | None = None
    for entry in zero_ply:
        result = _move_sides(mover, opponent, entry["move"])
        if result is None:
            return None
        if best is None:
            best = result
        if result == played:
            score = float(entry["score"])
            _remember_one(played, cube, score)
            assert best is not None
            return Verdict(best, float(zero_ply[0]["score"]), score, len(zero_ply))
    return None


def _remember_one(result: Result, cube: Cube, score: float) -> None:
    """Only the played play's score is read again (the next cube decision is made in the
    position it left), so only it is remembered."""
    if len(_SCORES) > _CACHE_LIMIT:
        _SCORES.clear()
    _SCORES[(result, cube)] = score


def _resolve(position: Position, dice: tuple[int, int], cube: Cube, level: Level,
             found: list[dict[str, Any]]) -> list[tuple[Result, float]]:
    """gnubg's entries as (result, score), in gnubg's order; entries whose tuple is cut short
    at a bear-off are scored by where each remaining legal play ends."""
    ranked: list[tuple[Result, float]] = []
    cut = 0
    for entry in found:
        result = apply_gnubg_move(position, entry["move"])
        if result is None:
            cut += 1
        else:
            ranked.append((result, float(entry["score"])))
    if cut:
        known = {result for result, _ in ranked}
        for play in legal_plays(position, *dice):
            result = (play.position.mover, play.position.opponent)
            if result in known:
                continue
            known.add(result)
            score = result_score(result, cube, level)
            if score is None:  # cannot happen in a bear-off (no checker on the bar)
                score = -static_equity(Position(result[1], result[0]),
                                       cube.for_player(1 - cube.mover))
            ranked.append((result, score))
    return ranked


def roll_equities(position: Position, cube: Cube, level: Level, rolls: Sequence[
        tuple[tuple[int, int], int]] = ROLLS, keep: tuple[int, int] | None = None,
                  ) -> tuple[float, dict[tuple[int, int], float], list[dict[str, Any]] | None]:
    """The mover's cubeful equity before rolling, as the weighted average over ``rolls`` of
    each roll's best play at ``level``; each roll's equity (higher die first); and gnubg's
    list of plays for the roll ``keep``. A roll that cannot be played is scored at the same
    depth as the others (the unchanged position, the opponent on roll)."""
    key_keep = (max(keep), min(keep)) if keep else None
    key = ((position.mover, position.opponent), cube, level, len(rolls))
    cached = _ROLLS.get(key)
    if cached is not None and (key_keep is None or cached[2] is not None):
        average, per_roll, kept = cached
        if key_keep is not None:
            kept = _find(position, key_keep, cube, level)  # an eval-cache hit in gnubg
        return average, per_roll, kept
    per_roll = {}
    total = 0.0
    weights = 0
    kept = None
    danced: float | None = None
    # One board, cubeinfo and context for all the rolls (what _find does per call).
    gnubg_board = (position.opponent, position.mover)
    info, context = _cube_info(cube), _context(level, cube.gammons)
    deeper = analysis_filter(level.plies) if level.plies else None
    for roll, weight in rolls:
        found = (gnubg.find_best_moves(gnubg_board, info, context, roll) if deeper is None
                 else gnubg.find_best_moves(gnubg_board, info, context, roll, deeper))
        if roll == key_keep:
            kept = found
        if found:
            equity = float(found[0]["score"])
        else:
            if danced is None:
                danced = _danced(position, cube, level)
            equity = danced
        per_roll[roll] = equity
        total += weight * equity
        weights += weight
    if len(_ROLLS) > _CACHE_LIMIT // 100:
        _ROLLS.clear()
    _ROLLS[key] = (total / weights, per_roll, [] if key_keep is None else kept)
    return total / weights, per_roll, kept


def _danced(position: Position, cube: Cube, level: Level) -> float:
    """The mover's equity after a roll that cannot be played: the opponent on roll in the
    same position, at ``level`` (gnubg scores the empty play like any other). When no
    synthetic play reaches it (the mover on the bar with no checker in the opponent's home
    board), at 0-ply gnubg's cubeful conversion of the position's cubeless outputs
    (:func:`cubeful_equity`); deeper (or with noise), the opponent's average roll."""
    score = result_score((position.mover, position.opponent), cube, level)
    if score is not None:
        return score
    opponent = cube.for_player(1 - cube.mover)
    if not cube.gammons:
        theirs = static_equity(position.swap(), opponent)
    elif level.plies == 0 and not level.noise:
        theirs = cubeful_equity(position.swap(), opponent)
    else:
        theirs, _, _ = roll_equities(position.swap(), opponent, level)
    if cube.match_length:
        return from_mwc(1.0 - to_mwc(theirs, opponent), cube)
    return -theirs


#: gnubg 1.07's cube efficiency in contact and crashed positions (the same, 0.68).
CONTACT_EFFICIENCY: Final = 0.68
_MET: list[janowski.Met] = []


def _met() -> janowski.Met:
    if not _MET:
        pre, post0, post1 = gnubg.met()
        _MET.append(janowski.Met(pre, (post0, post1)))
    return _MET[0]


def _contact(position: Position) -> bool:
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
    if not _contact(position):
        raise ValueError("cubeful_equity is gnubg's conversion for contact positions only")
    out = gnubg.evaluate(board(position), _cube_info(cube), _context(Level(), cube.gammons))
    return janowski.cubeful_equity(out[:5], _cube_state(cube), _cube_state(cube.doubled()),
                                   _met(), CONTACT_EFFICIENCY)


def _cube_state(cube: Cube) -> janowski.CubeState:
    info = _cube_info(cube)
    # The package's cubeinfo gives each player's (gammon, backgammon) prices; gnubg's
    # arGammonPrice lists both gammon prices, then both backgammon prices.
    (gammon0, backgammon0), (gammon1, backgammon1) = info["gammonprice"]
    return janowski.CubeState(
        cube.value, -1 if cube.owner is None else cube.owner, cube.mover, cube.match_length,
        cube.score, cube.crawford, (gammon0, gammon1, backgammon0, backgammon1),
        bool(info["jacoby"]))


def opening_luck(position: Position, dice: tuple[int, int], cube: Cube,
                 per_roll: dict[tuple[int, int], float]) -> float:
    """The luck of the opening roll as gnubg counts it: the roll's equity against the mean of
    all 30 opening outcomes, each of the 15 rolls won by either player, so winning the
    opening roll is luck too. ``per_roll`` are the mover's equities of the 15 rolls."""
    other = cube.for_player(1 - cube.mover)
    if cube.score[0] == cube.score[1]:
        their_rolls = per_roll  # the same game for either player: no need to ask gnubg
    else:
        _, their_rolls, _ = roll_equities(position, other, Level(), OPENING_ROLLS)
    mine = per_roll[(max(dice), min(dice))]
    if cube.match_length:
        mean = sum(to_mwc(per_roll[roll], cube) + 1.0 - to_mwc(their_rolls[roll], other)
                   for roll, _ in OPENING_ROLLS) / 30
        return from_mwc(to_mwc(mine, cube), cube) - from_mwc(mean, cube)
    mean = sum(per_roll[roll] - their_rolls[roll] for roll, _ in OPENING_ROLLS) / 30
    return mine - mean


def cube_decision(position: Position, cube: Cube, level: Level,
                  no_double: float | None = None) -> CubeEquities:
    """No double / double-take / double-pass for the mover at ``level``, as gnubg's analysis
    makes a cube decision at that depth: at 0-ply gnubg's own 0-ply cubeful evaluation of the
    position (read from the score gnubg gives a play by the opponent that ends in it), deeper
    the average over the 21 rolls one ply shallower (gnubg's n-ply cube evaluation).

    The mover need not have access to the cube (a dead cube, our rules allow doubling it)."""
    if level.plies:
        inner = Level(level.plies - 1)
        if no_double is None:
            no_double = _cube_average(position, cube, inner)
        take_raw = _cube_average(position, cube.doubled(), inner)
        return _equities(no_double, take_raw, cube)
    them = (position.opponent, position.mover)
    theirs = cube.for_player(1 - cube.mover)
    doubled = cube.doubled().for_player(1 - cube.mover)
    take_score = result_score(them, doubled, level)
    optimal_score = result_score(them, theirs, level)
    if take_score is None or optimal_score is None:
        # The opponent on the bar with nothing in the mover's home board: gnubg's 1-ply.
        if no_double is None:
            no_double, _, _ = roll_equities(position, cube, level)
        take_raw, _, _ = roll_equities(position, cube.doubled(), level)
        return _equities(no_double, take_raw, cube)
    if cube.match_length:
        take_raw = from_mwc(1.0 - to_mwc(take_score, doubled), cube.doubled())
        optimal = from_mwc(1.0 - to_mwc(optimal_score, theirs), cube)
    else:
        take_raw, optimal = -take_score, -optimal_score
    eqs = _equities(optimal, take_raw, cube)
    if (cube.gammons and cube.mover_may_double
            and optimal <= min(eqs.double_take, eqs.double_pass) + 1e-7):
        # gnubg's equity was the double's: not doubling is worth less, by how much only a
        # deeper look says (capped so the verdict stays gnubg's).
        deeper = no_double if no_double is not None else roll_equities(position, cube, level)[0]
        eqs = _equities(min(deeper, optimal), take_raw, cube)
    return eqs


def _cube_average(position: Position, cube: Cube, inner: Level) -> float:
    """gnubg's (n+1)-ply cubeful equity before rolling, as its evaluator computes it: for each
    of the 21 rolls the play it chooses at 0-ply, that one play evaluated ``inner`` (n-ply)
    deep, averaged over the 36 rolls."""
    if not inner.plies:
        average, _, _ = roll_equities(position, cube, inner)
        return average
    key = (inner.plies, cube.gammons)
    context = _CUBE_CONTEXTS.get(key)
    if context is None:
        context = _CUBE_CONTEXTS[key] = gnubg.eval_context(
            1 if cube.gammons else 0, inner.plies, 1, 0, 0.0)
    only_best = [{"ply": inner.plies, "level": 0, "acceptmoves": 1, "extramoves": 0,
                  "threshold": 0.0}] + [
        {"ply": inner.plies, "level": level, "acceptmoves": -1, "extramoves": 0,
         "threshold": 0.0} for level in range(1, inner.plies)]
    gnubg_board = (position.opponent, position.mover)
    info = _cube_info(cube)
    total = 0.0
    danced: float | None = None
    for roll, weight in ROLLS:
        shallow = _find(position, roll, cube, Level())
        if not shallow:
            if danced is None:
                danced = _danced(position, cube, inner)
            total += weight * danced
            continue
        chosen = tuple(shallow[0]["move"])
        deep = gnubg.find_best_moves(gnubg_board, info, context, roll, only_best)
        score = next((float(entry["score"]) for entry in deep
                      if tuple(entry["move"]) == chosen), float(deep[0]["score"]))
        total += weight * score
    return total / 36


_CUBE_CONTEXTS: dict[tuple[int, bool], dict[str, Any]] = {}


def _equities(no_double: float, take_raw: float, cube: Cube) -> CubeEquities:
    doubled = cube.doubled()
    if not cube.match_length:
        return CubeEquities(no_double, 2 * take_raw, 1.0, None)
    mwc_nd = to_mwc(no_double, cube)
    mwc_dt = to_mwc(take_raw, doubled)
    mwc_dp = to_mwc(1.0, cube)
    return CubeEquities(no_double, from_mwc(mwc_dt, cube), 1.0, (mwc_nd, mwc_dt, mwc_dp))
