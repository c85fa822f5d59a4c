"""Properties of legal plays over random positions (Hypothesis).

Besides conservation of checkers, pip arithmetic and replaying each play's moves, the whole set
of plays is compared with :func:`naive_results`: a slow generator written directly from the
rules (as :mod:`tavla.engine.moves` states them: every order of the dice, every checker, no
shortcuts) that shares no code with the engine.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from tavla.engine import Play, Position, legal_plays, parse_play

Board = tuple[tuple[int, ...], tuple[int, ...]]


@st.composite
def positions(draw: st.DrawFn) -> Position:
    """Any valid position, weighted towards the interesting ones: the mover bearing off (maybe
    hit meanwhile) or nearly home, and an opponent holding points (2+ checkers) to block."""
    mover = [0] * 25
    mode = draw(st.sampled_from(["anywhere", "bearing off", "nearly home"]))
    if mode == "anywhere":
        spots = draw(st.lists(st.integers(0, 24), min_size=1, max_size=15))
    elif mode == "bearing off":
        spots = draw(st.lists(st.integers(0, 5) | st.just(24), min_size=1, max_size=15))
    else:
        outside = draw(st.lists(st.integers(6, 24), min_size=1, max_size=3))
        spots = outside + draw(st.lists(st.integers(0, 5), max_size=15 - len(outside)))
    for index in spots:
        mover[index] += 1
    allowed = [i for i in range(24) if not mover[23 - i]] + [24]
    opponent = [0] * 25
    for index in draw(st.lists(st.sampled_from(allowed), max_size=6, unique=True)):
        opponent[index] = 2  # a closed point (or two on the bar)
    singles = draw(st.lists(st.sampled_from(allowed), max_size=15 - sum(opponent)))
    for index in singles:
        opponent[index] += 1
    if not sum(opponent):
        opponent[24] = 1
    return Position(tuple(mover), tuple(opponent))


dice = st.integers(1, 6)


def _single_moves(board: Board, die: int) -> list[Board]:
    """Every position one die can lead to, straight from the rules."""
    mover, opponent = board
    results = []
    for index in range(24, -1, -1):
        if not mover[index] or (mover[24] and index != 24):
            continue  # the bar first
        point = 25 if index == 24 else index + 1
        target = point - die
        new_mover, new_opponent = list(mover), list(opponent)
        new_mover[index] -= 1
        if target >= 1:
            theirs = 24 - target  # the opponent's index of my point ``target``
            if opponent[theirs] >= 2:
                continue  # closed
            new_mover[target - 1] += 1
            if opponent[theirs] == 1:  # hit
                new_opponent[theirs] -= 1
                new_opponent[24] += 1
        else:
            all_home = sum(mover[6:]) == 0
            higher = sum(mover[point:6])  # checkers on points above ``point``
            if not all_home or (target < 0 and higher):
                continue
        results.append((tuple(new_mover), tuple(new_opponent)))
    return results


def naive_results(position: Position, die1: int, die2: int) -> set[Position]:
    """The positions after every legal play, by brute force (memoised search)."""
    orders = [(die1,) * 4] if die1 == die2 else [(die1, die2), (die2, die1)]
    finished: dict[Board, tuple[int, int]] = {}  # board -> (dice used, pips of dice used)
    seen: set[tuple[Board, tuple[int, ...], int, int]] = set()

    def search(board: Board, rest: tuple[int, ...], used: int, pips: int) -> None:
        if (board, rest, used, pips) in seen:
            return
        seen.add((board, rest, used, pips))
        nexts = _single_moves(board, rest[0]) if rest else []
        if not nexts:
            finished[board] = max(finished.get(board, (0, 0)), (used, pips))
        for after in nexts:
            search(after, rest[1:], used + 1, pips + rest[0])

    start = (position.mover, position.opponent)
    for order in orders:
        search(start, order, 0, 0)
    best = max(finished.values())  # most dice, then the larger die (their sum)
    return {Position(*board) for board, score in finished.items() if score == best}


def _replay(position: Position, play: Play, die1: int, die2: int) -> Position:
    """Apply the play's moves one by one, checking each against a die of the roll."""
    remaining = [die1] * 4 if die1 == die2 else [die1, die2]
    board = (position.mover, position.opponent)
    for move in play.moves:
        for die in sorted(set(remaining)):
            mover, opponent = list(board[0]), list(board[1])
            mover[move.source - 1] -= 1
            if move.destination:
                mover[move.destination - 1] += 1
                if move.hit:
                    opponent[25 - move.destination - 1] -= 1
                    opponent[24] += 1
            candidate = (tuple(mover), tuple(opponent))
            if candidate in _single_moves(board, die):
                remaining.remove(die)
                board = candidate
                break
        else:
            raise AssertionError(f"{move} is not playable with {remaining} in {position}")
    return Position(*board)


@settings(max_examples=400, deadline=None)
@given(positions(), dice, dice)
def test_same_plays_as_the_rules_read_naively(position: Position, die1: int, die2: int) -> None:
    plays = legal_plays(position, die1, die2)
    assert {play.position for play in plays} == naive_results(position, die1, die2)
    assert len({play.position for play in plays}) == len(plays)  # each position once


