"""gnubg's 0-ply cubeful equity of a position from its cubeless outputs: Rick Janowski's
cube formulas for money and Jørn Thyssen's generalisation of them to match play, as GNU
Backgammon's ``eval.c`` computes them (``Cl2CfMoney``, ``Cl2CfMatch``, ``GetPoints``).

Why here: the gnubg package scores a *play* cubefully at 0-ply (the position it leaves, the
opponent on roll), but has no call that evaluates a single position cubefully. Tavla reads
most such equities from the score of a play that ends in the position; when no play can end
there (a player on the bar with no checker of theirs in the opponent's home board, after a
roll they cannot play) this module gives the same number from the position's cubeless
outputs, so an unplayable roll is scored at the same depth as every other roll, as gnubg
1.07's analysis scores it.

Pure arithmetic: no gnubg import. The match equity table and the cubeless outputs come from
the evaluator (:mod:`tavla.analysis.evaluator`); equities are floats in double precision
(gnubg computes in single precision: the two agree to about 1e-7).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

#: The outcomes gnubg's ``getMEMultiple`` prices, as multiples of the cube: win (1), double
#: win or gammon (2), backgammon (3), doubled gammon (4), doubled backgammon (6).
_MULTIPLES = (1, 2, 3, 4, 6)
# Indexes into a player's row of those outcomes (gnubg's ``met_indices``): first the wins,
# then the losses, then the same again for the second and third cube values.
_NDW = _DP = 0
_DTW = _NDWG = 1
_NDWB = 2
_DTWG = 3
_DTWB = 4
_NDL = 5
_DTL = _NDLG = 6
_NDLB = 7
_DTLG = 8
_DTLB = 9
_P0 = 10  # offset of the second cube value's block
_P1 = 20  # offset of the third's


@dataclass(frozen=True, slots=True)
class Met:
    """gnubg's match equity table: ``pre[a][b]`` player 0's chance when player 0 needs a+1
    and player 1 b+1 points; ``post[p][a]`` post-Crawford, player ``p`` trailing a+1 away
    against a player 1-away (gnubg's ``aafMETPostCrawford``)."""

    pre: Sequence[Sequence[float]]
    post: tuple[Sequence[float], Sequence[float]]


@dataclass(frozen=True, slots=True)
class CubeState:
    """gnubg's ``cubeinfo``: cube ``value``, ``owner`` (-1 centred, else the player),
    ``mover`` on roll, ``match_length`` (0 money), ``score``, ``crawford`` (this is the
    Crawford game), ``gammon_price`` (gnubg's ``arGammonPrice``: gammon price of player 0,
    of player 1, backgammon price of player 0, of player 1) and the Jacoby rule (money)."""

    value: int
    owner: int
    mover: int
    match_length: int
    score: tuple[int, int]
    crawford: bool
    gammon_price: tuple[float, float, float, float]
    jacoby: bool = False


Outputs = Sequence[float]  # win, win gammon, win backgammon, lose gammon, lose backgammon


def utility(out: Outputs, ci: CubeState) -> float:
    """gnubg's cubeless equity of ``out`` for the player on roll at the score's gammon prices
    (``Utility``)."""
    gp = ci.gammon_price
    if not ci.match_length:
        return (out[0] * 2.0 - 1.0 + (out[1] - out[3]) * gp[0] + (out[2] - out[4]) * gp[2])
    me, them = ci.mover, 1 - ci.mover
    return (out[0] * 2.0 - 1.0 + out[1] * gp[me] - out[3] * gp[them]
            + out[2] * gp[2 + me] - out[4] * gp[2 + them])


def get_me(met: Met, ci: CubeState, player: int, points: int, winner: int) -> float:
    """``player``'s match-winning chance after ``winner`` wins ``points`` (``getME``)."""
    n = ci.match_length
    n0 = n - (ci.score[0] + (points if winner == 0 else 0)) - 1
    n1 = n - (ci.score[1] + (points if winner == 1 else 0)) - 1
    if n0 < 0:
        return 0.0 if player else 1.0
    if n1 < 0:
        return 1.0 if player else 0.0
    if ci.crawford or n - ci.score[0] == 1 or n - ci.score[1] == 1:
        if not n0:
            return met.post[1][n1] if player else 1.0 - met.post[1][n1]
        return 1.0 - met.post[0][n0] if player else met.post[0][n0]
    return 1.0 - met.pre[n0][n1] if player else met.pre[n0][n1]


def eq2mwc(equity: float, ci: CubeState, met: Met) -> float:
    win = get_me(met, ci, ci.mover, ci.value, ci.mover)
    lose = get_me(met, ci, ci.mover, ci.value, 1 - ci.mover)
    return 0.5 * (equity * (win - lose) + (win + lose))


def mwc2eq(mwc: float, ci: CubeState, met: Met) -> float:
    win = get_me(met, ci, ci.mover, ci.value, ci.mover)
    lose = get_me(met, ci, ci.mover, ci.value, 1 - ci.mover)
    return (2.0 * mwc - (win + lose)) / (win - lose)


def _me_multiple(met: Met, ci: CubeState, cube: int, prime0: int = -1, prime1: int = -1,
                 ) -> tuple[list[float], list[float]]:
    """Each player's match-winning chances after every outcome at ``cube`` (and at the two
    cube values ``prime0``, ``prime1`` when given), wins first (``getMEMultiple``)."""
    n = ci.match_length
    away0, away1 = n - ci.score[0] - 1, n - ci.score[1] - 1
    post = ci.crawford or away0 == 0 or away1 == 0
    cubes = [cube] + ([prime0] if prime0 >= 0 else []) + (
        [prime1] if prime0 >= 0 and prime1 >= 0 else [])
    rows: tuple[list[float], list[float]] = ([], [])
    for value in cubes:
        zero: list[float] = []
        one: list[float] = []
        scores = ([(away0 - m * value, away1) for m in _MULTIPLES]
                  + [(away0, away1 - m * value) for m in _MULTIPLES])
        for s0, s1 in scores:
            if s0 < 0:
                p0 = 1.0
            elif s1 < 0:
                p0 = 0.0
            elif post:
                p0 = 1.0 - met.post[1][s1] if s0 == 0 else met.post[0][s0]
            else:
                p0 = met.pre[s0][s1]
            zero.append(p0)
            one.append(1.0 - p0)
        rows[0].extend(zero)
        # Player 1's row lists their own wins first, as player 0's does.
        rows[1].extend(one[5:] + one[:5])
    return rows


def _rates(out: Outputs, mover: int) -> tuple[list[float], list[float]]:
    """Gammon and backgammon rates of each player's wins (player 0, player 1)."""
    win = out[0]
    mine_g = (out[1] - out[2]) / win if win > 0.0 else 0.0
    mine_bg = out[2] / win if win > 0.0 else 0.0
    theirs_g = (out[3] - out[4]) / (1.0 - win) if win < 1.0 else 0.0
    theirs_bg = out[4] / (1.0 - win) if win < 1.0 else 0.0
    g = [0.0, 0.0]
    bg = [0.0, 0.0]
    g[mover], bg[mover] = mine_g, mine_bg
    g[1 - mover], bg[1 - mover] = theirs_g, theirs_bg
    return g, bg


def _cube_prime(i: int, j: int, cube: int) -> int:
    """The cube after an automatic redouble (``GetCubePrimeValue``)."""
    return 2 * cube if i < 2 * cube and j >= 2 * cube else cube


def cash_points(out: Outputs, ci: CubeState, met: Met) -> tuple[float, float]:
    """Each player's live-cube cash point at the score (``GetPoints``)."""
    i = ci.match_length - ci.score[0] - 1
    j = ci.match_length - ci.score[1] - 1
    g, bg = _rates(out, ci.mover)
    dead, top = ci.value, 0
    while i >= 2 * dead and j >= 2 * dead:
        top += 1
        dead *= 2
    live = [[0.0] * (top + 2), [0.0] * (top + 2)]
    value = dead
    for n in range(top, -1, -1):
        res = _me_multiple(met, ci, value, _cube_prime(i, j, value), _cube_prime(j, i, value))
        for k in (0, 1):
            r = res[k]
            if i < 2 * value or j < 2 * value:
                off = _P1 if k else _P0
                dtl = ((1.0 - g[1 - k] - bg[1 - k]) * r[off + _DTL] + g[1 - k] * r[off + _DTLG]
                       + bg[1 - k] * r[off + _DTLB])
                dp = r[_DP]
                dtw = ((1.0 - g[k] - bg[k]) * r[off + _DTW] + g[k] * r[off + _DTWG]
                       + bg[k] * r[off + _DTWB])
                live[k][n] = (dtl - dp) / (dtl - dtw)
            else:
                rdp = r[_DTL]
                dp = r[_DP]
                dtw = (1.0 - g[k] - bg[k]) * r[_DTW] + g[k] * r[_DTWG] + bg[k] * r[_DTWB]
                live[k][n] = 1.0 - live[1 - k][n + 1] * (dp - dtw) / (rdp - dtw)
        value //= 2
    return live[0][0], live[1][0]


def _live_cube_cubeful(out: Outputs, ci: CubeState, met: Met, x: float) -> float:
    """``Cl2CfMatchCentered`` / ``Owned`` / ``Unavailable``: the mover's match-winning
    chance, (1 - x) of the dead cube's plus x of the live cube's."""
    win = out[0]
    g0 = (out[1] - out[2]) / win if win > 0.0 else 0.0
    bg0 = out[2] / win if win > 0.0 else 0.0
    g1 = (out[3] - out[4]) / (1.0 - win) if win < 1.0 else 0.0
    bg1 = out[4] / (1.0 - win) if win < 1.0 else 0.0
    dead = eq2mwc(utility(out, ci), ci, met)
    cp = cash_points(out, ci, met)
    rows = _me_multiple(met, ci, ci.value)
    me = rows[ci.mover]
    cash, opp_cash = me[_NDW], me[_NDL]
    lose = (1.0 - g1 - bg1) * me[_NDL] + g1 * me[_NDLG] + bg1 * me[_NDLB]
    won = (1.0 - g0 - bg0) * me[_NDW] + g0 * me[_NDWG] + bg0 * me[_NDWB]
    opp_tg = 1.0 - cp[1 - ci.mover]
    tg = cp[ci.mover]
    if ci.owner == -1:
        if win <= opp_tg:
            live = lose + (opp_cash - lose) * win / opp_tg if opp_tg > 0.0 else lose
        elif win < tg:
            live = opp_cash + (cash - opp_cash) * (win - opp_tg) / (tg - opp_tg)
        else:
            live = cash + (won - cash) * (win - tg) / (1.0 - tg) if tg < 1.0 else won
    elif ci.owner == ci.mover:
        if win <= tg:
            live = lose + (cash - lose) * win / tg if tg > 0.0 else lose
        else:
            live = cash + (won - cash) * (win - tg) / (1.0 - tg) if tg < 1.0 else won
    elif win <= opp_tg:
        live = lose + (opp_cash - lose) * win / opp_tg if opp_tg > 0.0 else lose
    else:
        live = opp_cash + (won - opp_cash) * (win - opp_tg) / (1.0 - opp_tg)
    return dead * (1.0 - x) + live * x


def _cube_alive(ci: CubeState) -> bool:
    """``fDoCubeful``: whether the cube still has value at this score."""
    n = ci.match_length
    if ci.score[0] + ci.value >= n and ci.score[1] + ci.value >= n:
        return False
    if ci.score[0] == n - 2 and ci.score[1] == n - 2:
        return False
    return not ci.crawford


def match_cubeful(out: Outputs, ci: CubeState, met: Met, x: float) -> float:
    """``Cl2CfMatch``: the mover's match-winning chance, cube efficiency ``x``."""
    if not _cube_alive(ci):
        return eq2mwc(utility(out, ci), ci, met)
    return _live_cube_cubeful(out, ci, met, x)


def money_cubeful(out: Outputs, ci: CubeState, x: float) -> float:
    """``Cl2CfMoney``: the mover's equity per unit of the cube, cube efficiency ``x``."""
    dead = utility(out, ci)
    p = out[0]
    if p <= 0.0000001 or p >= 0.9999999:
        return dead  # basically a dead cube
    w = 1.0 + (out[1] + out[2]) / p
    lo = 1.0 + (out[3] + out[4]) / (1.0 - p)
    take = (lo - 0.5) / (w + lo + 0.5)
    cash = (lo + 1.0) / (w + lo + 0.5)
    if ci.owner == -1:
        if p < take:
            live = -1.0 if ci.jacoby else -lo + (-1.0 + lo) * p / take
        elif p < cash:
            live = -1.0 + 2.0 * (p - take) / (cash - take)
        else:
            live = 1.0 if ci.jacoby else 1.0 + (w - 1.0) * (p - cash) / (1.0 - cash)
    elif ci.owner == ci.mover:
        live = (-lo + (1.0 + lo) * p / cash if p < cash
                else 1.0 + (w - 1.0) * (p - cash) / (1.0 - cash))
    else:
        live = (-lo + (-1.0 + lo) * p / take if p < take
                else -1.0 + (w + 1.0) * (p - take) / (1.0 - take))
    return dead * (1.0 - x) + live * x


def may_double(ci: CubeState) -> bool:
    """``GetDPEq``: the player on roll may double (cube access, not Crawford, not dead,
    not the leader post-Crawford)."""
    if ci.owner not in (-1, ci.mover):
        return False
    if not ci.match_length:
        return True
    n = ci.match_length
    post = not ci.crawford and (ci.score[0] == n - 1 or ci.score[1] == n - 1)
    return (not ci.crawford and ci.score[ci.mover] + ci.value < n
            and not (post and ci.score[ci.mover] == n - 1))


def cubeful_equity(out: Outputs, ci: CubeState, doubled: CubeState, met: Met, x: float
                   ) -> float:
    """gnubg's 0-ply cubeful equity of a position before the mover rolls, normalised (as
    :func:`mwc2eq` in a match), with the mover doubling when the formulas say so and the
    opponent then taking or passing (``EvaluatePositionCubeful4`` at a leaf, not at the
    top: the equity gnubg gives a play that leaves this position to the opponent).
    ``doubled`` is ``ci`` after the mover doubles and the opponent takes: twice the cube,
    the opponent's, with the gammon prices of that cube."""
    if ci.match_length:
        no_double = match_cubeful(out, ci, met, x)
    else:
        no_double = money_cubeful(out, ci, x)
    best = no_double
    if may_double(ci):
        if ci.match_length:
            take = match_cubeful(out, doubled, met, x)
            drop = get_me(met, ci, ci.mover, ci.value, ci.mover)
        else:
            take = 2.0 * money_cubeful(out, doubled, x)
            drop = 1.0
        if take >= no_double and drop >= no_double:
            best = drop if take >= drop else take
    return mwc2eq(best, ci, met) if ci.match_length else best
