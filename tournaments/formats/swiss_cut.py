"""A Swiss, then a single-elimination knockout of the top ``cut`` players.

The Swiss (:class:`~tournaments.formats.swiss.Swiss`, slots ``R{round}-{board}`` in
:attr:`Bracket.MAIN`) is played for ``rounds`` rounds. When its last round is complete, the
knockout (slots ``K{round}-{n}`` in :attr:`Bracket.KNOCKOUT`; ``3P`` with ``third_place``)
is drawn for the top ``cut`` players of the Swiss standings who are still in the event
(withdrawn, disqualified and absent players do not make the cut; the next ones do), seeded
by their Swiss rank: 1st v last, 2nd v second last, ... with byes to the top seeds when
``cut`` is not a power of two (see :mod:`tournaments.formats.elimination`). With fewer than
two players left, the Swiss winner is the champion.

The cut is made once: as soon as the knockout's first round is stored it is read back from
those pairings (a correction of a Swiss result later does not redraw it; a director who
wants it redrawn takes the knockout draw back and pairs it again).

**The consolation** (option ``consolation_rounds`` = N ≥ 1; default 0, none). The knockout
is then a :class:`~tournaments.formats.consolation.ProgressiveConsolation` main flight, as
ABT main events run it: the losers of knockout rounds 1 to N enter a consolation flight
(slots ``C{round}-{n}`` in :attr:`Bracket.CONSOLATION`) at the matching stage — knockout
round-1 losers play each other in consolation round 1, knockout round-2 losers drop into
consolation round 2 against the survivors, round-3 losers into round 4, and so on — and the
survivors play down to a consolation champion. N is capped, as there: never the final's
loser, nor the semi-finals' losers when they play for third place (so a cut of 8 with
``third_place`` takes only the quarter-final losers). The loser of a knockout bye is
nobody: whoever would have met them enters one round later. With a cut of 8 and N = 1: the
four quarter-final losers play two consolation semi-finals (``C1-1``, ``C1-2``) and a
consolation final (``C2-1``). There is no last chance flight in a Swiss cut. Consolation
round k waits for knockout round k's losers and is played alongside knockout round k + 1:
to its length, and released with it when rounds are paired by hand (the manager's
:meth:`tournaments.models.Tournament.round_sequence`).

Standings: the knockout's players first, by how far they got in its main flight (its
ranks), then everybody else by the Swiss standings. Wins, losses and byes count both
stages (the consolation's matches do not count: it is a flight of its own); the
tiebreaks are the Swiss's. :meth:`SwissCut.placings` gives places 1 to 4 of the main
flight (from these standings) and of the consolation, each once all its matches are decided.
"""

from __future__ import annotations

from collections.abc import Sequence
from collections.abc import Set as AbstractSet
from types import MappingProxyType
from typing import ClassVar

from tournaments.formats.base import (
    Bracket,
    Bye,
    EntrantId,
    Format,
    Option,
    Pairing,
    PairingError,
    Placing,
    Standing,
    TournamentState,
    check_seeds,
    gettext_noop,
    is_entrant,
)
from tournaments.formats.consolation import ProgressiveConsolation
from tournaments.formats.elimination import SingleElimination
from tournaments.formats.seeding import bracket_positions
from tournaments.formats.swiss import Swiss


class _Knockout(SingleElimination):
    """The final stage: single elimination in its own bracket and slots."""

    name = "swiss_cut_knockout"
    label = "Knockout"
    ranked_brackets = frozenset({Bracket.KNOCKOUT, Bracket.THIRD_PLACE})
    main_prefix: ClassVar[str] = "K"
    main_bracket: ClassVar[Bracket] = Bracket.KNOCKOUT


class _ConsolationKnockout(ProgressiveConsolation):
    """The final stage with a consolation: a progressive consolation whose main flight is
    the knockout (its own bracket and slots), without a last chance."""

    name = "swiss_cut_knockout_consolation"
    label = "Knockout with a consolation"
    ranked_brackets = frozenset({Bracket.KNOCKOUT, Bracket.THIRD_PLACE})
    main_prefix: ClassVar[str] = "K"
    main_bracket: ClassVar[Bracket] = Bracket.KNOCKOUT


