"""Prize pools and payouts: the rounding rule keeps every payout table adding up to the pool."""

from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tournaments.money import (
    PAYOUT_PRESETS,
    MoneyError,
    parse_payout_table,
    payouts,
    prize_pool,
    split_pool,
)

D = Decimal


def test_the_issue_example_eighty_percent_split_forty_thirty_twenty_ten():
    pool = prize_pool(fee=D("20"), entries=16, return_percent=D("80"))
    assert pool == D("256.00")
    paid = payouts(pool, PAYOUT_PRESETS["40/30/20/10"], [(1, 11), (2, 12), (3, 13), (4, 14)])
    assert paid == {11: D("102.40"), 12: D("76.80"), 13: D("51.20"), 14: D("25.60")}


def test_pool_rounds_down_to_the_cent():
    assert prize_pool(fee=D("7.77"), entries=3, return_percent=D("85")) == D("19.81")  # 19.8135


def test_leftover_cents_go_to_first_place_first():
    paid = payouts(D("100.00"), PAYOUT_PRESETS["50/30/20"], [(1, 1), (2, 2), (3, 3), (3, 4)])
    # 3rd is shared: 20 % / 2 = 10.00 each; nothing left over.
    assert paid == {1: D("50.00"), 2: D("30.00"), 3: D("10.00"), 4: D("10.00")}
    paid = payouts(D("100.01"), PAYOUT_PRESETS["50/30/20"], [(1, 1), (2, 2), (3, 3)])
    assert paid == {1: D("50.01"), 2: D("30.00"), 3: D("20.00")}


def test_co_placed_players_are_paid_the_same_to_the_cent():
    # The issue's case: two co-3rd players were paid 16.26 and 16.25.
    paid = payouts(D("130.05"), PAYOUT_PRESETS["40/30/20/10"], [(1, 1), (2, 2), (3, 3), (3, 4)])
    assert paid[3] == paid[4] == D("19.50")
    assert sum(paid.values()) == D("130.05") and paid[1] == D("52.03")
    # Three share first place of a winner-takes-all pool of one unit short of thirds: the
    # unit nobody can share equally stays with the organiser.
    paid = payouts(D("1.00"), PAYOUT_PRESETS["100"], [(1, 7), (1, 8), (1, 9)])
    assert paid == {7: D("0.33"), 8: D("0.33"), 9: D("0.33")}


def test_a_pool_splits_between_flights_and_main_gets_the_rest():
    assert split_pool(D("100.01"), {"consolation": D("15"), "last_chance": D("5")}) == {
        "main": D("80.01"), "consolation": D("15.00"), "last_chance": D("5.00")}
    with pytest.raises(MoneyError):
        split_pool(D("10"), {"consolation": D("60"), "last_chance": D("50")})


def test_shared_places_split_the_places_they_cover():
    paid = payouts(D("256.00"), PAYOUT_PRESETS["40/30/20/10"], [(1, 1), (2, 2), (3, 3), (3, 4)])
    assert paid[3] == paid[4] == D("38.40")


def test_unreached_places_are_shared_out_in_proportion():
    paid = payouts(D("80.00"), PAYOUT_PRESETS["50/30/20"], [(1, 1), (2, 2)])
    assert paid == {1: D("50.00"), 2: D("30.00")}


def test_nobody_beyond_the_paid_places_gets_anything():
    placings = [(1, 1), (2, 2), (3, 3), (3, 4), (5, 5), (5, 6)]
    paid = payouts(D("90.00"), PAYOUT_PRESETS["50/30/20"], placings)
    assert set(paid) == {1, 2, 3, 4}
    assert paid[3] == paid[4] == D("9.00")


@pytest.mark.parametrize("text", ["50/30", "30/50/20", "0/100", "abc", "", "50/30/20/-0"])
def test_bad_payout_tables_are_refused(text):
    with pytest.raises(MoneyError):
        parse_payout_table(text)


def test_presets_and_own_tables_parse():
    assert parse_payout_table("40/30/20/10") == (D(40), D(30), D(20), D(10))
    assert parse_payout_table("45 / 30 / 25") == (D(45), D(30), D(25))
    assert all(sum(table) == 100 for table in PAYOUT_PRESETS.values())


@pytest.mark.parametrize("fee,percent", [(D("-1"), D(80)), (D(10), D(101)), (D("NaN"), D(50))])
def test_bad_fees_and_percentages_are_refused(fee, percent):
    with pytest.raises(MoneyError):
        prize_pool(fee=fee, entries=4, return_percent=percent)


@st.composite
def payout_tables(draw):
    if draw(st.booleans()):
        return PAYOUT_PRESETS[draw(st.sampled_from(sorted(PAYOUT_PRESETS)))]
    cuts = sorted(draw(st.lists(st.integers(1, 99), max_size=7, unique=True)))
    parts = [b - a for a, b in zip([0, *cuts], [*cuts, 100], strict=True)]
    return tuple(D(p) for p in sorted(parts, reverse=True))


@st.composite
def standings(draw):
    """Ranks as formats give them: best first, shared ranks skip the places they cover."""
    n = draw(st.integers(0, 40))
    lines, position = [], 1
    while len(lines) < n:
        size = draw(st.integers(1, 8))
        lines += [(position, 100 + len(lines) + k) for k in range(size)]
        position += size
    return lines[:n]


@settings(max_examples=300, deadline=None)
@given(
    fee_cents=st.integers(0, 100_000),
    entries=st.integers(0, 300),
    percent=st.decimals(0, 100, places=2),
    table=payout_tables(),
    placings=standings(),
)
def test_payouts_add_up_to_the_pool(fee_cents, entries, percent, table, placings):
    pool = prize_pool(fee=D(fee_cents) / 100, entries=entries, return_percent=percent)
    assert pool <= D(fee_cents) / 100 * entries
    paid = payouts(pool, table, placings)
    if not placings:
        assert paid == {}
        return
    rank = {e: r for r, e in placings}
    sizes = [sum(1 for e in paid if rank[e] == r) for r in {rank[e] for e in paid}]
    if 1 in sizes:
        assert sum(paid.values()) == pool
    else:  # every paid place shared: what cannot be shared equally stays unpaid
        assert D(0) <= pool - sum(paid.values()) < D("0.01") * min(sizes)
    assert all(amount >= 0 and amount == amount.quantize(D("0.01")) for amount in paid.values())
    # Players who share a place are paid the same, to the cent.
    for a in paid:
        for b in paid:
            if rank[a] == rank[b]:
                assert paid[a] == paid[b]
    # A better rank never gets less (beyond the few cents a leftover can add).
    for a in paid:
        for b in paid:
            if rank[a] < rank[b]:
                assert paid[a] + D("0.01") * len(paid) >= paid[b]
    # Only players whose rank starts within the paid places are paid.
    assert all(rank[e] <= len(table) for e in paid)
