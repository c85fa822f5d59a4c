"""Swiss: a fixed number of rounds, each paired from the standings so far.

Pairing a round (:func:`swiss_pairs`):

1. Odd field: one bye, to the lowest-ranked player among those with the fewest byes so far
   (nobody gets a second bye while someone has none), skipping a player whose bye would force
   a rematch the others could avoid. A bye is a :class:`Pairing` against :data:`BYE` and counts
   as a win; it needs no :class:`Result`.
2. Everybody else is paired score group by score group, top down, within a group the top half
   against the bottom half in seed order (1 v n/2+1, 2 v n/2+2, ...; round 1 is one group:
   top half of the seeds against the bottom half). A player who cannot be paired in their group
   (odd group, or only rematches left) floats down to the top of the next group.
3. No rematch unless unavoidable: the round has as few rematches as any pairing of the field
   can have. Each choice is checked so that the players still to pair can make the rematch-free
   pairs the round needs: by Dirac's theorem when they are many (a set of m players where each
   has met fewer than m/2 - 1 of the others always can), by an exact maximum matching
   (:mod:`tournaments.formats.matching`) when they are few. The greedy walk never backtracks,
   so a round of 1,024 players takes milliseconds.

Withdrawn players (``TournamentState.withdrawn``: withdrawn, disqualified, absent without
notice) are paired no more, as FIDE's Swiss rules have it; the round is paired among the
others (with a bye if they are odd). Their results stand: they keep their place in the
standings with the wins they had, and their past opponents' Buchholz counts those wins. With
fewer than two players left, no further round is paired and the Swiss ends.

A double forfeit (:meth:`Result.double_forfeit`) is a loss for both players and a win for
neither; the two still count as having met (they are not paired together again).

Standings: wins (byes included), Buchholz (sum of opponents' wins), median Buchholz (the same
without the best and worst opponent, from three opponents on), Sonneborn-Berger (sum of the wins
of the opponents one beat), then seed.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator, Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from itertools import chain
from types import MappingProxyType

from tournaments.formats.base import (
    BYE,
    Bracket,
    Bye,
    EntrantId,
    Format,
    InternalPairingError,
    Option,
    Pairing,
    PairingError,
    Result,
    Standing,
    TournamentState,
    check_result_fits,
    check_seeds,
    gettext_noop,
    index_results,
    is_entrant,
)
from tournaments.formats.matching import matching_size


class Swiss(Format):
    """Swiss system; option ``rounds`` (required, at least 1). Slots ``R{round}-{board}``.

    More rounds than the field allows without rematches are accepted: rematches then happen,
    as few as possible.
    """

    name = "swiss"
    label = "Swiss"
    requires_prev_results = True
    option_specs = MappingProxyType({"rounds": Option(int, "how many rounds to play", minimum=1)})

    @property
    def rounds(self) -> int:
        rounds = self.options["rounds"]
        assert isinstance(rounds, int)
        return rounds

    def start(self, seeds: Sequence[EntrantId]) -> list[Pairing]:
        return self._pair_round(_SwissRecord.build(TournamentState(check_seeds(seeds))), 1)

    def next_pairings(self, state: TournamentState) -> list[Pairing]:
        """The current round's matches still without a result; once the round is complete,
        the next round (with its bye); nothing after the last round."""
        record = _SwissRecord.build(state)
        if record.last_round == 0:
            return self._pair_round(record, 1)
        pending = record.pending()
        if pending or self._over(record):
            return pending
        return self._pair_round(record, record.last_round + 1)

    def _over(self, record: _SwissRecord) -> bool:
        """No round left to pair: the last one is paired, or fewer than two players remain."""
        return record.last_round >= self.rounds or len(record.active()) < 2

    def resolved_pairings(self, state: TournamentState) -> list[Pairing]:
        return list(_SwissRecord.build(state).pairings)

    def _pair_round(self, record: _SwissRecord, round_number: int) -> list[Pairing]:
        if round_number > self.rounds or len(record.active()) < 2:
            return []
        active = set(record.active())
        pairs, bye = swiss_pairs(
            [e for e in record.ranked() if e in active],
            record.score,
            record.opponents_sets(),
            record.byes,
        )
        pairings = [
            Pairing(f"R{round_number}-{board}", round_number, Bracket.MAIN, a, b)
            for board, (a, b) in enumerate(pairs, start=1)
        ]
        if bye is not None:
            slot = f"R{round_number}-{len(pairs) + 1}"
            pairings.append(Pairing(slot, round_number, Bracket.MAIN, bye, BYE))
        return pairings

    def standings(self, state: TournamentState) -> list[Standing]:
        record = _SwissRecord.build(state)
        score = record.score
        lines: list[tuple[tuple[int, ...], Standing]] = []
        for seed, entrant in enumerate(record.seeds, start=1):
            opponent_scores = sorted(score[o] for o in record.opponents[entrant])
            buchholz = sum(opponent_scores)
            median = buchholz - (
                opponent_scores[0] + opponent_scores[-1] if len(opponent_scores) >= 3 else 0
            )
            sonneborn_berger = sum(score[o] for o in record.beaten[entrant])
            line = Standing(
                rank=0,
                entrant=entrant,
                seed=seed,
                wins=score[entrant],
                losses=record.losses[entrant],
                byes=record.byes[entrant],
                tiebreaks=(
                    ("buchholz", buchholz),
                    ("median_buchholz", median),
                    ("sonneborn_berger", sonneborn_berger),
                ),
            )
            lines.append(((-score[entrant], -buchholz, -median, -sonneborn_berger, seed), line))
        lines.sort(key=lambda item: item[0])
        return [
            Standing(
                rank=rank,
                entrant=line.entrant,
                seed=line.seed,
                wins=line.wins,
                losses=line.losses,
                byes=line.byes,
                tiebreaks=line.tiebreaks,
            )
            for rank, (_, line) in enumerate(lines, start=1)
        ]

    def is_finished(self, state: TournamentState) -> bool:
        record = _SwissRecord.build(state)
        return self._over(record) and not record.pending()

    def champion(self, state: TournamentState) -> EntrantId | None:
        return self.standings(state)[0].entrant if self.is_finished(state) else None


@dataclass
class _SwissRecord:
    """A Swiss tournament's pairings and results, checked, with each player's record."""

    seeds: tuple[EntrantId, ...]
    pairings: list[Pairing]
    results: dict[str, Result]
    withdrawn: frozenset[EntrantId] = frozenset()
    last_round: int = 0
    score: dict[EntrantId, int] = field(default_factory=dict)  # wins, byes included
    losses: dict[EntrantId, int] = field(default_factory=dict)
    byes: dict[EntrantId, int] = field(default_factory=dict)
    opponents: dict[EntrantId, list[EntrantId]] = field(default_factory=dict)
    beaten: dict[EntrantId, list[EntrantId]] = field(default_factory=dict)

    @classmethod
    def build(cls, state: TournamentState) -> _SwissRecord:
        seeds = check_seeds(state.seeds)
        entrants = set(seeds)
        by_slot: dict[str, Pairing] = {}
        rounds: dict[int, list[Pairing]] = {}
        for pairing in state.pairings:
            if pairing.slot in by_slot:
                raise PairingError(gettext_noop("Pairing %(slot)s is listed twice."),
                                   code="bad_pairing", slot=pairing.slot)
            sides_ok = all(
                isinstance(side, Bye) or (is_entrant(side) and side in entrants)
                for side in (pairing.a, pairing.b)
            )
            if not sides_ok or isinstance(pairing.a, Bye) or pairing.bracket != Bracket.MAIN:
                raise PairingError(
                    gettext_noop("Pairing %(slot)s is not a Swiss pairing of these entrants."),
                    code="bad_pairing",
                slot=pairing.slot)
            by_slot[pairing.slot] = pairing
            rounds.setdefault(pairing.round, []).append(pairing)
        last_round = max(rounds, default=0)
        if sorted(rounds) != list(range(1, last_round + 1)):
            raise PairingError(gettext_noop("Swiss rounds must be numbered 1, 2, 3, ..."),
                               code="bad_pairing")
        for round_number, round_pairings in rounds.items():
            # Everybody still in, once; a player out of the tournament then is missing.
            seated = [e for p in round_pairings for e in p.entrants]
            if len(seated) != len(set(seated)):
                raise PairingError(
                    gettext_noop("Round %(round_number)s seats an entrant "
                                 "twice."), code="bad_pairing"
                , round_number=round_number)
        results = index_results(state.results, by_slot)
        record = cls(
            seeds=seeds,
            pairings=sorted(by_slot.values(), key=lambda p: (p.round, _board(p.slot))),
            results=results,
            withdrawn=frozenset(state.withdrawn),
            last_round=last_round,
            score=dict.fromkeys(seeds, 0),
            losses=dict.fromkeys(seeds, 0),
            byes=dict.fromkeys(seeds, 0),
            opponents={entrant: [] for entrant in seeds},
            beaten={entrant: [] for entrant in seeds},
        )
        for pairing in record.pairings:
            if pairing.is_bye:
                assert isinstance(pairing.a, int)
                record.byes[pairing.a] += 1
                record.score[pairing.a] += 1
                if pairing.slot in results:
                    check_result_fits(pairing, results[pairing.slot])
                continue
            assert isinstance(pairing.a, int) and isinstance(pairing.b, int)
            record.opponents[pairing.a].append(pairing.b)
            record.opponents[pairing.b].append(pairing.a)
            result = results.get(pairing.slot)
            if result is None:
                if pairing.round < last_round:
                    raise PairingError(
                        gettext_noop("Round %(round)s is not finished (%(slot)s has no result) "
                                     "but round %(last_round)s is paired."),
                        code="bad_pairing",
                    round=pairing.round, slot=pairing.slot, last_round=last_round)
                continue
            check_result_fits(pairing, result)
            if result.both_lose:
                record.losses[result.winner] += 1
                record.losses[result.loser] += 1
                continue
            record.score[result.winner] += 1
            record.losses[result.loser] += 1
            record.beaten[result.winner].append(result.loser)
        return record

    def pending(self) -> list[Pairing]:
        return [
            pairing
            for pairing in self.pairings
            if pairing.round == self.last_round
            and pairing.is_playable
            and pairing.slot not in self.results
        ]

    def active(self) -> list[EntrantId]:
        """The entrants still to be paired, in seed order."""
        return [entrant for entrant in self.seeds if entrant not in self.withdrawn]

    def ranked(self) -> list[EntrantId]:
        """Pairing order: most wins first, then seed."""
        seed_of = {entrant: index for index, entrant in enumerate(self.seeds)}
        return sorted(self.seeds, key=lambda e: (-self.score[e], seed_of[e]))

    def opponents_sets(self) -> dict[EntrantId, frozenset[EntrantId]]:
        return {entrant: frozenset(opps) for entrant, opps in self.opponents.items()}


def _board(slot: str) -> int:
    _, _, board = slot.rpartition("-")
    return int(board) if board.isdigit() else 0


class _Matchable:
    """How many rematch-free pairs a set of players can make, cheaply when the set is large."""

    def __init__(self, played: Mapping[EntrantId, AbstractSet[EntrantId]]) -> None:
        self.played = played
        most_played = max((len(opponents) for opponents in played.values()), default=0)
        # Dirac: in m players who each met at most d of the others, every player can still meet
        # m - 1 - d >= m / 2 of them when m >= 2d + 2; then a Hamiltonian cycle exists, hence
        # a rematch-free pairing of all but (for odd m) one.
        self.dirac_from = 2 * most_played + 2

    def at_least(self, players: Collection[EntrantId], pairs: int) -> bool:
        if pairs <= 0:
            return True
        if len(players) >= self.dirac_from:
            return len(players) // 2 >= pairs
        if len(players) // 2 < pairs:
            return False
        return self.size(players) >= pairs

    def size(self, players: Collection[EntrantId]) -> int:
        if len(players) >= self.dirac_from:
            return len(players) // 2
        order = list(players)
        index = {player: i for i, player in enumerate(order)}
        adjacency = [[index[q] for q in order if q != p and q not in self.played[p]] for p in order]
        return matching_size(adjacency)


def swiss_pairs(
    ranked: Sequence[EntrantId],
    score: Mapping[EntrantId, int],
    played: Mapping[EntrantId, AbstractSet[EntrantId]],
    byes: Mapping[EntrantId, int],
) -> tuple[list[tuple[EntrantId, EntrantId]], EntrantId | None]:
    """Pair one Swiss round: ``(pairs, bye)``, each pair higher-ranked player first.

    ``ranked``: every player in pairing order (wins, then seed); ``score``: their wins (score
    groups are runs of equal score in ``ranked``); ``played``: each player's past opponents;
    ``byes``: how many byes each has had. See the module docstring for the rules. Raises
    :class:`InternalPairingError` if the pairing walk fails (a bug: it cannot).
    """
    matchable = _Matchable(played)
    players = list(ranked)
    bye: EntrantId | None = None
    if len(players) % 2:
        bye = _choose_bye(players, byes, matchable)
        players.remove(bye)
    remaining = set(players)
    # Rematch-free pairs the round must contain: as many as the field allows. Every choice
    # keeps the players still to pair able to make the rest of them.
    need = matchable.size(players)
    pairs: list[tuple[EntrantId, EntrantId]] = []
    # The same within a score group, so that a careless pair at the top of a group does not
    # float two players down who could have met each other.
    group_left: set[EntrantId] = set()
    group_need = 0

    def keeps(pool: set[EntrantId], pool_need: int, p: EntrantId, c: EntrantId) -> bool:
        """Can ``pool`` without ``p`` and ``c`` still make ``pool_need`` rematch-free pairs?"""
        rest_size = len(pool) - 2
        if rest_size >= matchable.dirac_from:
            return rest_size // 2 >= pool_need
        return matchable.at_least(pool - {p, c}, pool_need)

    def choose(p: EntrantId, candidates: Iterator[EntrantId]) -> EntrantId:
        """The first candidate that keeps the round's rematch count at its minimum and
        (preferably) the rest of p's group pairable; rematches last."""
        rematch_budget = len(remaining) // 2 - need
        rematches: list[EntrantId] = []
        breaking_the_group: list[EntrantId] = []
        for c in candidates:
            if c in played[p]:
                if rematch_budget > 0:
                    rematches.append(c)
            elif keeps(remaining, need - 1, p, c):
                if c not in group_left or keeps(group_left, group_need - 1, p, c):
                    return c
                breaking_the_group.append(c)
        if breaking_the_group:
            return breaking_the_group[0]
        for c in rematches:
            if keeps(remaining, need, p, c):
                return c
        raise InternalPairingError(f"Swiss pairing found no partner for {p}.")

    def unpaired(sequence: Sequence[EntrantId], start: int) -> Iterator[EntrantId]:
        # Indexing, not slicing: a slice would copy the rest of the field for every player.
        return (sequence[i] for i in range(start, len(sequence)) if sequence[i] in remaining)

    group_ends = [
        i + 1
        for i in range(len(players))
        if i + 1 == len(players) or score[players[i]] != score[players[i + 1]]
    ]
    group_start = 0
    for group_end in group_ends:
        # Players of this score group not already pulled up by a floater from above.
        group = [p for p in players[group_start:group_end] if p in remaining]
        group_left = set(group)
        group_need = matchable.size(group)
        half = len(group) // 2
        top, bottom = group[:half], group[half:]
        bottom_first = 0
        for position, p in enumerate(group):
            if p not in remaining:
                continue
            while bottom_first < len(bottom) and bottom[bottom_first] not in remaining:
                bottom_first += 1
            own_group: Iterator[EntrantId]
            if position < half:
                own_group = chain(unpaired(bottom, bottom_first), unpaired(top, position + 1))
            else:
                own_group = unpaired(group, position + 1)
            # Nobody left to meet here: float down to the top of the next groups.
            partner = choose(p, chain(own_group, unpaired(players, group_end)))
            rematch = partner in played[p]
            remaining -= {p, partner}
            need -= 0 if rematch else 1
            if partner in group_left and not rematch:
                group_left -= {p, partner}
                group_need -= 1
            else:
                group_left -= {p, partner}
                group_need = matchable.size(group_left)
            pairs.append((p, partner))
        group_start = group_end
    if remaining:
        raise InternalPairingError(f"Swiss pairing left {sorted(remaining)} unpaired.")
    return pairs, bye


def _choose_bye(
    players: Sequence[EntrantId], byes: Mapping[EntrantId, int], matchable: _Matchable
) -> EntrantId:
    """The lowest-ranked player with the fewest byes whose bye lets the rest avoid the most
    rematches."""
    fewest = min(byes[p] for p in players)
    best: EntrantId | None = None
    best_pairs = -1
    for candidate in reversed(players):
        if byes[candidate] != fewest:
            continue
        rest = [p for p in players if p != candidate]
        pairs = matchable.size(rest)
        if pairs == len(rest) // 2:
            return candidate
        if pairs > best_pairs:
            best, best_pairs = candidate, pairs
    if best is None:
        raise InternalPairingError("Swiss found nobody to give the bye to.")
    return best
