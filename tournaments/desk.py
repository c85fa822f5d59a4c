"""The director's desk: one table of the actions that run an event.

Each :class:`DeskAction` names a service of :mod:`tournaments.services`, the input it takes
(a DRF serializer), who may do it (the director, or a referee too), when the event's state
offers it and which rows (entries, pairings, rounds) it applies to. The desk's pages
(:mod:`tournaments.desk_views`) draw their forms from this table and the write API
(:mod:`tournaments.desk_api`, ``POST /api/tournaments/<id>/actions/<name>/``) takes the same
input, so the two cannot drift: both call :func:`perform`.

Rights: an action is offered to a user only if their role has it (:func:`allowed_actions`)
and the event's state lets the service accept it; the services check again and refuse with
a :class:`~tournaments.services.TournamentError`, which changes nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.db.models import QuerySet
from django.utils.functional import Promise
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _
from rest_framework import serializers

from matches.models import Player
from tournaments import permissions, selectors, services, treasury
from tournaments.desk_inputs import (
    DivisionEditInput,
    DivisionInput,
    EntryInput,
    EntryReasonInput,
    MoneyInput,
    NoInput,
    PaidInput,
    PairingInput,
    PairingReasonInput,
    PlayerInput,
    RatingInput,
    ReasonInput,
    RejectReportInput,
    ResultInput,
    RoundStartInput,
    SidePoolCreateInput,
    SidePoolDeleteInput,
    SidePoolEditInput,
    SidePoolInput,
    SwapInput,
    TableInput,
)
from tournaments.models import (
    Entry,
    FormatName,
    Pairing,
    SidePool,
    Tournament,
    TournamentStatus,
)
from tournaments.services import TournamentError

DIRECTOR = "director"
REFEREE = "referee"


# -- the table -------------------------------------------------------------------------------


Runner = Callable[[Tournament, Any, dict[str, Any]], Any]


@dataclass(frozen=True)
class DeskAction:
    name: str
    label: str | Promise
    # Who may: a service's name in :data:`tournaments.permissions.RIGHTS` (its role and the
    # stages it is open in come from there), or DIRECTOR / REFEREE for a desk action whose
    # service has no rights of its own (a player's registration or check-in made for them).
    rights: str
    # "tournament", "entry", "pairing", "round", "side_pool" or "division" (an event's)
    target: str
    input: type[serializers.Serializer[Any]]
    run: Runner
    # What the desk checks beyond the rights table: the format, side pools, the stage of an
    # action the table does not list.
    offered: Callable[[Tournament], bool] = lambda t: True
    # Whether it applies to one row: an entry (with the viewer's ``role``), a pairing, a
    # round, a side pool (``members``: how many are in it) as the desk shows them.
    applies: Callable[[Any], bool] = lambda obj: True
    done: str | Promise = _("Done.")
    key: str = ""  # the access key of a tournament-wide action
    undo: str = ""  # the action that takes this one back, where the rules allow

    @property
    def role(self) -> str:
        """The least role that may take it: ``referee``, ``director`` or ``club``."""
        return permissions.RIGHTS.get(self.rights, self.rights)

    def fields(self) -> dict[str, serializers.Field[Any, Any, Any, Any]]:
        """The input's fields, as the desk's forms and ``GET actions/`` describe them."""
        return dict(self.input().fields)


def _status(*statuses: int) -> Callable[[Tournament], bool]:
    return lambda t: t.status in statuses


def _paired_round_by_round(t: Tournament) -> bool:
    return not t.is_elimination


_BEFORE_START = (TournamentStatus.REGISTRATION, TournamentStatus.CHECK_IN)


# Targets: the object an action is about, found inside the tournament (an event's entries
# and pairings are in its divisions) or refused as not_found.

def entry_in(tournament: Tournament, entry_id: int) -> Entry:
    entry = Entry.objects.select_related("player", "tournament").filter(
        pk=entry_id, tournament_id__in=selectors.family(tournament)).first()
    if entry is None:
        raise TournamentError("not_found",
                              gettext("There is no entry %(entry_id)s in this tournament.")
                              % {"entry_id": entry_id},
                              field="entry")
    return entry


def pairing_in(tournament: Tournament, pairing_id: int) -> Pairing:
    row = Pairing.objects.filter(pk=pairing_id,
                                 tournament_id__in=selectors.family(tournament)).first()
    if row is None:
        raise TournamentError("not_found",
                              gettext("There is no pairing %(pairing_id)s in this tournament.")
                              % {"pairing_id": pairing_id},
                              field="pairing")
    return row


def player_of(player_id: int) -> Player:
    player = Player.objects.filter(pk=player_id).first()
    if player is None:
        raise TournamentError("not_found",
                              gettext("There is no player %(player_id)s.")
                              % {"player_id": player_id}, field="player")
    return player


def _check_in(t: Tournament, actor: Any, d: dict[str, Any]) -> Entry:
    entry = entry_in(t, d["entry"])
    return services.entry_check_in(tournament_id=t.pk, player=entry.player)


def _withdraw(disqualify: bool) -> Runner:
    def run(t: Tournament, actor: Any, d: dict[str, Any]) -> Entry:
        entry = entry_in(t, d["entry"])
        return services.entry_withdraw(entry_id=entry.pk, actor=actor, reason=d["reason"],
                                       disqualify=disqualify)
    return run


def _swap(t: Tournament, actor: Any, d: dict[str, Any]) -> list[Pairing]:
    for key in ("pairing_a", "pairing_b"):
        pairing_in(t, d[key])
    return services.pairing_swap(
        tournament_id=t.pk, pairing_a_id=d["pairing_a"], entry_a_id=d["entry_a"],
        pairing_b_id=d["pairing_b"], entry_b_id=d["entry_b"], actor=actor, reason=d["reason"])


def _result(t: Tournament, actor: Any, d: dict[str, Any]) -> Pairing:
    row = pairing_in(t, d["pairing"])
    return services.pairing_enter_result(
        pairing_id=row.pk, referee=actor, winner_entry_id=d["winner"],
        winner_points=d.get("winner_points"), loser_points=d.get("loser_points"),
        reason=d["reason"])


def _override(t: Tournament, actor: Any, d: dict[str, Any]) -> Pairing:
    row = pairing_in(t, d["pairing"])
    return services.pairing_override(
        pairing_id=row.pk, actor=actor, winner_entry_id=d["winner"], reason=d["reason"],
        winner_points=d.get("winner_points"), loser_points=d.get("loser_points"))


def _side_pool(t: Tournament, actor: Any, d: dict[str, Any]) -> SidePool:
    entry = entry_in(t, d["entry"])
    if not SidePool.objects.filter(pk=d["side_pool"], tournament_id=entry.tournament_id
                                   ).exists():
        raise TournamentError("not_found",
                              gettext("There is no such side pool in this tournament."),
                              field="side_pool")
    return services.side_pool_enter(side_pool_id=d["side_pool"], entry_id=entry.pk,
                                    enter=d["member"], actor=actor)


def _given(d: dict[str, Any], *keep_null: str) -> dict[str, Any]:
    """The settings the input gives: without the reason, and without those left null (but
    for ``keep_null``, where null clears the setting)."""
    return {k: v for k, v in d.items()
            if k != "reason" and (v is not None or k in keep_null)}


def _set_money(t: Tournament, actor: Any, d: dict[str, Any]) -> Tournament:
    changes = _given(d)
    if changes.get("currency") == "":
        del changes["currency"]  # a blank currency keeps the one set
    return services.tournament_set_money(tournament_id=t.pk, actor=actor,
                                         reason=d.get("reason", ""), **changes)


def _edit_side_pool(t: Tournament, actor: Any, d: dict[str, Any]) -> SidePool:
    changes = _given(d)
    side_pool = changes.pop("side_pool")
    return services.side_pool_update(side_pool_id=side_pool, tournament_id=t.pk,
                                     actor=actor, reason=d.get("reason", ""), **changes)


def _edit_division(t: Tournament, actor: Any, d: dict[str, Any]) -> Tournament:
    changes = _given(d, "min_rating", "max_rating", "min_experience", "max_experience")
    division = changes.pop("division")
    if not t.divisions.filter(pk=division).exists():
        raise TournamentError("not_found",
                              gettext("There is no division %(division)s in this event.")
                              % {"division": division},
                              field="division")
    return services.division_update(division_id=division, actor=actor,
                                    reason=d.get("reason", ""), **changes)


def _is_out(entry: dict[str, Any]) -> bool:
    return entry["status"] != "active"


def _may_reinstate(entry: dict[str, Any]) -> bool:
    """Out, and (a disqualified player) the viewer directs: ``role`` is the viewer's."""
    return _is_out(entry) and (entry["status"] != "disqualified"
                               or entry.get("role") == DIRECTOR)


