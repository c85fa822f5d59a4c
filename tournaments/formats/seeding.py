"""Seeding: putting entrants in order, best first, and placing seeds in a bracket."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping, Sequence
from typing import Literal, TypeAlias

from tournaments.formats.base import EntrantId, PairingError, gettext_noop, is_entrant

SeedMethod: TypeAlias = Literal["random", "rating", "manual"]
SEED_METHODS: tuple[SeedMethod, ...] = ("random", "rating", "manual")


def seed_order(
    entrants: Iterable[EntrantId],
    method: SeedMethod,
    *,
    ratings: Mapping[EntrantId, float] | None = None,
    manual: Sequence[EntrantId] | None = None,
    rng_seed: int | None = None,
) -> list[EntrantId]:
    """The entrants best seed first.

    - ``"random"``: a shuffle fixed by ``rng_seed`` alone. The manager draws ``rng_seed`` from
      server randomness and records it, so the draw can be replayed and checked. The order is
      by SHA-256 of ``"{rng_seed}:{entrant}"``: it depends neither on the order ``entrants``
      come in nor on Python's ``random`` module (whose streams may change between versions).
    - ``"rating"``: highest ``ratings[entrant]`` first; equal ratings by entrant id.
    - ``"manual"``: exactly ``manual``, which must list every entrant once.

    Raises :class:`PairingError` for an unknown method, a repeated entrant, or a missing
    ``rng_seed``, rating or manual entry.
    """
    pool = list(entrants)
    if any(not is_entrant(entrant) for entrant in pool):
        raise PairingError(gettext_noop("Entrants must be integer ids."), code="bad_entrant")
    if len(set(pool)) != len(pool):
        raise PairingError(gettext_noop("An entrant is listed twice."), code="duplicate_entrant")
    if method == "random":
        if rng_seed is None or not is_entrant(rng_seed):
            raise PairingError(
                gettext_noop("A random draw needs an integer seed value (rng_seed), recorded with "
                             "the draw."),
                code="missing_rng_seed",
            )
        return sorted(pool, key=lambda entrant: _draw_key(rng_seed, entrant))
    if method == "rating":
        if ratings is None:
            raise PairingError(gettext_noop("Seeding by rating needs the ratings."),
                               code="missing_ratings")
        unrated = [entrant for entrant in pool if entrant not in ratings]
        if unrated:
            raise PairingError(
                gettext_noop("No rating for entrant %(names)s."), code="missing_ratings"
            , names=', '.join(map(str, unrated)))
        return sorted(pool, key=lambda entrant: (-ratings[entrant], entrant))
    if method == "manual":
        if manual is None:
            raise PairingError(gettext_noop("Manual seeding needs the order."),
                               code="missing_manual_order")
        order = list(manual)
        if sorted(order) != sorted(pool):
            missing = sorted(set(pool) - set(order))
            extra = sorted(set(order) - set(pool))
            detail = "; ".join(
                part
                for part in (
                    f"missing {', '.join(map(str, missing))}" if missing else "",
                    f"not entered {', '.join(map(str, extra))}" if extra else "",
                    "someone twice" if not missing and not extra else "",
                )
                if part
            )
            raise PairingError(
                gettext_noop("The manual order must list every entrant once (%(detail)s)."),
                code="bad_manual_order",
            detail=detail)
        return order
    raise PairingError(
        gettext_noop("Unknown seeding method %(method)r (use %(names)s)."),
        code="unknown_seed_method",
    method=method, names=', '.join(SEED_METHODS))


def _draw_key(rng_seed: int, entrant: EntrantId) -> tuple[bytes, EntrantId]:
    return hashlib.sha256(f"{rng_seed}:{entrant}".encode()).digest(), entrant


def next_power_of_two(n: int) -> int:
    """The smallest power of two >= ``n`` (1 for ``n <= 1``)."""
    return 1 if n <= 1 else 1 << (n - 1).bit_length()


def bracket_positions(size: int) -> list[int]:
    """Seed numbers (1-based) top to bottom in a standard bracket of ``size`` (a power of two).

    Adjacent positions meet in round 1, seeds 1 and ``size`` first: ``[1, 8, 4, 5, 2, 7, 3, 6]``.
    Every first-round pair of seeds adds up to ``size + 1``, and seeds 1 and 2 can meet only in
    the final (1 and 4 or 2 and 3 in the semi-finals, and so on down).
    """
    if size < 1 or size & (size - 1):
        raise ValueError(f"bracket size must be a power of two, not {size}")
    positions = [1]
    while len(positions) < size:
        total = 2 * len(positions) + 1
        positions = [seed for top in positions for seed in (top, total - top)]
    return positions