class SwissCut(Format):
    """Swiss for ``rounds`` rounds, then a knockout of the top ``cut`` (at least 2);
    option ``third_place`` (default False) adds a match for 3rd place in the knockout;
    option ``consolation_rounds`` (default 0: none) lets the losers of knockout rounds 1 to
    that number play a consolation flight (see the module)."""

    name = "swiss_cut"
    label = "Swiss with a knockout cut"
    requires_prev_results = True
    option_specs = MappingProxyType({
        "rounds": Option(int, "how many Swiss rounds to play", minimum=1),
        "cut": Option(int, "how many players of the Swiss standings play the knockout",
                      minimum=2),
        "third_place": Option(bool, "a match for 3rd place between the knockout's "
                              "semi-final losers", default=False),
        "consolation_rounds": Option(int, "losers of knockout rounds 1 to this play a "
                                     "consolation flight (0: none)", default=0, minimum=0),
    })

    def _count(self, option: str) -> int:
        value = self.options[option]
        assert isinstance(value, int)
        return value

    @property
    def swiss(self) -> Swiss:
        return Swiss(rounds=self._count("rounds"))

    @property
    def knockout(self) -> SingleElimination:
        third_place = bool(self.options["third_place"])
        consolation_rounds = self._count("consolation_rounds")
        if consolation_rounds:
            return _ConsolationKnockout(entry_rounds=consolation_rounds, last_chance_rounds=0,
                                        third_place=third_place)
        return _Knockout(third_place=third_place)

    # -- the two stages' states ----------------------------------------------------------

    def _swiss_state(self, state: TournamentState) -> TournamentState:
        pairings = [p for p in state.pairings if p.bracket is Bracket.MAIN]
        slots = {p.slot for p in pairings}
        return TournamentState(state.seeds, pairings,
                               [r for r in state.results if r.slot in slots], state.withdrawn)

    def _cut(self, state: TournamentState) -> tuple[EntrantId, ...] | None:
        """The knockout's players, best seed first; None while the Swiss is being played."""
        stored = [p for p in state.pairings
                  if p.bracket is Bracket.KNOCKOUT and p.round == 1]
        if stored:
            return _seeds_from_first_round(stored)
        swiss_state = self._swiss_state(state)
        if not self.swiss.is_finished(swiss_state):
            return None
        still_in = [line.entrant for line in self.swiss.standings(swiss_state)
                    if line.entrant not in state.withdrawn]
        return tuple(still_in[: self._count("cut")])

    def _knockout_state(self, state: TournamentState,
                        cut: Sequence[EntrantId]) -> TournamentState:
        swiss_slots = {p.slot for p in state.pairings if p.bracket is Bracket.MAIN}
        return TournamentState(
            cut, [p for p in state.pairings if p.bracket is not Bracket.MAIN],
            [r for r in state.results if r.slot not in swiss_slots], state.withdrawn)

    def _stages(self, state: TournamentState
                ) -> tuple[TournamentState, TournamentState | None]:
        check_seeds(state.seeds)
        swiss_state = self._swiss_state(state)
        cut = self._cut(state)
        if cut is None or len(cut) < 2:
            stray = [p.slot for p in state.pairings if p.bracket is not Bracket.MAIN]
            if stray:
                raise PairingError(gettext_noop("%(stray)s is not a pairing of this Swiss."),
                                   code="bad_pairing", stray=stray[0])
            unknown = [r.slot for r in state.results
                       if r.slot not in {p.slot for p in swiss_state.pairings}]
            if unknown:
                raise PairingError(gettext_noop("There is no match %(unknown)s in this "
                                                "tournament."),
                                   code="unknown_slot", unknown=unknown[0])
            return swiss_state, None
        return swiss_state, self._knockout_state(state, cut)

    # -- the Format contract -----------------------------------------------------------

    def start(self, seeds: Sequence[EntrantId]) -> list[Pairing]:
        return self.swiss.start(seeds)

    def next_pairings(self, state: TournamentState) -> list[Pairing]:
        """The Swiss's pairings, then, once it is complete, the knockout's."""
        swiss_state, knockout_state = self._stages(state)
        if knockout_state is None:
            return self.swiss.next_pairings(swiss_state)
        return self.knockout.next_pairings(knockout_state)

    def resolved_pairings(self, state: TournamentState) -> list[Pairing]:
        swiss_state, knockout_state = self._stages(state)
        pairings = self.swiss.resolved_pairings(swiss_state)
        if knockout_state is not None:
            pairings += self.knockout.resolved_pairings(knockout_state)
        return pairings

    def is_finished(self, state: TournamentState) -> bool:
        swiss_state, knockout_state = self._stages(state)
        if knockout_state is None:
            return self.swiss.is_finished(swiss_state)
        return self.knockout.is_finished(knockout_state)

    def champion(self, state: TournamentState) -> EntrantId | None:
        swiss_state, knockout_state = self._stages(state)
        if knockout_state is None:
            return self.swiss.champion(swiss_state)
        return self.knockout.champion(knockout_state)

    def standings(self, state: TournamentState) -> list[Standing]:
        swiss_state, knockout_state = self._stages(state)
        swiss_lines = self.swiss.standings(swiss_state)
        if knockout_state is None:
            return swiss_lines
        by_entrant = {line.entrant: line for line in swiss_lines}
        knockout_lines = self.knockout.standings(knockout_state)
        lines = [
            Standing(rank=line.rank, entrant=line.entrant,
                     seed=by_entrant[line.entrant].seed,
                     wins=by_entrant[line.entrant].wins + line.wins,
                     losses=by_entrant[line.entrant].losses + line.losses,
                     byes=by_entrant[line.entrant].byes + line.byes,
                     tiebreaks=by_entrant[line.entrant].tiebreaks)
            for line in knockout_lines
        ]
        in_cut = {line.entrant for line in knockout_lines}
        rest = [line for line in swiss_lines if line.entrant not in in_cut]
        lines += [
            Standing(rank=len(in_cut) + index, entrant=line.entrant, seed=line.seed,
                     wins=line.wins, losses=line.losses, byes=line.byes,
                     tiebreaks=line.tiebreaks)
            for index, line in enumerate(rest, start=1)
        ]
        return lines


    def placings(self, state: TournamentState,
                 unplaced: AbstractSet[EntrantId] = frozenset()) -> list[Placing]:
        """The main flight's places 1 to 4 from the standings once the event is finished
        (:meth:`Format.placings`), and the consolation's, as the knockout settles them, once
        its matches are all decided."""
        placings = super().placings(state, unplaced)
        _swiss_state, knockout_state = self._stages(state)
        if knockout_state is None:
            return placings
        return placings + [line for line in self.knockout.placings(knockout_state, unplaced)
                           if line.flight is not Bracket.MAIN]