def _is_in(entry: dict[str, Any]) -> bool:
    return entry["status"] == "active"


def _two_players(p: dict[str, Any]) -> bool:
    return bool(p["a"]["entry"] and p["b"]["entry"]) and p["status"] in (
        "waiting", "paired", "decided")


def _over_the_board_open(p: dict[str, Any]) -> bool:
    return p["status"] == "paired" and not p["table_id"] and _two_players(p)


def _reported(p: dict[str, Any]) -> bool:
    """A player's report waits for confirmation (``reported``: only while it is paired)."""
    return bool(p.get("reported")) and _two_players(p)


ACTIONS: tuple[DeskAction, ...] = (
    # The event's life
    DeskAction("open_registration", _("Open registration"), "tournament_open_registration",
               "tournament", NoInput,
               lambda t, a, d: services.tournament_open_registration(tournament_id=t.pk,
                                                                     actor=a),
               done=_("Registration is open."), key="o"),
    DeskAction("open_check_in", _("Open check-in"), "tournament_open_check_in", "tournament",
               NoInput,
               lambda t, a, d: services.tournament_open_check_in(tournament_id=t.pk, actor=a),
               done=_("Check-in is open."), key="c"),
    DeskAction("register", _("Register a player"), DIRECTOR, "tournament", PlayerInput,
               lambda t, a, d: services.entry_register(tournament_id=t.pk,
                                                       player=player_of(d["player"]), actor=a),
               _status(*_BEFORE_START), done=_("The player is registered."), key="r"),
    DeskAction("reseed", _("Draw the seeds again"), "tournament_reseed", "tournament", NoInput,
               lambda t, a, d: services.tournament_reseed(tournament_id=t.pk, actor=a),
               done=_("The seeds are drawn again.")),
    DeskAction("start", _("Start the tournament"), "tournament_start", "tournament", NoInput,
               lambda t, a, d: services.tournament_start(tournament_id=t.pk, actor=a),
               done=_("The tournament has started."), key="s"),
    DeskAction("pair_next_round", _("Pair the next round"), "tournament_pair_next_round",
               "tournament", NoInput,
               lambda t, a, d: services.tournament_pair_next_round(tournament_id=t.pk,
                                                                   actor=a),
               _paired_round_by_round, done=_("The next round is paired."), key="n"),
    DeskAction("late_entry", _("Late entry"), "entry_register_late", "tournament", PlayerInput,
               lambda t, a, d: services.entry_register_late(tournament_id=t.pk,
                                                            player=player_of(d["player"]),
                                                            actor=a),
               lambda t: t.format != FormatName.ROUND_ROBIN, done=_("The late entry is in."),
               key="l"),
    # Hand edits with a trail
    DeskAction("swap_players", _("Swap two players"), "pairing_swap", "tournament", SwapInput,
               _swap, done=_("The two players are swapped.")),
    DeskAction("repair_round", _("Pair the round again"), "round_repair", "tournament",
               ReasonInput,
               lambda t, a, d: services.round_repair(tournament_id=t.pk, actor=a,
                                                     reason=d["reason"]),
               done=_("The round is paired again.")),
    DeskAction("undo_round", _("Take back the last round"), "round_undo", "tournament",
               ReasonInput,
               lambda t, a, d: services.round_undo(tournament_id=t.pk, actor=a,
                                                   reason=d["reason"]),
               done=_("The last round is taken back.")),
    # Entries
    DeskAction("check_in", _("Check in"), REFEREE, "entry", EntryInput, _check_in,
               _status(TournamentStatus.CHECK_IN),
               lambda e: _is_in(e) and not e["checked_in"], done=_("Checked in.")),
    DeskAction("set_paid", _("Paid"), "entry_set_paid", "entry", PaidInput,
               lambda t, a, d: services.entry_set_paid(entry_id=entry_in(t, d["entry"]).pk,
                                                       paid=d["paid"], actor=a),
               done=_("The paid mark is saved.")),
    DeskAction("side_pool", _("Side pool"), "side_pool_enter", "entry", SidePoolInput,
               _side_pool, lambda t: t.side_pools.exists(),
               done=_("The side pool is saved.")),
    # The event's set-up: money, side pools, divisions
    DeskAction("set_money", _("Money settings"), "tournament_set_money", "tournament",
               MoneyInput, _set_money, done=_("The money settings are saved.")),
    DeskAction("add_side_pool", _("Add a side pool"), "side_pool_create", "tournament",
               SidePoolCreateInput,
               lambda t, a, d: services.side_pool_create(
                   tournament_id=t.pk, name=d["name"], fee=d["fee"],
                   return_percent=d["return_percent"], payout_table=d["payout_table"],
                   actor=a, reason=d.get("reason", "")),
               done=_("The side pool is added.")),
    DeskAction("edit_side_pool", _("Change the side pool"), "side_pool_update", "side_pool",
               SidePoolEditInput, _edit_side_pool, done=_("The side pool is saved.")),
    DeskAction("delete_side_pool", _("Delete the side pool"), "side_pool_delete",
               "side_pool", SidePoolDeleteInput,
               lambda t, a, d: services.side_pool_delete(
                   side_pool_id=d["side_pool"], tournament_id=t.pk, actor=a,
                   reason=d.get("reason", "")),
               applies=lambda pool: not pool["members"],
               done=_("The side pool is deleted.")),
    DeskAction("edit_division", _("Change the division"), "division_update", "division",
               DivisionEditInput, _edit_division, done=_("The division is saved.")),
    DeskAction("assign_division", _("Assign to a division"), "division_assign", "entry",
               DivisionInput,
               lambda t, a, d: services.division_assign(
                   entry_id=entry_in(t, d["entry"]).pk, division_id=d["division"], actor=a,
                   reason=d.get("reason", "")),
               applies=_is_in, done=_("The player is in the division.")),
    DeskAction("withdraw", _("Withdraw"), "entry_withdraw", "entry", EntryReasonInput,
               _withdraw(False), applies=_is_in, done=_("The player is withdrawn."),
               undo="reinstate"),
    DeskAction("disqualify", _("Disqualify"), "entry_disqualify", "entry", EntryReasonInput,
               _withdraw(True), applies=_is_in, done=_("The player is disqualified."),
               undo="reinstate"),
    DeskAction("reinstate", _("Reinstate"), "entry_reinstate", "entry", EntryReasonInput,
               lambda t, a, d: services.entry_reinstate(entry_id=entry_in(t, d["entry"]).pk,
                                                        actor=a, reason=d["reason"]),
               applies=_may_reinstate, done=_("The player is back in.")),
    DeskAction("set_rating", _("Club rating"), "player_set_rating", "entry", RatingInput,
               lambda t, a, d: services.player_set_rating(
                   player_id=entry_in(t, d["entry"]).player_id, rating=d["rating"], actor=a,
                   reason=d["reason"]),
               done=_("The rating is saved.")),
    # Pairings
    DeskAction("enter_result", _("Enter the result"), "pairing_enter_result", "pairing",
               ResultInput, _result, applies=_over_the_board_open,
               done=_("The result is in.")),
    # A player's report, confirmed or rejected as the opponent could (the rules page's
    # promise to referees); the service refuses the reporter confirming their own.
    DeskAction("confirm_report", _("Confirm the reported result"), "pairing_confirm",
               "pairing", PairingInput,
               lambda t, a, d: services.pairing_confirm(
                   pairing_id=pairing_in(t, d["pairing"]).pk, user=a),
               applies=_reported, done=_("The reported result is confirmed.")),
    DeskAction("reject_report", _("Reject the reported result"), "pairing_reject_report",
               "pairing", RejectReportInput,
               lambda t, a, d: services.pairing_reject_report(
                   pairing_id=pairing_in(t, d["pairing"]).pk, user=a,
                   reason=d.get("reason", "").strip()),
               applies=_reported, done=_("The report is rejected.")),
    DeskAction("correct_result", _("Set or correct the result"), "pairing_override",
               "pairing", ResultInput, _override,
               applies=lambda p: _two_players(p) and not _over_the_board_open(p),
               done=_("The result is set.")),
    DeskAction("double_forfeit", _("Double forfeit"), "pairing_double_forfeit", "pairing",
               PairingReasonInput,
               lambda t, a, d: services.pairing_double_forfeit(
                   pairing_id=pairing_in(t, d["pairing"]).pk, actor=a, reason=d["reason"]),
               applies=_two_players, done=_("Both players lose by forfeit.")),
    DeskAction("set_table", _("Table number"), "pairing_set_board", "pairing", TableInput,
               lambda t, a, d: services.pairing_set_board(
                   pairing_id=pairing_in(t, d["pairing"]).pk, board_number=d["board_number"],
                   actor=a),
               applies=lambda p: p["status"] == "paired", done=_("The table is set.")),
    # Rounds
    DeskAction("round_start", _("Round start time"), "round_set_start", "round",
               RoundStartInput,
               lambda t, a, d: services.round_set_start(
                   tournament_id=t.pk, bracket=d["bracket"], number=d["number"],
                   starts_at=d["starts_at"], actor=a),
               done=_("The round's start time is saved.")),
)

