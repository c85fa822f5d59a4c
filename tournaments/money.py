"""Money bookkeeping for an event: prize pools and payouts. Pure: no Django, no payments.

Tavla processes no payment; the treasurer takes the money and marks entries paid. This
module says how much is in a pool and who gets what from it::

    pool = prize_pool(fee=Decimal("20"), entries=16, return_percent=Decimal("80"))  # 256.00
    payouts(pool, PAYOUT_PRESETS["40/30/20/10"], [(1, 7), (2, 3), (3, 9), (3, 12)])
    # {7: 102.40, 3: 76.80, 9: 38.40, 12: 38.40}

**Rounding rule.** Amounts are in the currency's smallest unit (``unit``, cents by default).
The pool is ``fee × entries × return %`` rounded *down* to the unit (the organiser keeps the
fraction). Each payout is its share of the pool rounded down to the unit. The units left
over are handed out place by place, best place first, one to *each* player of a place, and
only to a place whose players can all have one: players who share a place are always paid
the same. The hand-out goes round again while units are left and a place can take them.
With a place held by one player (first place almost always is) the payouts add up to the
pool exactly; only when every paid place is shared can a few units (fewer than the
smallest shared place has players) stay with the organiser.

**Shared places.** Players who share a rank share the places they cover: two players ranked
3rd with a 40/30/20/10 table split 20 % + 10 % and get 15 % each, to the cent.

**Flights.** An event may pay its consolation and last chance flights too: each takes its
percentage of the prize pool (rounded down to the unit) and the main flight the rest
(:func:`split_pool`); each flight is paid by its own table from its own places.

**Fewer players than paid places.** The percentages of places nobody reached are shared out
among the paid places in proportion to their own (with two players and 50/30/20, 62.5 % and
37.5 %): the whole pool is always paid out.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from decimal import ROUND_DOWN, Decimal
from fractions import Fraction
from types import MappingProxyType
from typing import Any, Final, TypeAlias

from tournaments.formats.base import gettext_noop

Recipient: TypeAlias = int
"""Whoever is paid: the manager uses entry ids."""

CENT: Final = Decimal("0.01")

PAYOUT_PRESETS: Final[Mapping[str, tuple[Decimal, ...]]] = MappingProxyType(
    {
        "100": (Decimal(100),),
        "70/30": (Decimal(70), Decimal(30)),
        "50/30/20": (Decimal(50), Decimal(30), Decimal(20)),
        "40/30/20/10": (Decimal(40), Decimal(30), Decimal(20), Decimal(10)),
        "40/25/15/10/5/5": tuple(map(Decimal, (40, 25, 15, 10, 5, 5))),
    }
)


class MoneyError(ValueError):
    """A fee, percentage or payout table that cannot be used, with a message to show: a
    ``%``-template and its values, as :class:`~tournaments.formats.base.PairingError`'s."""

    def __init__(self, message: str, *, code: str = "bad_money", **params: Any) -> None:
        super().__init__(message % params)
        self.code = code
        self.template = message
        self.params = params


def check_amount(value: Decimal, *, name: str = "amount") -> Decimal:
    """``value`` if it is a finite, non-negative amount, else :class:`MoneyError`."""
    if not isinstance(value, Decimal) or not value.is_finite() or value < 0:
        raise MoneyError(gettext_noop("The %(name)s must be a non-negative amount, not %(value)r."),
                         name=name, value=value)
    return value


def check_percent(value: Decimal, *, name: str = "return percentage") -> Decimal:
    check_amount(value, name=name)
    if value > 100:
        raise MoneyError(gettext_noop("The %(name)s must be between 0 and 100, not %(value)s."),
                         name=name, value=value)
    return value


def parse_payout_table(text: str) -> tuple[Decimal, ...]:
    """A preset name or the director's own ``"45/30/25"``: percentages, best place first,
    each positive, in order (no place paid more than a better one), adding up to 100."""
    if text in PAYOUT_PRESETS:
        return PAYOUT_PRESETS[text]
    try:
        table = tuple(Decimal(part.strip()) for part in text.split("/") if part.strip())
    except ArithmeticError:
        raise MoneyError(gettext_noop("%(text)r is not a payout table like 50/30/20."),
                         code="bad_payout_table", text=text) from None
    check_payout_table(table)
    return table


