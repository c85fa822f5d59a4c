"""Progressive consolation, as ABT main events run it, with an optional Last Chance.

The main flight is a single-elimination bracket (slots ``M{round}-{n}``, byes to the top
seeds, an optional third-place match ``3P``). Losing in one of its early rounds is not the
end: the consolation (slots ``C{round}-{n}``) takes the losers of main rounds 1 to
``entry_rounds``, each at the matching stage, the way a double-elimination losers' bracket
does — main round-1 losers play each other in consolation round 1, main round-2 losers
drop into consolation round 2 against the survivors, main round-3 losers into round 4, and
so on; then the survivors play down to a consolation champion. A loser of a later main
round (or of the final) is out.

The Last Chance (option ``last_chance_rounds`` = N ≥ 1; slots ``LC{round}-{n}``,
:attr:`Bracket.LAST_CHANCE`) is entered by the stated rule: **every loser of consolation
rounds 1 to N** — players who lost in the main and then early in the consolation. They play
a single-elimination bracket, seeded in the order they went out (consolation round 1's
losers first, top of the draw first), so its first round sets early losers against later
ones. No bracket is made for fewer than two entrants.

Byes are those of the main bracket only (see :mod:`tournaments.formats.elimination`): the
loser of a bye is nobody, so the player who would have met them in the consolation enters
one round later, and the consolation and last chance contain no byes.

Standings are the main flight's (the main bracket and the third-place match);
:meth:`placings` gives places 1 to 4 of each flight as it finishes.
"""

from __future__ import annotations

from collections.abc import Mapping
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
from tournaments.formats.double_elimination import drop_bracket
from tournaments.formats.elimination import (
    SingleElimination,
    knockout,
    without_dead_byes,
)
from tournaments.formats.seeding import next_power_of_two


class ProgressiveConsolation(SingleElimination):
    """A single-elimination main flight, a progressive consolation, an optional Last Chance.

    Options: ``entry_rounds`` (default 2, at least 1): the losers of main rounds 1 to
    ``entry_rounds`` enter the consolation (never the final's loser: the value is capped at
    the main's rounds minus one). ``last_chance_rounds`` (default 0: none): the losers of
    consolation rounds 1 to N enter the Last Chance. ``third_place`` (default False): a
    third-place match in the main flight.
    """

    name = "progressive_consolation"
    label = "Progressive consolation"
    option_specs = MappingProxyType(
        {
            "entry_rounds": Option(
                int,
                "losers of main rounds 1 to this enter the consolation",
                default=2,
                minimum=1,
            ),
            "last_chance_rounds": Option(
                int,
                "losers of consolation rounds 1 to this enter the last chance (0: none)",
                default=0,
                minimum=0,
            ),
            "third_place": Option(
                bool,
                "a match for 3rd place between the main's semi-final losers",
                default=False,
            ),
        }
    )

    def _count(self, option: str) -> int:
        value = self.options[option]
        assert isinstance(value, int)
        return value

    def flights(self) -> Mapping[Bracket, frozenset[Bracket]]:
        return {
            Bracket.MAIN: self.ranked_brackets,
            Bracket.CONSOLATION: frozenset({Bracket.CONSOLATION}),
            Bracket.LAST_CHANCE: frozenset({Bracket.LAST_CHANCE}),
        }

    def _build_layout(self, seeds: tuple[EntrantId, ...]) -> list[Pairing]:
        main = self._main_layout(seeds)
        size = next_power_of_two(len(seeds))
        rounds = size.bit_length() - 1
        # Never the final's loser; with a third-place match, not the semi-finals' either.
        has_third_place = any(p.bracket is Bracket.THIRD_PLACE for p in main)
        entry_rounds = min(self._count("entry_rounds"), rounds - 1 - has_third_place)
        if entry_rounds < 1:
            return main  # two entrants: a final and nothing else
        consolation, _champion = drop_bracket(
            size, self.main_prefix, "C", Bracket.CONSOLATION, entry_rounds=entry_rounds
        )
        # Byes of the main leave nobody to drop: their consolation slots go.
        layout = without_dead_byes(
            main + consolation, keep_byes=lambda pairing: pairing.bracket is not Bracket.CONSOLATION
        )
        return layout + self._last_chance([p for p in layout if p.bracket is Bracket.CONSOLATION])

    def _last_chance(self, consolation: list[Pairing]) -> list[Pairing]:
        last_rounds = self._count("last_chance_rounds")
        entrants: list[Side] = [
            SlotRef.loser_of(pairing.slot)
            for pairing in sorted(consolation, key=lambda p: p.round)  # stable: top first
            if pairing.round <= last_rounds
        ]
        if len(entrants) < 2:
            return []
        return without_dead_byes(
            knockout(entrants, "LC", Bracket.LAST_CHANCE), keep_byes=lambda pairing: False
        )

    def last_chance_champion(self, state: TournamentState) -> EntrantId | None:
        """The last chance winner once that bracket is done; None before, or if there is
        none."""
        return self._bracket_champion(state, Bracket.LAST_CHANCE)