BY_NAME: dict[str, DeskAction] = {action.name: action for action in ACTIONS}


# -- rights ----------------------------------------------------------------------------------


def role_of(user: Any, tournament: Tournament) -> str | None:
    """The user's role at this tournament's desk: director, referee, or none."""
    if selectors.can_direct(user, tournament):
        return DIRECTOR
    if selectors.is_referee(user, tournament):
        return REFEREE
    return None


def may(user: Any, tournament: Tournament, action: DeskAction) -> bool:
    """Whether the user's role has the action (whatever the event's state): the rights
    table's answer, which the services check too."""
    if action.rights in permissions.RIGHTS:
        return permissions.may(user, action.rights, tournament)
    role = role_of(user, tournament)
    return role == DIRECTOR or (role == REFEREE and action.role == REFEREE)


def allowed_actions(user: Any, tournament: Tournament) -> list[DeskAction]:
    """The actions the desk offers this user now: :func:`tournaments.permissions.
    allowed_actions` admits them (role, stage, event or not) and the desk's own checks."""
    admitted = permissions.allowed_actions(user, tournament)
    return [action for action in ACTIONS
            if (action.rights in admitted if action.rights in permissions.RIGHTS
                else may(user, tournament, action))
            and action.offered(tournament)]


def desk_tournaments(user: Any) -> QuerySet[Tournament]:
    """The tournaments whose desk the user may open (not divisions: they open from their
    event's desk)."""
    queryset = Tournament.objects.filter(event__isnull=True)
    if not getattr(user, "is_authenticated", False):
        return queryset.none()
    if user.is_superuser or (user.is_active and user.has_perm(selectors.REFEREE_PERMISSION)) or (
        user.is_staff and user.has_perm("tournaments.change_tournament")
    ):
        return queryset
    return queryset.filter(director=user)