def _seeds_from_first_round(first_round: Sequence[Pairing]) -> tuple[EntrantId, ...]:
    """The knockout's seeds as its stored first round places them (the inverse of
    :func:`tournaments.formats.elimination.knockout`'s standard positions)."""
    size = 2 * len(first_round)
    positions = bracket_positions(size)
    by_seed: dict[int, EntrantId] = {}
    for pairing in first_round:
        _, _, number = pairing.slot.rpartition("-")
        if not number.isdigit() or not 1 <= int(number) <= len(first_round):
            raise PairingError(gettext_noop("%(slot)s is not a knockout slot."), code="bad_pairing",
                               slot=pairing.slot)
        index = 2 * (int(number) - 1)
        for offset, side in enumerate((pairing.a, pairing.b)):
            if is_entrant(side):
                assert isinstance(side, int)
                by_seed[positions[index + offset]] = side
            elif not isinstance(side, Bye):
                raise PairingError(gettext_noop("%(slot)s is not a first-round knockout pairing."),
                                   code="bad_pairing", slot=pairing.slot)
    seeds = tuple(by_seed[seed] for seed in sorted(by_seed))
    if sorted(by_seed) != list(range(1, len(seeds) + 1)):
        raise PairingError(gettext_noop("The knockout's first round has a bye where a player "
                                        "should be."),
                           code="bad_pairing")
    return seeds
