"""Every change to a tournament goes through these functions.

The admin, pages, API, Celery tasks and the ``match_finished`` receiver are thin callers.
Writes lock the tournament row (``select_for_update``), change the rows, append to the
:class:`~tournaments.models.TournamentLog`, let the format say what happens next and tell
open pages after commit. The package, along its seams:

- :mod:`~tournaments.services.common` — the error type, the lock, the log, permissions;
- :mod:`~tournaments.services.bracket` — the bracket manager: format answers → rows, and
  :func:`~tournaments.services.bracket.settle`, the one decide → close table → advance →
  announce sequence every result goes through;
- :mod:`~tournaments.services.creation` — a new tournament from a template;
- :mod:`~tournaments.services.lifecycle` — one tournament's registration, check-in, seeding,
  start, next round;
- :mod:`~tournaments.services.results` — matches played online, the director's override;
- :mod:`~tournaments.services.reports` — results of matches played over the board;
- :mod:`~tournaments.services.no_shows` — players who do not sit down in time;
- :mod:`~tournaments.services.withdrawals` — withdrawals and disqualifications;
- :mod:`~tournaments.services.room` — table numbers, round start times, late entries;
- :mod:`~tournaments.services.money` — paid marks and side pools (bookkeeping only);
- :mod:`~tournaments.services.configuration` — the event's set-up the director changes:
  money settings, side pools, a division's limits;
- :mod:`~tournaments.services.hand_edits` — the director's swaps, re-pairings and
  take-backs of a round not yet started;
- :mod:`~tournaments.services.players` — club ratings, and the players list as CSV;
- :mod:`~tournaments.services.divisions` — an event's divisions: placing players, starting;
  and the entry points (register, check in, open, start) that route an event to its
  divisions and a plain tournament to :mod:`~tournaments.services.lifecycle`.

Lock order, everywhere: match → table → tournament (the match-play finisher holds the match
and tells us through ``match_finished``). A service here that must end a live match (a
withdrawal, an override) calls :mod:`matches.services` *before* locking the tournament.

Who may call what is one table, :data:`tournaments.permissions.RIGHTS`; each service checks
its caller's role itself (``require_director``, ``require_referee``, ``require_club_director``)
and :func:`tournaments.permissions.allowed_actions` offers a user exactly those actions.

The rules, as a director reads them, are in ``docs/tournaments.md`` and on the site's
"Rules for directors" page. In short:

- A withdrawn, disqualified or absent player is paired no more in Swiss and round robin
  (the formats decide: Swiss keeps their results for tiebreaks; round robin annuls them
  under half played). Every pairing of theirs already made is lost by forfeit (a live
  match through :func:`matches.services.match_forfeit`); both players out is a double
  forfeit.
- No-show: a paired player who has not sat down within ``no_show_minutes`` of the pairing
  loses by forfeit and is withdrawn from later rounds; if neither sat down, both lose and
  both are withdrawn. A referee can reinstate them.
"""

from tournaments.services.common import TournamentError
from tournaments.services.configuration import (
    division_update,
    side_pool_create,
    side_pool_delete,
    side_pool_update,
    tournament_set_money,
)
from tournaments.services.creation import tournament_create_from_template
from tournaments.services.divisions import (
    division_assign,
    entry_check_in,
    entry_register,
    tournament_open_check_in,
    tournament_open_registration,
    tournament_start,
)
from tournaments.services.hand_edits import pairing_swap, round_repair, round_undo
from tournaments.services.lifecycle import tournament_pair_next_round, tournament_reseed
from tournaments.services.money import entry_set_paid, side_pool_enter
from tournaments.services.no_shows import forfeit_no_shows, no_show_due, pairing_forfeit_no_show
from tournaments.services.players import (
    ImportLine,
    ImportReport,
    player_set_rating,
    players_export,
    players_import,
)
from tournaments.services.reports import (
    pairing_confirm,
    pairing_enter_result,
    pairing_reject_report,
    pairing_report,
)
from tournaments.services.results import (
    on_match_finished,
    pairing_double_forfeit,
    pairing_override,
    pairing_record_match,
)
from tournaments.services.room import entry_register_late, pairing_set_board, round_set_start
from tournaments.services.withdrawals import entry_reinstate, entry_withdraw, player_withdraw

__all__ = [
    "ImportLine",
    "ImportReport",
    "TournamentError",
    "division_assign",
    "division_update",
    "entry_check_in",
    "entry_register",
    "entry_register_late",
    "entry_reinstate",
    "entry_set_paid",
    "entry_withdraw",
    "forfeit_no_shows",
    "no_show_due",
    "on_match_finished",
    "pairing_confirm",
    "pairing_double_forfeit",
    "pairing_enter_result",
    "pairing_forfeit_no_show",
    "pairing_override",
    "pairing_record_match",
    "pairing_reject_report",
    "pairing_set_board",
    "pairing_report",
    "pairing_swap",
    "player_set_rating",
    "player_withdraw",
    "players_export",
    "players_import",
    "round_repair",
    "round_set_start",
    "round_undo",
    "side_pool_create",
    "side_pool_delete",
    "side_pool_enter",
    "side_pool_update",
    "tournament_create_from_template",
    "tournament_open_check_in",
    "tournament_open_registration",
    "tournament_pair_next_round",
    "tournament_reseed",
    "tournament_set_money",
    "tournament_start",
]