# -- doing it ----------------------------------------------------------------------------------


def perform(user: Any, tournament: Tournament, action: DeskAction,
            data: dict[str, Any]) -> Any:
    """Validate ``data`` with the action's input and call its service as ``user``.

    Raises :class:`TournamentError` (``forbidden`` for a role without the action, the
    service's own codes otherwise) or DRF's ``ValidationError`` for bad input; either way
    nothing changed.
    """
    if not may(user, tournament, action):
        raise TournamentError("forbidden", gettext("Your role at this tournament cannot do that."))
    checked = action.input(data=data)
    checked.is_valid(raise_exception=True)
    return action.run(tournament, user, dict(checked.validated_data))


def result_dict(result: Any) -> dict[str, Any] | None:
    """What an action returned, as the API shows it."""
    if isinstance(result, Entry):
        result = Entry.objects.select_related("player").get(pk=result.pk)
        return {"entry": {**selectors.entry_dict(result), "paid": result.paid}}
    if isinstance(result, Pairing):
        row = Pairing.objects.select_related("round", "tournament", "entry_a__player",
                                             "entry_b__player").get(pk=result.pk)
        return {"pairing": selectors.pairing_dict(row, selectors.live_matches(row.tournament))}
    if isinstance(result, SidePool):
        return {"side_pool": treasury.side_pool_dict(result)}
    if isinstance(result, Tournament) and result.event_id is not None:
        return {"division": selectors.division_dict(result)}
    return None

