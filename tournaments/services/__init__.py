"""Every change to a tournament goes through these functions.

The admin, pages, API, Celery tasks and the ``match_finished`` receiver are thin callers.
Writes lock the tournament row (``select_for_update``), change the rows, append to the
:class:`~tournaments.models.TournamentLog`, let the format say what happens next and tell
open pages after commit. The package, along its seams:

- :mod:`~tournaments.services.common` — the error type, the lock, the log, permissions;
- :mod:`~tournaments.services.bracket` — the bracket manager: format answers → rows, and
  :func:`~tournaments.services.bracket.settle`, the one decide → close table → advance →
  announce sequence every result goes through;
- :mod:`~tournaments.services.lifecycle` — registration, check-in, seeding, start, next round;
- :mod:`~tournaments.services.results` — matches played online, the director's override;
- :mod:`~tournaments.services.reports` — results of matches played over the board;
- :mod:`~tournaments.services.no_shows` — players who do not sit down in time;
- :mod:`~tournaments.services.withdrawals` — withdrawals and disqualifications.

Lock order, everywhere: match → table → tournament (the match-play finisher holds the match
and tells us through ``match_finished``). A service here that must end a live match (a
withdrawal, an override) calls :mod:`matches.services` *before* locking the tournament.

Rules chosen here (see ``docs/tournaments.md``):

- Withdrawn or disqualified players stay in the draw: every pairing of theirs still to be
  played is lost by forfeit (a live match through :func:`matches.services.match_forfeit`).
  If both players of a pairing are out, the better seed goes through.
- No-show: a paired player who has not sat down within ``no_show_minutes`` of the pairing
  loses by forfeit. If neither sat down, the better seed goes through (so the bracket keeps
  moving) and the log says so; the director can override that result.
"""

from tournaments.services.common import TournamentError
from tournaments.services.lifecycle import (
    entry_check_in,
    entry_register,
    tournament_open_check_in,
    tournament_open_registration,
    tournament_pair_next_round,
    tournament_reseed,
    tournament_start,
)
from tournaments.services.no_shows import forfeit_no_shows, no_show_due, pairing_forfeit_no_show
from tournaments.services.reports import (
    pairing_confirm,
    pairing_enter_result,
    pairing_reject_report,
    pairing_report,
)
from tournaments.services.results import (
    on_match_finished,
    pairing_override,
    pairing_record_match,
)
from tournaments.services.withdrawals import entry_withdraw, player_withdraw

__all__ = [
    "TournamentError",
    "entry_check_in",
    "entry_register",
    "entry_withdraw",
    "forfeit_no_shows",
    "no_show_due",
    "on_match_finished",
    "pairing_confirm",
    "pairing_enter_result",
    "pairing_forfeit_no_show",
    "pairing_override",
    "pairing_record_match",
    "pairing_reject_report",
    "pairing_report",
    "player_withdraw",
    "tournament_open_check_in",
    "tournament_open_registration",
    "tournament_pair_next_round",
    "tournament_reseed",
    "tournament_start",
]
