"""Single and double elimination: a bracket fixed at the start, filled in by results.

The whole bracket is a pure function of the seeds and the options (:meth:`start` returns it).
Sides not known yet are :class:`SlotRef` values ("winner of W1-3"); :meth:`next_pairings`
returns each slot with its players once both are known.

Byes: the bracket has the next power of two of places. The places beyond the field are byes and
go to the top seeds, all in the first round of the main (winners') bracket, as explicit
pairings against :data:`BYE`. A bye pairing is decided the moment it exists: its entrant goes
through, with no match and no :class:`Result` (a result for it is a :class:`PairingError`);
the manager just records it as a bye. A bye is not a win and its "loser" is nobody: where a
loser of a bye slot would drop into a losers' or consolation bracket, nobody drops, and the
player who would have met them enters one round later (that pairing is left out of the layout,
so those brackets contain no byes; some slot numbers are then absent).

A double forfeit (:meth:`Result.double_forfeit`, both players absent) knocks both out and
sends nobody on: the next opponent has a bye (and where both sides of a later slot are
nobody, that slot is void). Withdrawn players stay in the draw; the manager forfeits their
matches.
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Callable, Iterable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field, replace
from functools import lru_cache
from types import MappingProxyType
from typing import ClassVar

from tournaments.formats.base import (
    BYE,
    Bracket,
    Bye,
    EntrantId,
    Format,
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
    check_result_fits,
    check_seeds,
    gettext_noop,
    index_results,
    rerank,
)
from tournaments.formats.seeding import bracket_positions, next_power_of_two


@dataclass(frozen=True, slots=True)
class _Decided:
    winner: EntrantId | Bye  # BYE: nobody goes through (a double forfeit, a void slot)
    loser: EntrantId | Bye
    played: bool
    both_out: tuple[EntrantId, ...] = ()  # a double forfeit's two players


@dataclass
class Resolution:
    """The bracket with every side filled in that the results allow."""

    pairings: list[Pairing]
    results: dict[str, Result]
    decided: dict[str, _Decided] = field(default_factory=dict)
    skipped: set[str] = field(default_factory=set)


def knockout(entries: Sequence[Side], prefix: str, bracket: Bracket) -> list[Pairing]:
    """A single-elimination tree over ``entries`` (best first), slots ``{prefix}{round}-{n}``.

    Entries take the standard bracket positions; the places beyond ``len(entries)`` are byes,
    so the byes meet the top entries. Needs at least two entries.
    """
    size = next_power_of_two(len(entries))
    current: list[Side] = [
        entries[seed - 1] if seed <= len(entries) else BYE for seed in bracket_positions(size)
    ]
    pairings: list[Pairing] = []
    round_number = 0
    while len(current) > 1:
        round_number += 1
        advancing: list[Side] = []
        for index in range(len(current) // 2):
            slot = f"{prefix}{round_number}-{index + 1}"
            pairings.append(
                Pairing(slot, round_number, bracket, current[2 * index], current[2 * index + 1])
            )
            advancing.append(SlotRef.winner_of(slot))
        current = advancing
    return pairings


def without_dead_byes(
    pairings: Iterable[Pairing], keep_byes: Callable[[Pairing], bool]
) -> list[Pairing]:
    """Leave out every bye pairing ``keep_byes`` does not keep, wiring its one player (or its
    nobody) straight into the slot it fed. The loser of a kept bye is nobody (:data:`BYE`).

    ``pairings`` must come in dependency order (every slot after the slots it refers to).
    """
    alias: dict[SlotRef, Side] = {}
    kept: list[Pairing] = []
    for pairing in pairings:
        a = alias.get(pairing.a, pairing.a) if isinstance(pairing.a, SlotRef) else pairing.a
        b = alias.get(pairing.b, pairing.b) if isinstance(pairing.b, SlotRef) else pairing.b
        pairing = replace(pairing, a=a, b=b)
        has_bye = isinstance(a, Bye) or isinstance(b, Bye)
        if not has_bye:
            kept.append(pairing)
        elif keep_byes(pairing) and not (isinstance(a, Bye) and isinstance(b, Bye)):
            kept.append(pairing)
            alias[SlotRef.loser_of(pairing.slot)] = BYE
        else:
            alias[SlotRef.winner_of(pairing.slot)] = b if isinstance(a, Bye) else a
            alias[SlotRef.loser_of(pairing.slot)] = BYE
    return kept


class EliminationFormat(Format):
    """What single and double elimination share: a fixed layout, resolved from the results."""

    requires_prev_results = False
    # The brackets whose matches count in the standings.
    ranked_brackets: ClassVar[frozenset[Bracket]] = frozenset(Bracket)

    def _layout(self, seeds: tuple[EntrantId, ...]) -> tuple[Pairing, ...]:
        return _cached_layout(type(self), tuple(sorted(self.options.items())), seeds)

    @abstractmethod
    def _build_layout(self, seeds: tuple[EntrantId, ...]) -> list[Pairing]:
        """Every slot, in dependency order (a slot after the slots its sides refer to)."""

    def _skipped(self, pairing: Pairing, res: Resolution, by_slot: Mapping[str, Pairing]) -> bool:
        """True for a conditional slot the results have made unnecessary (a bracket reset)."""
        return False

    @abstractmethod
    def _elimination_stage(self, pairing: Pairing, res: Resolution) -> int | None:
        """How far the loser of the decided ``pairing`` got if it knocks them out, else None.
        Later stages are better places."""

    def start(self, seeds: Sequence[EntrantId]) -> list[Pairing]:
        return list(self._layout(check_seeds(seeds)))

    def _resolve(self, state: TournamentState) -> Resolution:
        layout = self._layout(check_seeds(state.seeds))
        layout_slots = {pairing.slot for pairing in layout}
        for stored in state.pairings:
            if stored.slot not in layout_slots:
                raise PairingError(
                    gettext_noop("Pairing %(slot)s does not belong to this "
                                 "bracket."), code="unknown_slot"
                , slot=stored.slot)
        results = index_results(state.results, layout_slots)
        res = Resolution(pairings=[], results=results)
        by_slot: dict[str, Pairing] = {}

        def fill(side: Side) -> Side:
            if not isinstance(side, SlotRef):
                return side
            decided = res.decided.get(side.slot)
            if decided is None:
                return side
            return decided.winner if side.outcome is Outcome.WINNER else decided.loser

        for pairing in layout:
            pairing = replace(pairing, a=fill(pairing.a), b=fill(pairing.b))
            result = results.get(pairing.slot)
            skipped = self._skipped(pairing, res, by_slot)
            if skipped:
                if result is not None:
                    raise PairingError(
                        gettext_noop("%(slot)s is not played in this "
                                     "tournament."), code="slot_not_played"
                    , slot=pairing.slot)
                res.skipped.add(pairing.slot)
                pairing = replace(pairing, a=BYE, b=BYE)  # void: shown as not played
            res.pairings.append(pairing)
            by_slot[pairing.slot] = pairing
            if skipped:
                continue
            if result is not None:
                check_result_fits(pairing, result)
                if result.both_lose:
                    both = (result.winner, result.loser)
                    res.decided[pairing.slot] = _Decided(BYE, BYE, played=True, both_out=both)
                else:
                    res.decided[pairing.slot] = _Decided(result.winner, result.loser, played=True)
            elif pairing.is_bye and pairing.is_known:
                entrant = pairing.b if isinstance(pairing.a, Bye) else pairing.a
                assert isinstance(entrant, int)
                res.decided[pairing.slot] = _Decided(entrant, BYE, played=False)
            elif pairing.is_void:
                # Nobody on either side (double forfeits fed it): nobody comes out of it.
                res.decided[pairing.slot] = _Decided(BYE, BYE, played=False)
        return res

    def resolved_pairings(self, state: TournamentState) -> list[Pairing]:
        """Every slot of the bracket, sides filled in where known; a conditional slot the
        results made unnecessary (``GF2``) is void, :data:`BYE` v :data:`BYE`."""
        return self._resolve(state).pairings

    def next_pairings(self, state: TournamentState) -> list[Pairing]:
        res = self._resolve(state)
        stored = set(state.pairings)
        ready: list[Pairing] = []
        for pairing in res.pairings:
            if pairing.slot in res.results or not pairing.is_known:
                continue
            if pairing.is_playable or pairing not in stored:
                ready.append(pairing)
        return ready

    def _winner_stage(self, pairing: Pairing, res: Resolution) -> int | None:
        """A stage the winner of the decided ``pairing`` reaches by winning it, when that
        ranks them above its loser though both are out (a third-place match)."""
        return None

    def flights(self) -> Mapping[Bracket, frozenset[Bracket]]:
        """Each flight (main, consolation, last chance) and the brackets it is made of."""
        return {Bracket.MAIN: self.ranked_brackets}

    def is_finished(self, state: TournamentState) -> bool:
        """Every slot decided or made unnecessary (a final may have no champion: a double
        forfeit)."""
        res = self._resolve(state)
        return all(p.slot in res.decided or p.slot in res.skipped for p in res.pairings)

    def standings(self, state: TournamentState) -> list[Standing]:
        """Placings: the champion, the runner-up, then everybody else by how far they got
        (a shared rank for those knocked out at the same stage); players still in share the
        best rank. Within a rank: more match wins first, then the better seed."""
        seeds = check_seeds(state.seeds)
        return self._ranked(seeds, self._resolve(state), self.ranked_brackets, seeds)

    def _ranked(
        self,
        seeds: tuple[EntrantId, ...],
        res: Resolution,
        brackets: frozenset[Bracket],
        entrants: Sequence[EntrantId],
    ) -> list[Standing]:
        """The standings of ``entrants`` counting the matches of ``brackets`` only."""
        wins = dict.fromkeys(entrants, 0)
        losses = dict.fromkeys(entrants, 0)
        byes = dict.fromkeys(entrants, 0)
        out_at: dict[EntrantId, int] = {}
        for pairing in res.pairings:
            decided = res.decided.get(pairing.slot)
            if decided is None or pairing.bracket not in brackets:
                continue
            if decided.both_out:
                stage = self._elimination_stage(pairing, res)
                for entrant in decided.both_out:
                    if entrant not in losses:
                        continue
                    losses[entrant] += 1
                    out_at[entrant] = stage if stage is not None else pairing.round
                continue
            if not decided.played:
                if isinstance(decided.winner, int):
                    byes[decided.winner] += 1
                continue
            assert isinstance(decided.winner, int)
            assert isinstance(decided.loser, int)
            wins[decided.winner] += 1
            losses[decided.loser] += 1
            stage = self._elimination_stage(pairing, res)
            if stage is not None:
                out_at[decided.loser] = stage
            stage = self._winner_stage(pairing, res)
            if stage is not None:
                out_at[decided.winner] = stage
        seed_of = {entrant: index + 1 for index, entrant in enumerate(seeds)}
        # Still in beats any stage of going out; a later stage beats an earlier one.
        place = {e: (e not in out_at, out_at.get(e, 0)) for e in entrants}
        ordered = sorted(entrants, key=lambda e: (place[e], wins[e], -seed_of[e]), reverse=True)
        standings: list[Standing] = []
        for position, entrant in enumerate(ordered):
            same_as_previous = position > 0 and place[ordered[position - 1]] == place[entrant]
            rank = standings[-1].rank if same_as_previous else position + 1
            standings.append(
                Standing(
                    rank=rank,
                    entrant=entrant,
                    seed=seed_of[entrant],
                    wins=wins[entrant],
                    losses=losses[entrant],
                    byes=byes[entrant],
                    tiebreaks=(("wins", wins[entrant]),),
                )
            )
        return standings

    def placings(
        self, state: TournamentState, unplaced: AbstractSet[EntrantId] = frozenset()
    ) -> list[Placing]:
        """Places 1 to 4 of every flight whose matches are all decided, flight by flight
        (main, consolation, last chance). Within a flight, players are placed by how far
        they got in it: the final's winner 1st and loser 2nd, then the third-place match if
        one is played, else both semi-final losers share 3rd (double elimination: the
        losers' final loser is 3rd and the losers' semi-final loser 4th). ``unplaced``
        entrants get no place and the places below move up."""
        seeds = check_seeds(state.seeds)
        res = self._resolve(state)
        placings: list[Placing] = []
        for flight, brackets in self.flights().items():
            pairings = [p for p in res.pairings if p.bracket in brackets]
            if not pairings or not all(
                p.slot in res.decided or p.slot in res.skipped for p in pairings
            ):
                continue
            if flight is Bracket.MAIN:
                entrants: Sequence[EntrantId] = seeds
            else:
                entrants = list(dict.fromkeys(e for p in pairings for e in p.entrants))
            placings += [
                Placing(flight, line.rank, line.entrant)
                for line in rerank(self._ranked(seeds, res, brackets, entrants), unplaced)
                if line.rank <= 4
            ]
        return placings


@lru_cache(maxsize=64)
def _cached_layout(
    cls: type[EliminationFormat],
    options: tuple[tuple[str, object], ...],
    seeds: tuple[EntrantId, ...],
) -> tuple[Pairing, ...]:
    # The layout depends on nothing else; a manager asks for it after every result.
    fmt = cls(**dict(options))
    return tuple(fmt._build_layout(seeds))


class SingleElimination(EliminationFormat):
    """Single elimination: lose once and you are out (of the main bracket).

    Slots ``M{round}-{n}`` in :attr:`Bracket.MAIN`; the final is ``M{rounds}-1``. Seeds take
    the standard places (1 v N, 2 v N-1, ...; 1 and 2 can meet only in the final) and the
    byes go to the top seeds.

    Option ``consolation`` (default False): the losers of real first-round matches (not of
    byes) play their own single-elimination bracket, slots ``C{round}-{n}`` in
    :attr:`Bracket.CONSOLATION`, seeded by the first-round match they lost (the closest match
    on paper first). With fewer than two such losers there is no consolation bracket. The
    tournament is finished when both brackets are; :meth:`consolation_champion` names the
    consolation winner. Standings (places, wins, losses) are for the main bracket.

    Option ``third_place`` (default False): the two semi-final losers play slot ``3P``
    (:attr:`Bracket.THIRD_PLACE`, numbered as the final's round, so played to the final's
    length) for 3rd and 4th place. Not played when a semi-final is a bye (three entrants).
    With four entrants and both options, round 1 is the semi-finals: its losers play for
    third place and there is no consolation.
    """

    name = "single_elimination"
    label = "Single elimination"
    ranked_brackets = frozenset({Bracket.MAIN, Bracket.THIRD_PLACE})
    # The main bracket's slot prefix and bracket (a Swiss's knockout stage uses its own).
    main_prefix: ClassVar[str] = "M"
    main_bracket: ClassVar[Bracket] = Bracket.MAIN
    option_specs = MappingProxyType(
        {
            "consolation": Option(
                bool, "a bracket for the losers of first-round matches", default=False
            ),
            "third_place": Option(
                bool, "a match for 3rd place between the semi-final losers", default=False
            ),
        }
    )

    def flights(self) -> Mapping[Bracket, frozenset[Bracket]]:
        return {
            Bracket.MAIN: self.ranked_brackets,
            Bracket.CONSOLATION: frozenset({Bracket.CONSOLATION}),
            Bracket.LAST_CHANCE: frozenset({Bracket.LAST_CHANCE}),
        }

    def _main_layout(self, seeds: tuple[EntrantId, ...]) -> list[Pairing]:
        """The main bracket and, with ``third_place``, its third-place match."""
        main = knockout(seeds, self.main_prefix, self.main_bracket)
        if not self.options["third_place"] or len(seeds) < 3:
            return main
        rounds = main[-1].round
        semis = [pairing.slot for pairing in main if pairing.round == rounds - 1]
        third = Pairing("3P", rounds, Bracket.THIRD_PLACE, *map(SlotRef.loser_of, semis))
        return without_dead_byes([*main, third],
                                 keep_byes=lambda p: p.bracket is self.main_bracket)

    def _build_layout(self, seeds: tuple[EntrantId, ...]) -> list[Pairing]:
        main = self._main_layout(seeds)
        if not self.options["consolation"]:
            return main
        seed_of = {entrant: index for index, entrant in enumerate(seeds)}
        first_round = [
            pairing
            for pairing in main
            if pairing.round == 1 and pairing.is_playable and pairing.bracket is Bracket.MAIN
        ]

        def closeness(pairing: Pairing) -> int:
            # The better seed of the match, worst first: its loser is the strongest on paper.
            assert isinstance(pairing.a, int) and isinstance(pairing.b, int)
            return -min(seed_of[pairing.a], seed_of[pairing.b])

        losers: list[Side] = [
            SlotRef.loser_of(pairing.slot) for pairing in sorted(first_round, key=closeness)
        ]
        if (
            len(losers) < 2
            or any(p.bracket is Bracket.THIRD_PLACE for p in main)
            and len([p for p in main if p.bracket is Bracket.MAIN]) <= 3
        ):
            return main  # with four players round 1 is the semi-finals: they play for 3rd
        consolation = knockout(losers, "C", Bracket.CONSOLATION)
        return main + without_dead_byes(
            consolation, keep_byes=lambda pairing: pairing.bracket is not Bracket.CONSOLATION
        )

    def _final_slot(self, seeds: tuple[EntrantId, ...], bracket: Bracket) -> str | None:
        finals = [p for p in self._layout(seeds) if p.bracket is bracket]
        return finals[-1].slot if finals else None

    def _elimination_stage(self, pairing: Pairing, res: Resolution) -> int | None:
        # Twice the round, so that the third-place match's winner fits between the
        # semi-final losers (2 * (final - 1)) and the runner-up (2 * final).
        if pairing.bracket is Bracket.THIRD_PLACE:
            return 2 * pairing.round - 2
        return 2 * pairing.round

    def _winner_stage(self, pairing: Pairing, res: Resolution) -> int | None:
        return 2 * pairing.round - 1 if pairing.bracket is Bracket.THIRD_PLACE else None

    def _bracket_champion(self, state: TournamentState, bracket: Bracket) -> EntrantId | None:
        final = self._final_slot(check_seeds(state.seeds), bracket)
        if final is None:
            return None
        decided = self._resolve(state).decided.get(final)
        return decided.winner if decided and isinstance(decided.winner, int) else None

    def champion(self, state: TournamentState) -> EntrantId | None:
        return self._bracket_champion(state, self.main_bracket)

    def consolation_champion(self, state: TournamentState) -> EntrantId | None:
        """The consolation winner once that bracket is done; None before, or if there is none."""
        return self._bracket_champion(state, Bracket.CONSOLATION)
