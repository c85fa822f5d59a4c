"""The fair-play review for referees: finished matches where a person played far better
than their own history says they can.

The statistic: for a player's match with at least :data:`MIN_DECISIONS` analysed decisions,
``z = (mean PR of their previous N analysed matches - PR of this match) / SD of those PRs``
(PR lower is better; the SD is at least :data:`MIN_SD` so a very steady history does not make
every small improvement a case). A match is listed when ``z >= THRESHOLD`` over at least
:data:`MIN_HISTORY` earlier matches. Bots are never listed. The list is a tool for people:
it never acts by itself, and being listed is not evidence of anything on its own.
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from dataclasses import dataclass
from typing import Final

from matches.models import AnalysisStatus, Match, MatchAnalysis, Player

LAST_N: Final = 10
MIN_HISTORY: Final = 3
MIN_DECISIONS: Final = 10
MIN_SD: Final = 2.0
THRESHOLD: Final = 2.5


@dataclass(frozen=True)
class FairPlayCase:
    match: Match
    player: Player
    seat: int
    pr: float
    history_mean: float
    history_sd: float
    history_matches: int
    z: float


def _entries() -> dict[int, list[tuple[MatchAnalysis, int]]]:
    """Each person's analysed matches in the order they finished: (analysis, seat)."""
    per_player: dict[int, list[tuple[MatchAnalysis, int]]] = defaultdict(list)
    analyses = (MatchAnalysis.objects.filter(status=AnalysisStatus.DONE)
                .select_related("match__player0", "match__player1", "match__table")
                .order_by("match__finished_at", "match_id"))
    for analysis in analyses:
        for seat in (0, 1):
            player = analysis.match.players()[seat]
            summary = analysis.players[seat] if len(analysis.players) > seat else {}
            if player.is_bot or summary.get("decisions", 0) < MIN_DECISIONS:
                continue
            per_player[player.pk].append((analysis, seat))
    return per_player


def fair_play_cases(*, last_n: int = LAST_N, threshold: float = THRESHOLD
                    ) -> list[FairPlayCase]:
    """Every listed case, the most striking first."""
    cases: list[FairPlayCase] = []
    for entries in _entries().values():
        for index, (analysis, seat) in enumerate(entries):
            history = [float(entry.players[s]["pr"]) for entry, s in entries[:index][-last_n:]]
            if len(history) < MIN_HISTORY:
                continue
            pr = float(analysis.players[seat]["pr"])
            mean = statistics.fmean(history)
            sd = max(statistics.stdev(history), MIN_SD)
            z = (mean - pr) / sd
            if z >= threshold:
                cases.append(FairPlayCase(analysis.match, analysis.match.players()[seat], seat,
                                          pr, mean, sd, len(history), z))
    cases.sort(key=lambda case: -case.z)
    return cases
