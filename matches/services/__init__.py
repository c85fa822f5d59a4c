"""Every change to a table or a match goes through these functions.

Views, API endpoints, WebSocket consumers, Celery tasks and admin actions are thin callers.
Every change to a match goes through one door, :func:`~matches.services.change.match_change`:
it locks the match row once, lets the engine judge, bumps the version once, writes the log
and the snapshot in one transaction and pushes one state after commit.

The package's parts: :mod:`~matches.services.change` (the one door),
:mod:`~matches.services.tables` (players, tables, starting a match),
:mod:`~matches.services.play` (actions, what the server does by itself, clocks and flags),
:mod:`~matches.services.log` (the event log), :mod:`~matches.services.finish` (every end of a
match) and :mod:`~matches.services.decisions` (forfeits and the referee's decisions). Callers
import from here.

Beside them, the changes with their own module: :mod:`~matches.services.clocks` (flags and
the sweep), :mod:`~matches.services.dice_seeds` (client seeds),
:mod:`~matches.services.rematch` and :mod:`~matches.services.late_penalty`; and what every
change uses: :mod:`~matches.services.statements` (the action path's SQL),
:mod:`~matches.services.broadcast` (pushes after commit) and
:mod:`~matches.services.presence` (who has a board open). None of them imports anything
above the services (sockets, API, admin, bots).
"""

from matches.errors import ServiceError
from matches.players.accounts import player_for_user
from matches.services.change import MatchChange, match_change
from matches.services.decisions import (
    Verification,
    forfeit_change,
    match_adjudicate,
    match_end_session,
    match_forfeit,
    match_verify,
    match_void,
)
from matches.services.play import (
    PLAYER_ACTIONS,
    ActResult,
    check_version,
    deadline_passed,
    flag_change,
    match_act,
)
from matches.services.tables import (
    TABLE_RULE_FIELDS,
    clock_preset_fields,
    current_match,
    match_start,
    table_create,
    table_new_invite,
    table_sit,
    table_stand,
)

__all__ = [
    "PLAYER_ACTIONS", "TABLE_RULE_FIELDS", "ActResult", "MatchChange", "ServiceError",
    "Verification", "check_version", "clock_preset_fields", "current_match",
    "deadline_passed", "flag_change", "forfeit_change", "match_act", "match_adjudicate",
    "match_change", "match_end_session", "match_forfeit",
    "match_start", "match_verify", "match_void", "player_for_user", "table_create",
    "table_new_invite", "table_sit", "table_stand",
]
