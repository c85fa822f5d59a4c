"""What a player's page shows: rating history, record against each opponent, experience.

Read-only selectors over the models; the page (``matches.views.player_page``) only renders.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Q
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from matches.models import Match, MatchStatus, Player
from matches.players.rating_graph import RatingPoint
from matches.players.ratings import experience_factor

FINISHED_WITH_WINNER = (MatchStatus.FINISHED, MatchStatus.FORFEITED, MatchStatus.ADJUDICATED)


@dataclass(frozen=True, slots=True)
class OpponentRecord:
    opponent: Player
    won: int
    lost: int

    @property
    def played(self) -> int:
        return self.won + self.lost


def rating_points(player: Player) -> list[RatingPoint]:
    """The rating before the first rated match, then after each one, oldest first."""
    records = list(player.rating_history.order_by("created_at", "pk"))
    if not records:
        return []
    points = [RatingPoint(records[0].created_at, records[0].before)]
    points += [RatingPoint(record.created_at, record.after) for record in records]
    return points


def record_against_opponents(player: Player) -> list[OpponentRecord]:
    """Wins and losses against each opponent in finished matches, most played first.

    Voided matches and money sessions without a winner count for nobody.
    """
    tally: dict[int, list[int]] = {}
    opponents: dict[int, Player] = {}
    matches = (Match.objects.filter(Q(player0=player) | Q(player1=player))
               .filter(status__in=FINISHED_WITH_WINNER, winner__isnull=False)
               .select_related("player0", "player1"))
    for match in matches:
        opponent = match.player1 if match.player0_id == player.pk else match.player0
        if opponent is None:
            continue
        opponents[opponent.pk] = opponent
        won_lost = tally.setdefault(opponent.pk, [0, 0])
        won_lost[0 if match.winner_id == player.pk else 1] += 1
    rows = [OpponentRecord(opponents[pk], won, lost) for pk, (won, lost) in tally.items()]
    return sorted(rows, key=lambda row: (-row.played, row.opponent.display_name))


def experience_in_words(experience: int) -> str:
    """What the experience number means for this player, in a sentence."""
    factor = experience_factor(experience)
    points = ngettext(
        "Experience is the total length of the rated matches a player has finished: "
        "%(n)s point so far.",
        "Experience is the total length of the rated matches a player has finished: "
        "%(n)s points so far.", experience) % {"n": experience}
    if factor > 1:
        more = max(0, 400 - experience)
        return points + " " + _(
            "Newcomers' ratings move faster: each result counts %(factor)s× as much as an "
            "established player's, until %(more)s more points have been played."
        ) % {"factor": f"{factor:g}", "more": more}
    return points + " " + _("Ratings now move at the normal (established) rate.")
