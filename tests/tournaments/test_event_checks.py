"""The acceptance runs' checks by hand (:mod:`tests.tournaments.event_checks`) are checks:
they pair a Swiss round by the documented rules, pay by the money rules, and refuse a
stored round that is not the rules' pairing."""

from __future__ import annotations

from decimal import Decimal

import pytest

from tests.tournaments.event_checks import (
    Game,
    Stored,
    check_swiss,
    payouts_by_hand,
    record,
    swiss_round_by_hand,
)
from tournaments import money


def round_one(seeds: list[int]) -> list[Game]:
    half = len(seeds) // 2
    return [Game(f"R1-{i + 1}", "main", 1, seeds[i], seeds[i + half], seeds[i])
            for i in range(half)]


def test_a_swiss_round_by_hand_is_top_half_against_bottom_half_by_score_group() -> None:
    seeds = list(range(101, 109))
    pairs, bye = swiss_round_by_hand(seeds, seeds, record(seeds, []))
    assert (pairs, bye) == ({frozenset((101, 105)), frozenset((102, 106)),
                             frozenset((103, 107)), frozenset((104, 108))}, None)
    # After round one (the better seed won): winners 101-104, losers 105-108.
    after = record(seeds, round_one(seeds))
    pairs, bye = swiss_round_by_hand(seeds, seeds, after)
    assert pairs == {frozenset((101, 103)), frozenset((102, 104)), frozenset((105, 107)),
                     frozenset((106, 108))} and bye is None
    # Seven players: the bye to the lowest ranked.
    pairs, bye = swiss_round_by_hand(seeds[:7], seeds, record(seeds, []))
    assert bye == 107 and frozenset((101, 104)) in pairs


def test_check_swiss_refuses_a_round_the_rules_would_not_pair(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("tests.tournaments.event_checks.ROUNDS", 2)
    seeds = list(range(101, 109))
    names = {e: f"P{e}" for e in seeds}
    good = [Game("R2-1", "main", 2, 101, 103, 101), Game("R2-2", "main", 2, 102, 104, 102),
            Game("R2-3", "main", 2, 105, 107, 105), Game("R2-4", "main", 2, 106, 108, 106)]
    event = Stored(seeds, names, dict.fromkeys(seeds, "active"), set(seeds),
                   round_one(seeds) + good)
    assert [e for e, _values in check_swiss(event, late={}, out={}, swaps={})][:2] == [101, 102]
    wrong = [Game("R2-1", "main", 2, 101, 102, 101), Game("R2-2", "main", 2, 103, 104, 103),
             *good[2:]]
    event.games = round_one(seeds) + wrong
    with pytest.raises(AssertionError):
        check_swiss(event, late={}, out={}, swaps={})
    # A swap the director made by hand is expected only where it was made.
    with pytest.raises(AssertionError):
        check_swiss(Stored(seeds, names, dict.fromkeys(seeds, "active"), set(seeds),
                           round_one(seeds) + good), late={}, out={}, swaps={1: (101, 102)})


@pytest.mark.parametrize(("pool", "places"), [
    (Decimal("160.00"), [(1, 7), (2, 3), (3, 9), (3, 12)]),
    (Decimal("256.00"), [(1, 7), (2, 3), (3, 9), (3, 12), (5, 1)]),
    (Decimal("100.01"), [(1, 1), (1, 2), (1, 3), (4, 4)]),
    (Decimal("99.99"), [(1, 1), (2, 2), (2, 3), (2, 4)]),
])
def test_payouts_by_hand_follow_the_money_rules(pool: Decimal,
                                                places: list[tuple[int, int]]) -> None:
    table = money.PAYOUT_PRESETS["40/30/20/10"]
    by_hand = payouts_by_hand(pool, table, dict((e, r) for r, e in places))
    assert by_hand == money.payouts(pool, table, places)
