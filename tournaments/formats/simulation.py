"""Play a whole tournament with made-up results, driving a format exactly as the manager does.

For tests, benchmarks and trying a format out (``python -m tournaments.formats.simulation``).
"""

from __future__ import annotations

import argparse
import random
from collections.abc import Sequence
from dataclasses import dataclass

from tournaments.formats import FORMATS, get_format
from tournaments.formats.base import (
    EntrantId,
    Format,
    InternalPairingError,
    Pairing,
    Result,
    TournamentState,
)


@dataclass(frozen=True)
class Playthrough:
    """The final state and every list :meth:`Format.next_pairings` returned, in order."""

    state: TournamentState
    offered: tuple[tuple[Pairing, ...], ...]


def play_out(
    fmt: Format,
    seeds: Sequence[EntrantId],
    rng: random.Random,
    *,
    one_at_a_time: bool = False,
    with_points: bool = False,
    max_steps: int = 1_000_000,
) -> Playthrough:
    """Start ``fmt`` with ``seeds`` and play until it offers nothing more to play.

    Each step stores what :meth:`Format.next_pairings` returns (upsert by slot) and records
    random results: for every playable pairing at once, or (``one_at_a_time``) for one of them
    picked at random, the way matches finish in any order on a live server. ``with_points``
    adds match points to the results (winner 5..7, loser 0..4). Raises
    :class:`InternalPairingError` if the format never stops offering matches.
    """
    state = TournamentState(seeds, fmt.start(seeds))
    offered: list[tuple[Pairing, ...]] = []
    for _ in range(max_steps):
        ready = tuple(fmt.next_pairings(state))
        offered.append(ready)
        state = state.with_pairings(ready)
        playable = [pairing for pairing in ready if pairing.is_playable]
        if not playable:
            return Playthrough(state, tuple(offered))
        if one_at_a_time:
            playable = [rng.choice(playable)]
        results = [_random_result(pairing, rng, with_points) for pairing in playable]
        state = TournamentState(state.seeds, state.pairings, (*state.results, *results))
    raise InternalPairingError(f"{fmt!r} still offers matches after {max_steps} steps.")


def _random_result(pairing: Pairing, rng: random.Random, with_points: bool) -> Result:
    assert isinstance(pairing.a, int) and isinstance(pairing.b, int)
    winner, loser = (pairing.a, pairing.b) if rng.random() < 0.5 else (pairing.b, pairing.a)
    if not with_points:
        return Result(pairing.slot, winner, loser)
    return Result(pairing.slot, winner, loser, rng.randint(5, 7), rng.randint(0, 4))


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("format", choices=sorted(FORMATS))
    parser.add_argument("entrants", type=int)
    parser.add_argument("--option", action="append", default=[], metavar="NAME=VALUE")
    parser.add_argument("--seed", type=int, default=0, help="random seed for the results")
    args = parser.parse_args(argv)
    options: dict[str, object] = {}
    for item in args.option:
        key, _, value = item.partition("=")
        options[key] = {"true": True, "false": False}.get(value.lower(), None)
        if options[key] is None:
            options[key] = int(value)
    fmt = get_format(args.format, **options)
    run = play_out(fmt, list(range(1, args.entrants + 1)), random.Random(args.seed))
    for pairing in fmt.resolved_pairings(run.state):
        print(f"{pairing.slot:>6}  {pairing.a!r:>26} v {pairing.b!r}")
    print()
    for line in fmt.standings(run.state):
        print(f"{line.rank:>4}. #{line.entrant:<5} {line.wins}-{line.losses}  {line.tiebreaks}")
    print("champion:", fmt.champion(run.state))


if __name__ == "__main__":
    main()
