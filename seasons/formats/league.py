"""Season league: divisions of round robins; the top and bottom of each move between seasons.

A division's season is a round robin (:class:`tournaments.formats.RoundRobin`, with its
standings and tiebreaks); this module decides the next season's divisions from the final
standings (:func:`next_season`):

- the top ``move`` of every division but the first go up one division;
- the bottom ``move`` of every division but the last go down one division;
- players who leave are taken out; newcomers join the last division.

Each new division lists those who came down first, then those who stayed (in their finishing
order), then those who came up: the order the next season draws its seeds from.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence
from typing import Any

from tournaments.formats.base import gettext_noop


class LeagueError(ValueError):
    def __init__(self, code: str, message: str, **params: Any) -> None:
        # A %-template and its values, as tournaments.formats.base.PairingError's.
        super().__init__(message % params)
        self.code = code
        self.template = message
        self.params = params


def next_season(finals: Sequence[Sequence[Hashable]], move: int,
                joining: Iterable[Hashable] = (),
                leaving: Iterable[Hashable] = ()) -> list[list[Hashable]]:
    """The next season's divisions from ``finals`` (each division's final standings, best
    first, the first division the strongest); :class:`LeagueError` if the divisions are too
    small for ``move`` players to go up and ``move`` others down."""
    if move < 0:
        raise LeagueError("bad_move",
                          gettext_noop("The number of players promoted and relegated is 0 or "
                                       "more."))
    players = [player for division in finals for player in division]
    if len(set(players)) != len(players):
        raise LeagueError("player_twice", gettext_noop("A player stands in two divisions."))
    last = len(finals) - 1
    for number, division in enumerate(finals):
        movers = move * ((number > 0) + (number < last))
        if len(division) < movers:
            raise LeagueError("division_too_small",
                              gettext_noop("Division %(number)s has %(count)s players; "
                                           "%(movers)s would move."),
                              number=number + 1, count=len(division), movers=movers)
    gone = set(leaving)
    down: list[list[Hashable]] = [[] for _ in finals]
    stay: list[list[Hashable]] = [[] for _ in finals]
    up: list[list[Hashable]] = [[] for _ in finals]
    for number, division in enumerate(finals):
        size = len(division)
        for place, player in enumerate(division):
            if number > 0 and place < move:
                up[number - 1].append(player)
            elif number < last and place >= size - move:
                down[number + 1].append(player)
            else:
                stay[number].append(player)
    seasons = [down[n] + stay[n] + up[n] for n in range(len(finals))]
    seasons = [[player for player in division if player not in gone] for division in seasons]
    newcomers = list(dict.fromkeys(joining))
    already = [player for player in newcomers if player in set(players)]
    if already:
        raise LeagueError("already_in_league",
                          gettext_noop("%(already)r already plays in the "
                                       "league."), already=already[0])
    if seasons:
        seasons[-1].extend(newcomers)
    elif newcomers:
        seasons = [newcomers]
    return seasons
