"""Differential test: our legal plays against GNU Backgammon's, position by position.

For 3,000 seeded (position, roll) cases from every phase of a game the set of Position IDs
after each legal play must be exactly gnubg's (gnubg computes the IDs itself, so this also
checks our Position ID encoding), and gnubg's reading of each input ID must be our position
with the player on roll as its ``anBoard[1]``. Skipped only when gnubg is not installed; CI
installs it. All cases go to a few gnubg processes at once (see ``gnubg_ref``).

``sample_cases`` is also what ``tests/engine/data/make_reference.py`` draws from.
"""

from __future__ import annotations

import random
import time
from collections import Counter
from functools import lru_cache

import pytest

from tavla.engine import Position, legal_plays
from tests.engine.gnubg_ref import gnubg_legal_results, gnubg_path

CASES = 3_000
SEED = 7


def _random_roll(rng: random.Random) -> tuple[int, int]:
    return rng.randint(1, 6), rng.randint(1, 6)


def _game_turns(rng: random.Random) -> list[Position]:
    """The position before every turn of a game where both sides play random legal plays."""
    turns = []
    position = Position.initial()
    while not position.is_game_over():
        turns.append(position)
        position = rng.choice(legal_plays(position, *_random_roll(rng))).position.swap()
    return turns


def _scatter(rng: random.Random, count: int, points: list[int], side: list[int]) -> None:
    for _ in range(count):
        side[rng.choice(points)] += 1


def _closed_board_entry(rng: random.Random) -> Position:
    """The mover on the bar against an opponent home board with 2 to 6 closed points."""
    mover, opponent = [0] * 25, [0] * 25
    closed = rng.sample(range(6), rng.randint(2, 6))  # opponent's own points 1..6 (index 0..5)
    for index in closed:
        opponent[index] = 2
    left = 15 - 2 * len(closed)
    blots = [i for i in range(6) if i not in closed]
    for index in blots[: rng.randint(0, min(len(blots), left))]:
        opponent[index] = 1
        left -= 1
    mover[24] = rng.randint(1, 4)
    # The mover's other checkers anywhere the opponent is not; the opponent's rest likewise.
    _scatter(rng, rng.randint(0, 15 - mover[24]), [i for i in range(24)
             if not opponent[23 - i] and i < 18], mover)
    _scatter(rng, rng.randint(0, left), [i for i in range(6, 25) if not mover[23 - i]
             or i == 24], opponent)
    return Position(tuple(mover), tuple(opponent))


def _race(rng: random.Random) -> Position:
    """No contact: every checker of the mover below every checker of the opponent."""
    split = rng.randint(6, 18)  # the mover's index where the opponent's checkers begin
    mover, opponent = [0] * 25, [0] * 25
    _scatter(rng, rng.randint(1, 15), list(range(split)), mover)
    # the opponent's indexes 0..23-split are the mover's split..23
    _scatter(rng, rng.randint(1, 15), list(range(24 - split)), opponent)
    return Position(tuple(mover), tuple(opponent))


def _bear_off(rng: random.Random, *, on_bar: bool) -> Position:
    """The mover bearing off, often against an anchor or blots in its home board."""
    mover, opponent = [0] * 25, [0] * 25
    mover[24] = int(on_bar)  # a checker hit during the bear-off
    _scatter(rng, rng.randint(1, 15 - on_bar), list(range(6)), mover)
    free = [i for i in range(24) if not mover[23 - i]]
    in_our_home = [i for i in free if i >= 18]  # opponent indexes 18..23: mover's 6..1
    if in_our_home and rng.random() < 0.6:  # blots and points that block the bear-off
        for index in rng.sample(in_our_home, min(len(in_our_home), rng.randint(1, 3))):
            opponent[index] = rng.choice((1, 2, 2, 3))
    _scatter(rng, rng.randint(0, 15 - sum(opponent)), free, opponent)
    return Position(tuple(mover), tuple(opponent))


@lru_cache(maxsize=4)
def sample_cases(seed: int, count: int) -> list[tuple[str, int, int, str]]:
    """``count`` seeded cases ``(position ID, die1, die2, phase)`` covering every phase."""
    rng = random.Random(seed)
    cases: list[tuple[str, int, int, str]] = []

    def add(position: Position, phase: str) -> None:
        cases.append((position.to_id(), *_random_roll(rng), phase))

    quota = {"opening": 0.06, "game": 0.5, "bar vs closed board": 0.12, "race": 0.1,
             "bear-off": 0.14, "bear-off, hit": 0.08}
    target = {phase: int(share * count) for phase, share in quota.items()}
    target["game"] += count - sum(target.values())
    while target["game"] > 0 or target["opening"] > 0:
        turns = _game_turns(rng)
        for position in turns[:3]:
            if target["opening"] > 0:
                add(position, "opening")
                target["opening"] -= 1
        for position in rng.sample(turns, min(len(turns), 12)):
            if target["game"] > 0:
                add(position, "game")
                target["game"] -= 1
    for _ in range(target["bar vs closed board"]):
        add(_closed_board_entry(rng), "bar vs closed board")
    for _ in range(target["race"]):
        add(_race(rng), "race")
    for _ in range(target["bear-off"]):
        add(_bear_off(rng, on_bar=False), "bear-off")
    for _ in range(target["bear-off, hit"]):
        add(_bear_off(rng, on_bar=True), "bear-off, hit")
    return cases


def test_the_sample_covers_every_phase() -> None:
    cases = sample_cases(SEED, CASES)
    assert len(cases) == CASES
    phases = Counter(phase for *_, phase in cases)
    assert set(phases) == {"opening", "game", "bar vs closed board", "race", "bear-off",
                           "bear-off, hit"}
    assert min(phases.values()) >= 150
    positions = [Position.from_id(pid) for pid, *_ in cases]
    assert sum(1 for p in positions if p.mover[24]) >= 500  # on the bar
    assert sum(1 for _, d1, d2, _ in cases if d1 == d2) >= 300  # doubles


@pytest.mark.slow
@pytest.mark.skipif(gnubg_path() is None, reason="GNU Backgammon (gnubg) is not installed; "
                    "CI installs it with apt-get install gnubg")
def test_legal_plays_match_gnu_backgammon() -> None:
    cases = sample_cases(SEED, CASES)
    started = time.monotonic()
    answers = gnubg_legal_results([(pid, d1, d2) for pid, d1, d2, _ in cases])
    elapsed = time.monotonic() - started
    mismatches = []
    for (pid, d1, d2, phase), answer in zip(cases, answers, strict=True):
        assert "error" not in answer, (pid, answer)
        position = Position.from_id(pid)
        # gnubg's board is (opponent, player on roll): our mover is its anBoard[1]
        assert tuple(answer["board"][1]) == position.mover, pid
        assert tuple(answer["board"][0]) == position.opponent, pid
        ours = sorted({play.position.to_id() for play in legal_plays(position, d1, d2)})
        if ours != answer["results"]:
            mismatches.append(f"{phase}: {pid} {d1}-{d2}: ours {len(ours)}, gnubg "
                              f"{len(answer['results'])} ({answer['moves']})")
    assert not mismatches, f"{len(mismatches)} differ:\n" + "\n".join(mismatches[:20])
    assert elapsed < 120, f"gnubg took {elapsed:.0f} s"
