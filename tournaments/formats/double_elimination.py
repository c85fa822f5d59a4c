"""Double elimination: out after two losses. The winners' bracket is single elimination's
(see :mod:`tournaments.formats.elimination` for byes and double forfeits); its losers drop into
a losers' bracket laid out by :func:`drop_bracket`."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from types import MappingProxyType

from tournaments.formats.base import (
    Bracket,
    EntrantId,
    Option,
    Pairing,
    Side,
    SlotRef,
    TournamentState,
)
from tournaments.formats.elimination import (
    EliminationFormat,
    Resolution,
    knockout,
    without_dead_byes,
)
from tournaments.formats.seeding import next_power_of_two


class DoubleElimination(EliminationFormat):
    """Double elimination: out after two losses.

    Winners' bracket ``W{round}-{n}`` (byes to the top seeds, as in single elimination); its
    losers drop into the losers' bracket ``L{round}-{n}``: losers of winners' round 1 meet each
    other in losers' round 1, and the losers of winners' round r + 1 drop into losers' round
    2r against the survivors. Each drop is placed so that nobody drops onto a survivor from
    their own part of the draw (someone they may have beaten in the winners' bracket): the
    standard reversed order where it works, else halves swapped or a rotation, chosen when the
    bracket is built. Only the last two drops (into the losers' semi-final and final), where
    every survivor comes from both halves of the draw, can give such a rematch. Then the
    grand final ``GF`` (:attr:`Bracket.FINAL`): winners' champion v losers' champion.

    Option ``bracket_reset`` (default True): if the losers' champion wins ``GF``, both players
    have one loss and ``GF2`` (the same two) decides. Everyone knocked out then has exactly two
    losses and the champion is the only entrant with fewer. With ``bracket_reset=False`` ``GF``
    is final: if the losers' champion wins it, the champion has one loss and the runner-up
    (the winners' champion) goes out after only one; everybody else still has two.
    """

    name = "double_elimination"
    label = "Double elimination"
    option_specs = MappingProxyType(
        {
            "bracket_reset": Option(
                bool,
                "a second grand final if the losers' bracket champion wins the first",
                default=True,
            )
        }
    )

    def _build_layout(self, seeds: tuple[EntrantId, ...]) -> list[Pairing]:
        winners = knockout(seeds, "W", Bracket.WINNERS)
        size = next_power_of_two(len(seeds))
        rounds = size.bit_length() - 1
        losers, survivors = drop_bracket(size, "W", "L", Bracket.LOSERS, entry_rounds=rounds)
        (losers_champion,) = survivors
        winners_champion = SlotRef.winner_of(f"W{rounds}-1")
        final = [Pairing("GF", 1, Bracket.FINAL, winners_champion, losers_champion)]
        if self.options["bracket_reset"]:
            # Played only if the losers' champion wins GF: then GF's loser is the winners'
            # champion, on side a as in GF.
            final.append(
                Pairing("GF2", 2, Bracket.FINAL, SlotRef.loser_of("GF"), SlotRef.winner_of("GF"))
            )
        return without_dead_byes(
            winners + losers + final, keep_byes=lambda pairing: pairing.bracket is Bracket.WINNERS
        )

    def _skipped(self, pairing: Pairing, res: Resolution, by_slot: Mapping[str, Pairing]) -> bool:
        if pairing.slot != "GF2":
            return False
        grand_final = res.decided.get("GF")
        return grand_final is not None and grand_final.winner == by_slot["GF"].a

    def _elimination_stage(self, pairing: Pairing, res: Resolution) -> int | None:
        if pairing.bracket is Bracket.LOSERS:
            return pairing.round
        if pairing.bracket is Bracket.FINAL:
            goes_on = (
                pairing.slot == "GF"
                and "GF2" not in res.skipped
                and bool(self.options["bracket_reset"])
            )
            # Later than any losers' round (a bracket of 2**k places has 2k - 2 of them).
            return None if goes_on else 1000 + pairing.round
        return None

    def champion(self, state: TournamentState) -> EntrantId | None:
        res = self._resolve(state)
        for slot in ("GF2", "GF"):
            decided = res.decided.get(slot)
            if decided is not None:
                if slot == "GF" and self.options["bracket_reset"] and "GF2" not in res.skipped:
                    return None  # the losers' champion won GF: GF2 decides
                # Nobody (BYE) when the final was a double forfeit.
                return decided.winner if isinstance(decided.winner, int) else None
        return None


def drop_bracket(
    size: int, main_prefix: str, prefix: str, bracket: Bracket, *, entry_rounds: int
) -> tuple[list[Pairing], list[Side]]:
    """A bracket the losers of a knockout of ``size`` places drop into, and its champion.

    The losers of the knockout's round 1 (slots ``{main_prefix}1-{n}``) meet each other in
    round 1 (slots ``{prefix}1-{n}``); the losers of knockout round r + 1, for r + 1 up to
    ``entry_rounds``, drop into round 2r against the survivors; between drops the survivors
    play each other; after the last drop they play down to one. Each drop is placed so that
    nobody drops onto a survivor from their own part of the draw (see :func:`_drop_order`).
    With ``entry_rounds`` the knockout's number of rounds this is double elimination's
    losers' bracket. Returns the pairings in dependency order and the survivors: one side,
    the winner of the last slot (``size`` >= 4).
    """
    rounds = size.bit_length() - 1
    pairings: list[Pairing] = []
    survivors: list[Side] = [
        SlotRef.loser_of(f"{main_prefix}1-{index}") for index in range(1, size // 2 + 1)
    ]
    # Where in the draw each survivor's part of the bracket comes from, as indices of
    # first-round matches: a dropping player can only have met players from there.
    origins: list[frozenset[int]] = [frozenset({index}) for index in range(size // 2)]
    round_number = 0
    for drop in range(rounds):
        if 0 < drop < entry_rounds:
            # Losers of knockout round drop + 1 come down against the survivors.
            width = 1 << drop  # first-round matches under one knockout round drop+1 match
            regions = [
                frozenset(range(start, start + width)) for start in range(0, size // 2, width)
            ]
            order = _drop_order(origins, regions)
            dropping: list[Side] = [
                SlotRef.loser_of(f"{main_prefix}{drop + 1}-{index + 1}") for index in order
            ]
            survivors = _meet(
                pairings, prefix, bracket, round_number := round_number + 1, survivors, dropping
            )
            origins = [
                origin | regions[index] for origin, index in zip(origins, order, strict=True)
            ]
        if len(survivors) > 1:
            # Survivors play each other (round 1 is the knockout's round-1 losers).
            survivors = _meet(
                pairings,
                prefix,
                bracket,
                round_number := round_number + 1,
                survivors[0::2],
                survivors[1::2],
            )
            origins = [a | b for a, b in zip(origins[0::2], origins[1::2], strict=True)]
    return pairings, survivors


def _meet(
    out: list[Pairing],
    prefix: str,
    bracket: Bracket,
    round_number: int,
    top: Sequence[Side],
    bottom: Sequence[Side],
) -> list[Side]:
    """Append round ``round_number`` of ``bracket`` (top[i] v bottom[i]); its winners."""
    winners: list[Side] = []
    for index, (a, b) in enumerate(zip(top, bottom, strict=True), start=1):
        slot = f"{prefix}{round_number}-{index}"
        out.append(Pairing(slot, round_number, bracket, a, b))
        winners.append(SlotRef.winner_of(slot))
    return winners


def _drop_order(origins: Sequence[frozenset[int]], regions: Sequence[frozenset[int]]) -> list[int]:
    """Which winners' match's loser drops against each survivor (indices into ``regions``).

    The usual layouts first: reversed (the standard first drop), then halves swapped, then
    every rotation of either; the first that sends nobody against a survivor from their own
    part of the draw (no possible rematch of a winners' bracket match), else the one with the
    fewest such meetings. Deterministic: the layout depends on the field size alone.
    """
    count = len(regions)
    straight = list(range(count))
    reverse = straight[::-1]
    candidates = [reverse, straight[count // 2 :] + straight[: count // 2]]
    candidates += [base[k:] + base[:k] for base in (reverse, straight) for k in range(count)]

    def clashes(order: list[int]) -> int:
        return sum(
            1 for origin, index in zip(origins, order, strict=True) if origin & regions[index]
        )

    for order in candidates:
        if clashes(order) == 0:
            return order
    return min(candidates, key=clashes)
