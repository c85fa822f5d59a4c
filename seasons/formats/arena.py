"""Arena: for a fixed time, free players are paired at once; points per win with a streak bonus.

As lichess's arenas: there are no rounds. Whenever players are free (not in a match, not
paused), they are paired with the free player nearest in score, never with the opponent of
their last match while another free player is there for them.

Scoring (:func:`points_for`), one table for every arena:

- a loss scores 0;
- a win scores 2 (:data:`WIN_POINTS`);
- a win that extends a streak — the player's previous two arena matches were both wins —
  scores double, 4 (:data:`STREAK_POINTS`). The streak lasts until the player loses.

The leaderboard (:func:`leaderboard`) ranks by points, then by wins, then by who reached their
points first. A match still in play when the arena ends is finished and counts; no match is
paired after the end.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

from tournaments.formats.matching import matching_size

WIN_POINTS = 2
STREAK_POINTS = 4
#: Wins in a row after which a further win scores :data:`STREAK_POINTS`.
STREAK_AFTER = 2

P = TypeVar("P", bound=Hashable)


@dataclass(frozen=True)
class ArenaResult(Generic[P]):
    """One finished arena match: ``winner`` beat ``loser``; ``finished`` orders results (a
    timestamp or a sequence number: any number that grows with time)."""

    winner: P
    loser: P
    finished: float


@dataclass(frozen=True)
class ArenaScore(Generic[P]):
    player: P
    points: int
    wins: int
    played: int
    # Wins in a row at the end of the player's results: the next win scores double when
    # this is STREAK_AFTER or more ("on fire").
    streak: int
    # When the player last gained points (a win): the later tiebreak, earlier ranks higher.
    reached: float
    # The player's points match by match, for the leaderboard's sheet: 2, 2, 4, 0, ...
    sheet: tuple[int, ...]

    @property
    def on_fire(self) -> bool:
        return self.streak >= STREAK_AFTER


def points_for(streak_before: int) -> int:
    """The points a win scores after ``streak_before`` wins in a row."""
    return STREAK_POINTS if streak_before >= STREAK_AFTER else WIN_POINTS


def scores(players: Iterable[P], results: Iterable[ArenaResult[P]]) -> dict[P, ArenaScore[P]]:
    """Every player's score from the finished matches (taken in the order they finished)."""
    state: dict[P, ArenaScore[P]] = {
        player: ArenaScore(player, 0, 0, 0, 0, float("-inf"), ()) for player in players}
    for result in sorted(results, key=lambda r: r.finished):
        for player in (result.winner, result.loser):
            if player not in state:
                raise ValueError(f"{player!r} played in the arena without joining it")
        winner, loser = state[result.winner], state[result.loser]
        gained = points_for(winner.streak)
        state[result.winner] = ArenaScore(
            winner.player, winner.points + gained, winner.wins + 1, winner.played + 1,
            winner.streak + 1, result.finished, (*winner.sheet, gained))
        state[result.loser] = ArenaScore(
            loser.player, loser.points, loser.wins, loser.played + 1, 0, loser.reached,
            (*loser.sheet, 0))
    return state


def leaderboard(players: Iterable[P], results: Iterable[ArenaResult[P]]) -> list[ArenaScore[P]]:
    """The players best first: points, then wins, then who reached their points first (a
    player who never won ranks by points and wins only, in the order given)."""
    ordered = list(players)
    position = {player: index for index, player in enumerate(ordered)}
    return sorted(scores(ordered, results).values(),
                  key=lambda s: (-s.points, -s.wins, s.reached, position[s.player]))


def last_opponents(results: Iterable[ArenaResult[P]]) -> dict[P, P]:
    """Each player's opponent in their latest finished match."""
    last: dict[P, P] = {}
    for result in sorted(results, key=lambda r: r.finished):
        last[result.winner] = result.loser
        last[result.loser] = result.winner
    return last


def pair_free(free: Sequence[P], points: Mapping[P, int],
              last_opponent: Mapping[P, P]) -> list[tuple[P, P]]:
    """Pairs of the free players, each with the free player nearest in score.

    ``free`` is in the order of preference among equals (for example who has waited
    longest first); ``points`` gives each one's score, ``last_opponent`` the opponent of their
    latest match. Rules:

    - nobody is paired with their last opponent while another free player is there for them:
      the pairs are a largest set avoiding every rematch, and two players who last met are
      paired only when they are the only two free players;
    - within that, players are taken best score first and each gets the nearest score;
    - with an odd number (or an unavoidable rematch) someone waits for the next pairing.
    """
    players = list(dict.fromkeys(free))
    if len(players) == 2 and last_opponent.get(players[0]) == players[1]:
        return [(players[0], players[1])]  # nobody else is free: better a rematch than waiting
    order = {player: index for index, player in enumerate(players)}
    remaining = sorted(players, key=lambda p: (-points.get(p, 0), order[p]))

    def may_meet(a: P, b: P) -> bool:
        return last_opponent.get(a) != b and last_opponent.get(b) != a

    pairs: list[tuple[P, P]] = []
    while len(remaining) >= 2:
        target = _largest(remaining, may_meet)
        if target == 0:
            break
        first = remaining[0]
        candidates = sorted(
            (p for p in remaining[1:] if may_meet(first, p)),
            key=lambda p: (abs(points.get(p, 0) - points.get(first, 0)), order[p]))
        for partner in candidates:
            rest = [p for p in remaining if p not in (first, partner)]
            if _largest(rest, may_meet) == target - 1:
                pairs.append((first, partner))
                remaining = rest
                break
        else:
            # ``first`` is in no largest set of pairs: it waits, the others are paired.
            remaining = remaining[1:]
    return pairs


def _largest(players: Sequence[P], may_meet: Callable[[P, P], bool]) -> int:
    """How many pairs of ``players`` at most avoid every rematch."""
    n = len(players)
    adjacency = [[j for j in range(n) if j != i and may_meet(players[i], players[j])]
                 for i in range(n)]
    if n >= 6 and all(len(row) >= n // 2 for row in adjacency):
        # Dirac: a graph whose every vertex meets at least half the others has a Hamiltonian
        # cycle, so as many pairs as there are twos in n (each player has at most one last
        # opponent, so this holds from six players on).
        return n // 2
    return matching_size(adjacency)
