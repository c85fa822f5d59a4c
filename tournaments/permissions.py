"""Who may do what to a tournament: the one table the services check and the desk, the API
and the admin read to offer an action.

Each action is a service's name (``"pairing_swap"`` is :func:`tournaments.services.
pairing_swap`); ``entry_disqualify`` is :func:`~tournaments.services.entry_withdraw` with
``disqualify=True``. A role is one of:

- ``referee``: a user with ``tournaments.referee_tournament`` (the Referees group), or the
  tournament's director (:func:`tournaments.selectors.is_referee`);
- ``director``: the tournament's director, a superuser, or a staff member allowed to change
  tournaments (:func:`tournaments.selectors.can_direct`);
- ``club``: the club's directors, for players and ratings, which belong to no one
  tournament: a superuser, or a staff member allowed to change tournaments
  (:func:`can_direct_club`).

:func:`allowed_actions` says which actions a user's role allows on a tournament *in its
present stage* (a start is offered only before the start, a hand edit only while running):
nothing is offered that the service would refuse for the user's rights or the stage. A
service may still refuse a particular request for its own reasons (a round already started,
a missing reason), always with a clear code and no change of state.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import Any, Final, Literal, TypeAlias

from tournaments.models import Tournament, TournamentStatus
from tournaments.selectors import can_direct, is_referee

Role: TypeAlias = Literal["referee", "director", "club"]

RIGHTS: Final[Mapping[str, Role]] = MappingProxyType({
    # the event's life
    "tournament_open_registration": "director",
    "tournament_open_check_in": "director",
    "tournament_reseed": "director",
    "tournament_start": "director",
    "tournament_pair_next_round": "director",
    "round_set_start": "director",
    "entry_register_late": "director",
    "division_assign": "director",
    # players who leave, and who come back
    "entry_withdraw": "director",
    "entry_disqualify": "director",
    "entry_reinstate": "referee",
    # hand edits with a trail
    "pairing_swap": "director",
    "round_repair": "director",
    "round_undo": "director",
    # results and the room
    "pairing_enter_result": "referee",
    "pairing_override": "referee",
    "pairing_double_forfeit": "referee",
    "pairing_confirm": "referee",
    "pairing_reject_report": "referee",
    "pairing_set_board": "referee",
    # money at the desk
    "entry_set_paid": "referee",
    "side_pool_enter": "referee",
    # the event's set-up: its money, side pools and divisions
    "tournament_set_money": "director",
    "side_pool_create": "director",
    "side_pool_update": "director",
    "side_pool_delete": "director",
    "division_update": "director",
    # players and ratings (the club's, not one tournament's)
    "player_set_rating": "club",
    "players_import": "club",
    "players_export": "club",
})

CLUB_PERMISSION: Final = "tournaments.change_tournament"


def can_direct_club(user: Any) -> bool:
    """The club's directors: a superuser, or a staff member allowed to change tournaments.
    They set players' ratings and import or export the players list."""
    if user is None or not getattr(user, "is_authenticated", False):
        return False
    return bool(user.is_superuser or (user.is_staff and user.is_active
                                      and user.has_perm(CLUB_PERMISSION)))


def can_see_money(user: Any, tournament: Tournament) -> bool:
    """Who sees an event's money (the treasurer's sheet, the money on its page and desk,
    ``GET money/``): staff members, its director and its referees."""
    return bool(getattr(user, "is_staff", False)) or is_referee(user, tournament)


def has_role(user: Any, role: Role, tournament: Tournament | None) -> bool:
    """Whether ``user`` holds ``role`` (for ``tournament``, for the tournament roles)."""
    if role == "club":
        return can_direct_club(user)
    if tournament is None:
        return False
    if role == "director":
        return can_direct(user, tournament)
    return is_referee(user, tournament)


def _is_event(tournament: Tournament) -> bool:
    return tournament.divisions.exists()


# Formats paired round by round: a round can be paired again or taken back.
ROUND_BY_ROUND_FORMATS: Final = frozenset({"swiss", "swiss_cut"})

