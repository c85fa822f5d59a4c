"""Round robin: everybody meets everybody (twice with ``double=True``), scheduled at the start.

The schedule is the circle method: seed 1 stays put while the others rotate one place a round,
so every pair meets exactly once in n - 1 rounds (n rounded up to even). An odd field adds
:data:`BYE`: each entrant sits out once per cycle, in a pairing against :data:`BYE` that needs
no result and is worth nothing (everyone gets the same number of byes, so a bye decides
nothing). The second cycle of a double round robin repeats the first with sides swapped.

Rounds are played in order: :meth:`RoundRobin.next_pairings` offers the earliest round that
still has matches to play.

A player who leaves (``TournamentState.withdrawn``: withdrawn, disqualified, absent without
notice) is paired no more, by this rule (the one many chess and backgammon round robins use):

- **Fewer than half of their games played** (forfeits do not count as played): their
  results are annulled, for them and for their opponents, and their remaining games are
  not played: each remaining opponent has a bye that round, worth nothing. They are listed
  last in the standings.
- **Half or more played**: their results stand, and each remaining game is lost by forfeit
  (the manager records the forfeit when the round comes).

A double forfeit (:meth:`Result.double_forfeit`) is a loss for both players.

Standings: wins, then head-to-head (wins against the others on the same number of wins), then
points difference (from the results' match points, where given), then seed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from collections.abc import Set as AbstractSet
from functools import lru_cache
from types import MappingProxyType

from tournaments.formats.base import (
    BYE,
    Bracket,
    Bye,
    EntrantId,
    Format,
    Option,
    Pairing,
    PairingError,
    Result,
    Side,
    Standing,
    TournamentState,
    check_result_fits,
    check_seeds,
    gettext_noop,
    index_results,
)


class RoundRobin(Format):
    """Round robin; option ``double`` (default False). Slots ``R{round}-{board}``."""

    name = "round_robin"
    label = "Round robin"
    requires_prev_results = False
    option_specs = MappingProxyType(
        {"double": Option(bool, "everybody meets everybody twice", default=False)}
    )

    def _schedule(self, seeds: tuple[EntrantId, ...]) -> tuple[Pairing, ...]:
        return _circle_schedule(seeds, bool(self.options["double"]))

    def start(self, seeds: Sequence[EntrantId]) -> list[Pairing]:
        return list(self._schedule(check_seeds(seeds)))

    def _checked(self, state: TournamentState) -> tuple[tuple[Pairing, ...], dict[str, Result]]:
        schedule = self._schedule(check_seeds(state.seeds))
        by_slot = {pairing.slot: pairing for pairing in schedule}
        for stored in state.pairings:
            if stored.slot not in by_slot:
                raise PairingError(
                    gettext_noop("Pairing %(slot)s does not belong to this round robin."),
                    code="unknown_slot",
                slot=stored.slot)
        results = index_results(state.results, by_slot)
        for slot, result in results.items():
            check_result_fits(by_slot[slot], result)
        return schedule, results

    def _resolved(
        self, state: TournamentState
    ) -> tuple[list[Pairing], dict[str, Result], frozenset[EntrantId]]:
        """The schedule with the games of annulled players taken out (their opponent has a
        bye), the results that count, and the annulled players."""
        schedule, results = self._checked(state)
        annulled = annulled_entrants(schedule, results, state.withdrawn)

        def side(entrant: Side) -> Side:
            return BYE if entrant in annulled else entrant

        pairings = [
            pairing
            if pairing.slot in results or not set(pairing.entrants) & annulled
            else _bye_last(pairing.slot, pairing.round, side(pairing.a), side(pairing.b))
            for pairing in schedule
        ]
        counted = {
            slot: result
            for slot, result in results.items()
            if result.winner not in annulled and result.loser not in annulled
        }
        return pairings, counted, annulled

    def resolved_pairings(self, state: TournamentState) -> list[Pairing]:
        return self._resolved(state)[0]

    def annulled_results(self, state: TournamentState) -> frozenset[str]:
        """The slots of the recorded results of players whose results are annulled."""
        _schedule, results = self._checked(state)
        return frozenset(results) - frozenset(self._resolved(state)[1])

    def next_pairings(self, state: TournamentState) -> list[Pairing]:
        schedule, _, _ = self._resolved(state)
        results = self._checked(state)[1]
        to_play = [p for p in schedule if p.is_playable and p.slot not in results]
        if not to_play:
            return []
        current = min(pairing.round for pairing in to_play)
        stored = set(state.pairings)
        unstored = [p for p in schedule if p.round == current and p.is_bye and p not in stored]
        return [p for p in to_play if p.round == current] + unstored

    def standings(self, state: TournamentState) -> list[Standing]:
        seeds = check_seeds(state.seeds)
        schedule, results, annulled = self._resolved(state)
        wins = dict.fromkeys(seeds, 0)
        losses = dict.fromkeys(seeds, 0)
        byes = dict.fromkeys(seeds, 0)
        points_difference = dict.fromkeys(seeds, 0)
        for pairing in schedule:
            if pairing.is_bye:
                for entrant in pairing.entrants:
                    byes[entrant] += 1
        for result in results.values():
            if result.both_lose:
                losses[result.winner] += 1
                losses[result.loser] += 1
                continue
            wins[result.winner] += 1
            losses[result.loser] += 1
            if result.winner_points is not None and result.loser_points is not None:
                margin = result.winner_points - result.loser_points
                points_difference[result.winner] += margin
                points_difference[result.loser] -= margin
        head_to_head = dict.fromkeys(seeds, 0)
        for result in results.values():
            if not result.both_lose and wins[result.winner] == wins[result.loser]:
                head_to_head[result.winner] += 1
        seed_of = {entrant: index for index, entrant in enumerate(seeds, start=1)}
        ordered = sorted(
            seeds,
            key=lambda e: (
                e in annulled,
                -wins[e],
                -head_to_head[e],
                -points_difference[e],
                seed_of[e],
            ),
        )
        return [
            Standing(
                rank=rank,
                entrant=entrant,
                seed=seed_of[entrant],
                wins=wins[entrant],
                losses=losses[entrant],
                byes=byes[entrant],
                tiebreaks=(
                    ("head_to_head", head_to_head[entrant]),
                    ("points_difference", points_difference[entrant]),
                ),
            )
            for rank, entrant in enumerate(ordered, start=1)
        ]

    def is_finished(self, state: TournamentState) -> bool:
        schedule, _, _ = self._resolved(state)
        results = self._checked(state)[1]
        return all(p.slot in results for p in schedule if p.is_playable)

    def champion(self, state: TournamentState) -> EntrantId | None:
        return self.standings(state)[0].entrant if self.is_finished(state) else None


def annulled_entrants(
    schedule: Sequence[Pairing], results: Mapping[str, Result], withdrawn: AbstractSet[EntrantId]
) -> frozenset[EntrantId]:
    """The withdrawn entrants who played fewer than half of their games (a forfeit is not a
    game played): their results are annulled."""
    annulled: set[EntrantId] = set()
    for entrant in withdrawn:
        games = [p for p in schedule if p.is_playable and entrant in p.entrants]
        played = sum(
            1 for p in games if p.slot in results and not results[p.slot].forfeit
        )
        if 2 * played < len(games):
            annulled.add(entrant)
    return frozenset(annulled)


def _bye_last(slot: str, round_number: int, a: Side, b: Side) -> Pairing:
    """A round-robin pairing with its bye (if any) on side b, as the schedule has them."""
    if isinstance(a, Bye) and not isinstance(b, Bye):
        a, b = b, a
    return Pairing(slot, round_number, Bracket.MAIN, a, b)


@lru_cache(maxsize=64)
def _circle_schedule(seeds: tuple[EntrantId, ...], double: bool) -> tuple[Pairing, ...]:
    entries: list[Side] = [*seeds, BYE] if len(seeds) % 2 else list(seeds)
    size = len(entries)
    fixed, rotating = entries[0], entries[1:]
    cycle: list[list[tuple[Side, Side]]] = []
    for round_index in range(size - 1):
        row = [fixed, *rotating]
        matches: list[tuple[Side, Side]] = []
        for i in range(size // 2):
            a, b = row[i], row[size - 1 - i]
            if i == 0 and round_index % 2:
                a, b = b, a  # seed 1 takes side b every other round
            matches.append((a, b))
        # Byes last, on side b, so boards 1.. are the matches.
        matches = [(b, a) if isinstance(a, Bye) else (a, b) for a, b in matches]
        matches.sort(key=lambda match: isinstance(match[1], Bye))
        cycle.append(matches)
        rotating = rotating[-1:] + rotating[:-1]
    rounds = cycle + (
        [
            [
                (b, a) if not isinstance(a, Bye) and not isinstance(b, Bye) else (a, b)
                for a, b in matches
            ]
            for matches in cycle
        ]
        if double
        else []
    )
    return tuple(
        Pairing(f"R{round_number}-{board}", round_number, Bracket.MAIN, a, b)
        for round_number, matches in enumerate(rounds, start=1)
        for board, (a, b) in enumerate(matches, start=1)
    )
