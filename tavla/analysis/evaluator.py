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

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

from tavla.analysis import gnubg_guard

# Before gnubg itself loads: a web process must fail here, loudly, not segfault later.
gnubg_guard.refuse_in_web_process()

import gnubg  # noqa: E402

from tavla.analysis.levels import Level  # noqa: E402
from tavla.engine import Position, legal_plays  # noqa: E402

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

    def doubled(self) -> Cube:
        """After the mover doubles and the opponent takes."""
        return Cube(self.value * 2, 1 - self.mover, self.mover, self.match_length,
                    self.score, self.crawford)

    def for_player(self, mover: int) -> Cube:
        return Cube(self.value, self.owner, mover, self.match_length, self.score,
                    self.crawford)

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
    if len(move) % 2:
        return None
    mover, opponent = list(position.mover), list(position.opponent)
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


def version() -> str:
    """The gnubg package version, recorded with every analysis."""
    return str(gnubg.__version__)