_RUNNING: Final = frozenset({TournamentStatus.RUNNING})
_BEFORE_START: Final = frozenset({TournamentStatus.REGISTRATION, TournamentStatus.CHECK_IN})

# The stages each action is open in (None: whatever the stage, as far as its rights go).
_STAGES: Final[Mapping[str, frozenset[int] | None]] = MappingProxyType({
    "tournament_open_registration": frozenset({TournamentStatus.DRAFT}),
    "tournament_open_check_in": frozenset({TournamentStatus.REGISTRATION}),
    "tournament_reseed": frozenset({TournamentStatus.DRAFT, *_BEFORE_START}),
    "tournament_start": _BEFORE_START,
    "tournament_pair_next_round": _RUNNING,
    "round_set_start": _RUNNING,
    "entry_register_late": _RUNNING,
    "division_assign": frozenset({TournamentStatus.DRAFT, *_BEFORE_START}),
    "division_update": frozenset({TournamentStatus.DRAFT, *_BEFORE_START}),
    "entry_withdraw": frozenset({TournamentStatus.DRAFT, *_BEFORE_START, *_RUNNING}),
    "entry_disqualify": frozenset({TournamentStatus.DRAFT, *_BEFORE_START, *_RUNNING}),
    "entry_reinstate": frozenset({TournamentStatus.DRAFT, *_BEFORE_START, *_RUNNING}),
    "pairing_swap": _RUNNING,
    "round_repair": _RUNNING,
    "round_undo": _RUNNING,
    "pairing_enter_result": _RUNNING,
    "pairing_override": frozenset({*_RUNNING, TournamentStatus.FINISHED}),
    "pairing_double_forfeit": frozenset({*_RUNNING, TournamentStatus.FINISHED}),
    "pairing_confirm": _RUNNING,
    "pairing_reject_report": _RUNNING,
    "pairing_set_board": _RUNNING,
})

# Actions an event with divisions does not take itself (its divisions hold the draws), and
# actions only an event takes.
_NOT_ON_EVENTS: Final = frozenset({
    "tournament_reseed", "tournament_pair_next_round", "round_set_start",
    "entry_register_late", "pairing_swap", "round_repair", "round_undo",
    "pairing_enter_result", "pairing_override", "pairing_double_forfeit", "pairing_confirm",
    "pairing_reject_report", "pairing_set_board",
    # an event's money and side pools are its divisions'
    "tournament_set_money", "side_pool_create", "side_pool_update", "side_pool_delete",
})
_ONLY_ON_EVENTS: Final = frozenset({"division_assign", "division_update"})

_STAGE_CHECKS: Final[Mapping[str, Callable[[Tournament], bool]]] = MappingProxyType({
    # Elimination and round robin fix their draw at the start: there is no round to re-pair
    # or take back (a swap changes their seeds instead).
    "round_repair": lambda t: t.format in ROUND_BY_ROUND_FORMATS,
    "round_undo": lambda t: t.format in ROUND_BY_ROUND_FORMATS,
})



def allowed_actions(user: Any, tournament: Tournament) -> set[str]:
    """The actions (service names, see :data:`RIGHTS`) ``user`` may take on ``tournament``
    now: their role allows it and the tournament's stage and kind admit it."""
    event = _is_event(tournament)
    allowed: set[str] = set()
    roles = {role: has_role(user, role, tournament) for role in ("referee", "director", "club")}
    for action, role in RIGHTS.items():
        if not roles[role]:
            continue
        stages = _STAGES.get(action)
        if stages is not None and tournament.status not in stages:
            continue
        if event and action in _NOT_ON_EVENTS:
            continue
        if action in _ONLY_ON_EVENTS and not event:
            continue
        check = _STAGE_CHECKS.get(action)
        if check is not None and not check(tournament):
            continue
        allowed.add(action)
    return allowed


def may(user: Any, action: str, tournament: Tournament | None = None) -> bool:
    """Whether ``user``'s role allows ``action`` (whatever the stage): what the services
    check before anything else."""
    return has_role(user, RIGHTS[action], tournament)