@settings(max_examples=300, deadline=None)
@given(positions(), dice, dice)
def test_every_play_uses_as_many_dice_as_any(position: Position, die1: int, die2: int) -> None:
    plays = legal_plays(position, die1, die2)
    assert len({len(play.moves) for play in plays}) == 1
    board = (position.mover, position.opponent)
    if die1 != die2 and len(plays[0].moves) == 1:
        # Only one die can be used: the higher one whenever it can move at all.
        high, low = max(die1, die2), min(die1, die2)
        by_high = _single_moves(board, high)
        allowed = by_high if by_high else _single_moves(board, low)
        assert {(p.position.mover, p.position.opponent) for p in plays} == set(allowed)


@settings(max_examples=300, deadline=None)
@given(positions(), dice, dice)
def test_moves_replay_to_the_resulting_position(position: Position, die1: int,
                                                die2: int) -> None:
    for play in legal_plays(position, die1, die2):
        assert _replay(position, play, die1, die2) == play.position


@settings(max_examples=300, deadline=None)
@given(positions(), dice, dice)
def test_checkers_are_conserved_and_pips_add_up(position: Position, die1: int,
                                                die2: int) -> None:
    mover_pips, opponent_pips = position.pip_count()
    for play in legal_plays(position, die1, die2):
        after = play.position
        borne = sum(1 for move in play.moves if move.destination == 0)
        hits = [move.destination for move in play.moves if move.hit]
        assert sum(after.mover) + after.borne_off()[0] == 15
        assert sum(after.opponent) + after.borne_off()[1] == 15
        assert after.borne_off()[0] == position.borne_off()[0] + borne
        assert after.borne_off()[1] == position.borne_off()[1]
        assert after.opponent[24] == position.opponent[24] + len(hits)
        # pips moved: the distance each checker travelled (a bear-off counts its point)
        assert after.pip_count()[0] == mover_pips - sum(move.pips for move in play.moves)
        # a hit checker at my point d is at the opponent's point 25 - d: it loses d pips
        assert after.pip_count()[1] == opponent_pips + sum(hits)


@settings(max_examples=200, deadline=None)
@given(positions(), dice, dice)
def test_order_of_the_dice_does_not_matter(position: Position, die1: int, die2: int) -> None:
    forward = {play.position for play in legal_plays(position, die1, die2)}
    assert forward == {play.position for play in legal_plays(position, die2, die1)}


@settings(max_examples=300, deadline=None)
@given(positions(), dice, dice)
def test_notation_reads_back_to_the_same_play(position: Position, die1: int,
                                               die2: int) -> None:
    for play in legal_plays(position, die1, die2):
        parsed = parse_play(position, die1, die2, play.notation())
        assert parsed.position == play.position


@settings(max_examples=500)
@given(positions())
def test_position_id_round_trip(position: Position) -> None:
    text = position.to_id()
    assert len(text) == 14
    assert Position.from_id(text) == position
    assert Position.from_id(position.swap().to_id()) == position.swap()


@settings(max_examples=300, deadline=None)
@given(positions(), dice, dice)
def test_fast_paths_agree_with_the_general_search(position: Position, die1: int,
                                                  die2: int) -> None:
    # legal_plays takes shortcuts for doubles, plain non-doubles and two or more checkers on
    # the bar; the general depth-first search must find the same positions and moves.
    from tavla.engine.moves import _search

    order = (die1,) * 4 if die1 == die2 else (max(die1, die2), min(die1, die2))
    general = {play.position: play for play in _search(position, order)}
    fast = {play.position: play for play in legal_plays(position, die1, die2)}
    assert set(fast) == set(general)
    for result, play in fast.items():
        assert len(play.moves) == len(general[result].moves)
        assert _replay(position, play, die1, die2) == result


def test_generating_plays_leaves_no_garbage_for_the_cyclic_collector() -> None:
    """The searches recurse through closures; they free what they built when they return, so
    a server generating plays for every roll gives its collector nothing to find."""
    import gc
    import random

    from tavla.engine.match import MatchState
    from tavla.engine.moves import legal_plays
    from tavla.engine.rules import Rules
    from tavla.engine.selfplay import SelfPlayOptions, choose_action

    rng, rolls = random.Random(5), []
    state = MatchState.new(Rules(match_length=5))
    while len(rolls) < 1500:  # doubles, the bar and bear-offs among them
        if state.is_over:
            state = MatchState.new(Rules(match_length=5))
        if state.legal_plays():
            rolls.append((state.position_for(state.player_on_roll), *state.dice))
        state = state.apply(choose_action(state, rng, SelfPlayOptions()))
    gc.collect()
    enabled = gc.isenabled()
    gc.disable()
    try:
        gc.set_debug(gc.DEBUG_SAVEALL)
        for position, die1, die2 in rolls:
            legal_plays(position, die1, die2)
        gc.collect()
        assert gc.garbage == []
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        if enabled:
            gc.enable()
