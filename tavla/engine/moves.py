"""Legal-play generation: every :class:`~tavla.engine.plays.Play` a roll allows.

:func:`legal_plays` follows the rules below and gives the same set of resulting positions
as GNU Backgammon's move generator (``tests/engine/test_gnubg_positions.py`` checks it):

* as many dice as possible are used (all four with doubles);
* if only one die can be used and either could be, the larger one: like GNU Backgammon we
  keep, among the plays using the most dice, those whose dice add up to the most;
* a checker on the bar enters before anything else moves; what cannot enter is forfeited;
* bearing off needs every checker home, the die's own point or, with a larger die, the
  highest occupied point; a checker hit meanwhile has to come home before bearing off again;
* each distinct resulting position is listed once; no legal move gives one empty play.

Inside this module a side is indexed like its tuple: index ``i`` is point ``i + 1`` and 24 is
the bar. The mover's index ``j`` is the opponent's index ``23 - j``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from tavla.engine.errors import InvalidDiceError
from tavla.engine.plays import BAR_POINT, OFF_POINT, Move, Play
from tavla.engine.position import BAR, HOME_POINTS, Position, Side, trusted_position


def check_dice(die1: int, die2: int) -> None:
    """Raise :class:`InvalidDiceError` unless both dice are integers 1..6."""
    for die in (die1, die2):
        if isinstance(die, bool) or not isinstance(die, int) or not 1 <= die <= 6:
            raise InvalidDiceError(f"a die shows 1 to 6, not {die!r}")


# --- Speed -------------------------------------------------------------------------------
# A bot game generates legal plays about sixty times and a referee review thousands of times,
# so the generator avoids the costs that dominate pure Python here:
# * Move values are immutable, so every possible one is built once, in the tables below;
# * positions and plays are assembled through their slot descriptors instead of the checked
#   dataclass constructors (see ``trusted_position``): the inputs are valid by construction;
# * the common case, two different dice with no checker on the bar and no bear-off in reach,
#   is enumerated directly (``_two_dice_plain``) instead of searching both orders of the dice
#   and removing the duplicates afterwards;
# * doubles are searched by non-increasing source, where every leaf is a different position
#   (``_doubles``), so no duplicate check is needed;
# * the general search keys its duplicates by the mover's tuple and a bit mask of hit points,
#   and builds the opponent's tuple only for the plays it keeps.
# ``benchmarks/engine.py`` measures the result (targets: median <= 30 µs, p99 <= 500 µs).

# _MOVE[source point][destination point] and _HIT[...] for every move a die can make.
_MOVE: Final = [[Move(s, d) for d in range(26)] for s in range(26)]
_HIT: Final = [[Move(s, d, True) for d in range(26)] for s in range(26)]

_new_object = object.__new__
_set_moves: Final[Callable[[Play, tuple[Move, ...]], None]] = vars(Play)["moves"].__set__
_set_position: Final[Callable[[Play, Position], None]] = vars(Play)["position"].__set__


def _play(moves: tuple[Move, ...], position: Position) -> Play:
    # Unchecked constructor: see the note above.
    play: Play = _new_object(Play)
    _set_moves(play, moves)
    _set_position(play, position)
    return play


# What a search's recursive closure is rebound to once the search is done (see _search).
_SPENT: Any = None


def _after_hits(opponent: Side, hit_mask: int) -> Side:
    """The opponent's side after the mover hit the blots on the mover's indexes in ``hit_mask``."""
    if not hit_mask:
        return opponent
    side = list(opponent)
    index = 0
    while hit_mask:
        if hit_mask & 1:
            side[23 - index] = 0
            side[BAR] += 1
        hit_mask >>= 1
        index += 1
    return tuple(side)


def legal_plays(position: Position, die1: int, die2: int) -> tuple[Play, ...]:
    """Every legal play for ``position`` and the roll, each distinct resulting position once.

    Applies maximum dice usage and the higher-die rule. When nothing can be played the
    result is a single empty play leading to the unchanged position.
    Raises :class:`InvalidDiceError` for dice outside 1..6.
    """
    check_dice(die1, die2)
    mover = position.mover
    if die1 != die2:
        high, low = (die1, die2) if die1 > die2 else (die2, die1)
        on_bar = mover[BAR]
        if not on_bar:
            # Two or more checkers outside the home board: after one move at least one is
            # still outside, so neither die can bear off.
            if sum(mover[HOME_POINTS:]) >= 2:
                return _two_dice_plain(position, high, low)
        elif on_bar >= 2:
            return _two_dice_from_bar(position, high, low)
        return _search(position, (high, low))
    return _doubles(position, die1)


def _two_dice_plain(position: Position, high: int, low: int) -> tuple[Play, ...]:
    """Non-doubles with no checker on the bar and no bear-off possible.

    Moves of two different checkers do not interfere here (landing never closes a point and a
    hit only removes opponent checkers), so the two-dice plays are: one checker moved by
    ``high`` and another by ``low``, plus one checker moved by both ("through" plays). A pair
    whose second checker starts where the first lands is the same position as a through play;
    those pairs are skipped and the through play is listed once (and once more per route that
    hits a blot on the way, since that leaves a different position).
    """
    mover, opponent = position.mover, position.opponent
    sources = [i for i in range(23, -1, -1) if mover[i]]
    # o[23 - j] is the opponent's count on the mover's index j: 2+ is a closed point.
    highs = [i for i in sources if i >= high and opponent[23 - i + high] < 2]
    lows = [i for i in sources if i >= low and opponent[23 - i + low] < 2]
    plays: list[Play] = []
    append = plays.append

    for s in highs:
        land = s - high
        hit1 = opponent[23 - land] == 1
        first = _HIT[s + 1][land + 1] if hit1 else _MOVE[s + 1][land + 1]
        after = list(mover)
        after[s] -= 1
        after[land] += 1
        for t in lows:
            if t == land or t - low == s:
                continue  # the same position as a through play, listed below
            if t == s and mover[s] < 2:
                continue  # a lone checker cannot move twice as two different checkers
            land2 = t - low
            hit2 = opponent[23 - land2] == 1 and land2 != land
            board = after.copy()
            board[t] -= 1
            board[land2] += 1
            if hit1 or hit2:
                mask = (1 << land if hit1 else 0) | (1 << land2 if hit2 else 0)
                other = _after_hits(opponent, mask)
            else:
                other = opponent
            second = _HIT[t + 1][land2 + 1] if hit2 else _MOVE[t + 1][land2 + 1]
            append(_play((first, second), trusted_position(tuple(board), other)))

    both = high + low
    for x in sources:
        end = x - both
        if end < 0:
            break  # sources are in decreasing order
        end_count = opponent[23 - end]
        if end_count >= 2:
            continue
        via_high = opponent[23 - x + high]  # opponent checkers on the point x - high
        via_low = opponent[23 - x + low]
        if via_high >= 2 and via_low >= 2:
            continue
        board = list(mover)
        board[x] -= 1
        board[end] += 1
        after_board = tuple(board)
        end_hit = end_count == 1
        last_mask = 1 << end if end_hit else 0
        for die, count in ((high, via_high), (low, via_low)):
            if count >= 2:
                continue
            if count == 0 and die == low and via_high == 0:
                continue  # the clear route through x - high is already listed
            mid = x - die
            step1 = _HIT[x + 1][mid + 1] if count else _MOVE[x + 1][mid + 1]
            step2 = _HIT[mid + 1][end + 1] if end_hit else _MOVE[mid + 1][end + 1]
            mask = last_mask | (1 << mid if count else 0)
            other = _after_hits(opponent, mask)
            append(_play((step1, step2), trusted_position(after_board, other)))

    if plays:
        return tuple(plays)
    for die, singles in ((high, highs), (low, lows)):
        if singles:  # the higher die first: the lower one only when the higher cannot move
            for s in singles:
                land = s - die
                hit = opponent[23 - land] == 1
                board = list(mover)
                board[s] -= 1
                board[land] += 1
                move = _HIT[s + 1][land + 1] if hit else _MOVE[s + 1][land + 1]
                other = _after_hits(opponent, 1 << land) if hit else opponent
                append(_play((move,), trusted_position(tuple(board), other)))
            return tuple(plays)
    return (_play((), position),)


def _two_dice_from_bar(position: Position, high: int, low: int) -> tuple[Play, ...]:
    """Non-doubles with two or more checkers on the bar: each die can only enter a checker."""
    mover, opponent = position.mover, position.opponent
    moves: list[Move] = []
    board = list(mover)
    mask = 0
    for die in (high, low):
        land = 24 - die  # entering with a die n lands on the mover's point 25 - n
        count = opponent[die - 1]  # = opponent[23 - land]
        if count >= 2:
            continue
        board[BAR] -= 1
        board[land] += 1
        if count == 1:
            mask |= 1 << land
            moves.append(_HIT[BAR_POINT][land + 1])
        else:
            moves.append(_MOVE[BAR_POINT][land + 1])
    if not moves:
        return (_play((), position),)
    # Only one can enter: the other die is forfeited, whichever it is (no choice to make).
    return (_play(tuple(moves), trusted_position(tuple(board), _after_hits(opponent, mask))),)


def _doubles(position: Position, die: int) -> tuple[Play, ...]:
    """Doubles: up to four moves of ``die``, taken from sources in non-increasing order.

    Any legal sequence can be reordered that way (GNU Backgammon relies on the same fact), and
    then the sequence is fixed by how many moves start on each point; those counts are in
    turn fixed by the resulting position (what leaves a point is what was there and arrived,
    minus what stays). So every leaf of this search is a different position and no duplicate
    check is needed; the opponent's side is only read, hits are kept in a bit mask.
    """
    mover = list(position.mover)
    opponent = position.opponent
    played: list[Move] = []
    remaining = 4
    mask = 0
    if mover[BAR]:
        land = 24 - die
        count = opponent[die - 1]
        if count >= 2:
            return (_play((), position),)
        # The bar comes first and entering as many as possible is forced: entering fewer
        # would leave a checker there and no other move.
        entering = min(mover[BAR], 4)
        mover[BAR] -= entering
        mover[land] += entering
        played.append(_HIT[BAR_POINT][land + 1] if count else _MOVE[BAR_POINT][land + 1])
        played.extend([_MOVE[BAR_POINT][land + 1]] * (entering - 1))
        mask = 1 << land if count else 0
        remaining -= entering
        if mover[BAR] or not remaining:
            board = tuple(mover)
            return (_play(tuple(played), trusted_position(board, _after_hits(opponent, mask))),)
    # Points that can hold a checker to move this turn: occupied ones and those below them
    # that a checker moving by ``die`` can reach; scanned from the highest.
    sources = sorted({i - step * die for i in range(24) if mover[i]
                      for step in range(remaining) if i - step * die >= 0}, reverse=True)
    outside = sum(mover[HOME_POINTS:])
    full: list[tuple[Side, int, tuple[Move, ...]]] = []  # plays using every die
    partial: list[tuple[int, Side, int, tuple[Move, ...]]] = []  # (moves, ...) otherwise

    def step(start: int, left: int, mask: int) -> None:
        nonlocal outside
        moved = False
        for at in range(start, len(sources)):
            i = sources[at]
            if not mover[i]:
                continue
            land = i - die
            if land >= 0:
                count = opponent[23 - land]
                if count >= 2:
                    continue
                moved = True
                hit = count == 1 and not mask >> land & 1  # only the first lands on the blot
                mover[i] -= 1
                mover[land] += 1
                entered = i >= HOME_POINTS > land
                if entered:
                    outside -= 1
                played.append(_HIT[i + 1][land + 1] if hit else _MOVE[i + 1][land + 1])
                new_mask = mask | 1 << land if hit else mask
                if left > 1:
                    step(at, left - 1, new_mask)
                else:
                    full.append((tuple(mover), new_mask, tuple(played)))
                played.pop()
                if entered:
                    outside += 1
                mover[i] += 1
                mover[land] -= 1
            else:
                # Bearing off. If it is not allowed from here it is not from any lower point
                # either (still a checker outside, or still one above), so stop.
                if outside or (land < -1 and any(mover[i + 1 : HOME_POINTS])):
                    break
                moved = True
                mover[i] -= 1
                played.append(_MOVE[i + 1][OFF_POINT])
                if left > 1:
                    step(at, left - 1, mask)
                else:
                    full.append((tuple(mover), mask, tuple(played)))
                played.pop()
                mover[i] += 1
        if not moved and not full:
            partial.append((len(played), tuple(mover), mask, tuple(played)))

    try:
        step(0, remaining, mask)
    finally:
        step = _SPENT  # see _search
    if full:
        leaves = [(board, hits, moves) for board, hits, moves in full]
    else:
        most = max(used for used, *_ in partial)
        if not most:
            return (_play((), position),)
        leaves = [(board, hits, moves) for used, board, hits, moves in partial if used == most]
    sides: dict[int, Side] = {0: opponent}
    plays = []
    for board, hits, moves in leaves:
        other = sides.get(hits)
        if other is None:
            other = sides[hits] = _after_hits(opponent, hits)
        plays.append(_play(moves, trusted_position(board, other)))
    return tuple(plays)


def _search(position: Position, dice: tuple[int, ...]) -> tuple[Play, ...]:
    """Depth-first search over the dice in the order given, both orders for non-doubles.

    The general case, used for non-doubles with one checker on the bar or a bear-off within
    reach. It accepts four equal dice too (then, as in ``_doubles``, sources are taken in
    non-increasing order), which the tests use to cross-check ``_doubles``.
    """
    mover = list(position.mover)
    opponent = list(position.opponent)
    doubles = len(dice) == 4
    orders = (dice,) if doubles else (dice, (dice[1], dice[0]))
    # key (mover after, hit mask) -> moves; only plays with the best (dice used, pips) are kept
    found: dict[tuple[Side, int], tuple[Move, ...]] = {}
    best = (0, 0)
    played: list[Move] = []
    # checkers on points 7..24 or on the bar: bearing off needs none
    outside = sum(mover[HOME_POINTS:])

    def record(used: int, pips: int, hit_mask: int) -> None:
        nonlocal best
        score = (used, pips)
        if score < best:
            return
        if score > best:
            best = score
            found.clear()
        key = (tuple(mover), hit_mask)
        if key not in found:
            found[key] = tuple(played)

    def step(order: tuple[int, ...], k: int, top: int, pips: int, hit_mask: int) -> None:
        nonlocal outside
        if k == len(order):
            record(k, pips, hit_mask)
            return
        die = order[k]
        moved = False
        if mover[BAR]:
            land = 24 - die
            count = opponent[die - 1]
            if count < 2:
                moved = True
                mover[BAR] -= 1
                mover[land] += 1  # still outside the home board: ``outside`` is unchanged
                if count:
                    opponent[die - 1] = 0
                    opponent[BAR] += 1
                    played.append(_HIT[BAR_POINT][land + 1])
                    step(order, k + 1, BAR, pips + die, hit_mask | 1 << land)
                    opponent[die - 1] = 1
                    opponent[BAR] -= 1
                else:
                    played.append(_MOVE[BAR_POINT][land + 1])
                    step(order, k + 1, BAR, pips + die, hit_mask)
                played.pop()
                mover[BAR] += 1
                mover[land] -= 1
        else:
            for i in range(min(top, 23), -1, -1):
                if not mover[i]:
                    continue
                land = i - die
                next_top = i if doubles else 23
                if land >= 0:
                    count = opponent[23 - land]
                    if count >= 2:
                        continue
                    moved = True
                    mover[i] -= 1
                    mover[land] += 1
                    entered = i >= HOME_POINTS > land
                    if entered:
                        outside -= 1
                    if count:
                        opponent[23 - land] = 0
                        opponent[BAR] += 1
                        played.append(_HIT[i + 1][land + 1])
                        step(order, k + 1, next_top, pips + die, hit_mask | 1 << land)
                        opponent[23 - land] = 1
                        opponent[BAR] -= 1
                    else:
                        played.append(_MOVE[i + 1][land + 1])
                        step(order, k + 1, next_top, pips + die, hit_mask)
                    played.pop()
                    if entered:
                        outside += 1
                    mover[i] += 1
                    mover[land] -= 1
                else:
                    # Bearing off; every lower point would need it too, so stop if not allowed.
                    if outside:
                        break
                    if land < -1 and any(mover[i + 1 : HOME_POINTS]):
                        continue  # a larger die bears off only from the highest point
                    moved = True
                    mover[i] -= 1
                    played.append(_MOVE[i + 1][OFF_POINT])
                    step(order, k + 1, next_top, pips + die, hit_mask)
                    played.pop()
                    mover[i] += 1
        if not moved:
            record(k, pips, hit_mask)

    try:
        for order in orders:
            step(order, 0, BAR, 0, 0)
    finally:
        # A recursive closure holds itself through its cell, and with it every list it
        # closes over: left alone, each search's boards wait for the cyclic collector (a web
        # process's largest garbage, and its longest pauses). Rebinding the name frees them.
        step = _SPENT

    if not best[0]:
        return (_play((), position),)
    original = position.opponent
    return tuple(
        _play(moves, trusted_position(board, _after_hits(original, mask)))
        for (board, mask), moves in found.items()
    )