def check_payout_table(table: Sequence[Decimal]) -> tuple[Decimal, ...]:
    table = tuple(table)
    if not table or any(not p.is_finite() or p <= 0 for p in table):
        raise MoneyError(gettext_noop("A payout table lists positive percentages, like 50/30/20."),
                         code="bad_payout_table")
    if any(later > better for better, later in zip(table, table[1:], strict=False)):
        raise MoneyError(gettext_noop("A place cannot be paid more than a better one."),
                         code="bad_payout_table")
    if sum(table) != 100:
        raise MoneyError(gettext_noop("The payout percentages add up to %(value)s, not 100."),
                         code="bad_payout_table", value=sum(table))
    return table


def prize_pool(*, fee: Decimal, entries: int, return_percent: Decimal,
               unit: Decimal = CENT) -> Decimal:
    """``fee × entries × return_percent / 100``, rounded down to ``unit``."""
    check_amount(fee, name="entry fee")
    check_percent(return_percent)
    if entries < 0:
        raise MoneyError(gettext_noop("The number of entries cannot be negative."))
    return (fee * entries * return_percent / 100).quantize(unit, rounding=ROUND_DOWN)


def payouts(pool: Decimal, table: Sequence[Decimal],
            placings: Sequence[tuple[int, Recipient]], *,
            unit: Decimal = CENT) -> dict[Recipient, Decimal]:
    """Who gets what of ``pool``: ``placings`` are ``(rank, recipient)``, best first, ranks
    shared by players the format could not separate (as standings give them).

    Everybody placed within the table's places gets a share (see the module's rules);
    the amounts add up to ``pool`` exactly whenever somebody is placed. Nobody placed: ``{}``.
    Raises :class:`MoneyError` for a bad table, a negative pool or a pool not in ``unit``s.
    """
    check_amount(pool, name="prize pool")
    table = check_payout_table(table)
    if pool != pool.quantize(unit):
        raise MoneyError(gettext_noop("The pool %(pool)s is not a whole number of %(unit)s."),
                         pool=pool, unit=unit)
    # Positions 0.. in the order given; a rank shared by k players covers k positions.
    groups: list[list[Recipient]] = []
    previous: int | None = None
    for rank, recipient in placings:
        if rank != previous:
            groups.append([])
            previous = rank
        groups[-1].append(recipient)
    shares: dict[Recipient, Fraction] = {}
    position = 0
    for group in groups:
        if position >= len(table):
            break
        covered = table[position : position + len(group)]
        for recipient in group:
            shares[recipient] = Fraction(sum(covered)) / len(group)
        position += len(group)
    total = sum(shares.values(), Fraction(0))
    if not shares or total == 0:
        return {}
    units = int(pool / unit)
    # Exact shares in units, rounded down; the units left over go place by place, best
    # first, one to each player of a place that can take one for each of its players.
    exact = {r: Fraction(units) * share / total for r, share in shares.items()}
    paid = {r: int(amount) for r, amount in exact.items()}  # int() of a Fraction floors
    leftover = units - sum(paid.values())
    paid_groups = [[r for r in group if r in shares] for group in groups]
    paid_groups = [group for group in paid_groups if group]
    while any(len(group) <= leftover for group in paid_groups):
        for group in paid_groups:
            if len(group) <= leftover:
                for recipient in group:
                    paid[recipient] += 1
                leftover -= len(group)
    return {r: (unit * count).quantize(unit) for r, count in paid.items()}


def split_pool(pool: Decimal, flights: Mapping[str, Decimal], *,
               unit: Decimal = CENT) -> dict[str, Decimal]:
    """Split ``pool`` between flights: each named flight gets its percentage rounded down to
    ``unit``, and ``"main"`` gets the rest (so the parts add up to the pool). Raises
    :class:`MoneyError` if the percentages are bad or add up to more than 100."""
    check_amount(pool, name="prize pool")
    for name, percent in flights.items():
        check_percent(percent, name=f"{name} share")
    if sum(flights.values(), Decimal(0)) > 100:
        raise MoneyError(gettext_noop("The flights' shares add up to more than 100 %%."),
                         code="bad_flight_shares")
    parts = {name: (pool * percent / 100).quantize(unit, rounding=ROUND_DOWN)
             for name, percent in flights.items() if name != "main"}
    return {"main": pool - sum(parts.values(), Decimal(0)), **parts}
