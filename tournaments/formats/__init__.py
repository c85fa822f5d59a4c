"""Tournament formats as pure pairing generators: no database, no Django.

Pick one from the registry, give it the seeds, feed back results, get pairings and standings::

    from tournaments.formats import TournamentState, Result, get_format, seed_order

    fmt = get_format("double_elimination", bracket_reset=True)
    seeds = seed_order(entry_ids, "random", rng_seed=recorded_seed)
    pairings = fmt.start(seeds)                       # store one row per pairing
    state = TournamentState(seeds, pairings, results=[])
    for pairing in fmt.next_pairings(state):          # both players known, no result yet
        ...start a match for pairing.slot (pairing.a v pairing.b)...
    state = state.with_result(Result("W1-1", winner=7, loser=12))

See :class:`tournaments.formats.base.Format` for the contract every format keeps.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from tournaments.formats.base import (
    BYE,
    Bracket,
    Bye,
    EntrantId,
    Format,
    InternalPairingError,
    Option,
    Outcome,
    Pairing,
    PairingError,
    Placing,
    Result,
    Side,
    SlotRef,
    Standing,
    TournamentState,
    gettext_noop,
    parse_side,
    rerank,
    side_notation,
)
from tournaments.formats.consolation import ProgressiveConsolation
from tournaments.formats.double_elimination import DoubleElimination
from tournaments.formats.elimination import SingleElimination
from tournaments.formats.round_robin import RoundRobin
from tournaments.formats.seeding import bracket_positions, next_power_of_two, seed_order
from tournaments.formats.swiss import Swiss, swiss_pairs
from tournaments.formats.swiss_cut import SwissCut

FORMATS: Mapping[str, type[Format]] = MappingProxyType(
    {
        fmt.name: fmt
        for fmt in (SingleElimination, DoubleElimination, ProgressiveConsolation, Swiss, SwissCut,
                    RoundRobin)
    }
)


def get_format(name: str, /, **options: object) -> Format:
    """The format registered as ``name``, with ``options`` checked.

    Raises :class:`PairingError` for an unknown format or an unknown, missing or ill-typed
    option.
    """
    try:
        fmt = FORMATS[name]
    except KeyError:
        raise PairingError(
            gettext_noop("Unknown tournament format %(name)r (use %(names)s)."),
            code="unknown_format",
        name=name, names=', '.join(FORMATS)) from None
    return fmt(**options)


__all__ = [
    "BYE",
    "FORMATS",
    "Bracket",
    "Bye",
    "DoubleElimination",
    "EntrantId",
    "Format",
    "InternalPairingError",
    "Option",
    "Outcome",
    "Pairing",
    "PairingError",
    "Placing",
    "ProgressiveConsolation",
    "Result",
    "RoundRobin",
    "SingleElimination",
    "Side",
    "SlotRef",
    "Standing",
    "Swiss",
    "SwissCut",
    "TournamentState",
    "bracket_positions",
    "get_format",
    "next_power_of_two",
    "parse_side",
    "rerank",
    "seed_order",
    "side_notation",
    "swiss_pairs",
]
