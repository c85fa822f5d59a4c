"""An event's set-up as the director changes it from the desk or the API: the money (fee,
currency, return, payout tables, the flights' shares, prize forfeiture), side pools, and a
division's name, order and eligibility.

Every change is the director's, logged with who, why and each value before and after. The
rules:

- **Money** may change in any stage (payouts are worked out from the settings whenever they
  are shown), but once the event has started a change needs a written reason. An event with
  divisions keeps no money of its own: each division has its own fee and pools.
- **Side pools** are created, changed and deleted the same way; a pool with players in it is
  not deleted (take them out first: their paid-in mark would be lost).
- **A division** is changed while it and its event have not started (its players are fixed
  at the start); the new limits apply to registrations from then on, and nobody already
  placed is moved (the director assigns players by hand, :func:`division_assign`).

Bad input raises :class:`~tournaments.services.common.TournamentError` (``bad_request``
with the field, ``reason_required``, ``already_started``, ``pool_not_empty``) and changes
nothing.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any, Final

from django.db import transaction
from django.utils.translation import gettext as _

from tournaments.models import Eligibility, SidePool, Tournament, TournamentStatus
from tournaments.money import MoneyError, check_payout_table, parse_payout_table
from tournaments.services.common import (
    TournamentError,
    announce,
    has_divisions,
    locked,
    log_action,
    require_director,
)

# The money settings a director changes, as the model names them.
MONEY_FIELDS: Final = (
    "entry_fee", "currency", "return_percent", "payout_table", "consolation_percent",
    "consolation_payout_table", "last_chance_percent", "last_chance_payout_table",
    "forfeit_prize_on_disqualification",
)
_TABLES: Final = ("payout_table", "consolation_payout_table", "last_chance_payout_table")
_PERCENTS: Final = ("return_percent", "consolation_percent", "last_chance_percent")
# A fee fits the model's 9 digits with 2 decimals.
_MAX_FEE: Final = Decimal("9999999.99")
DIVISION_FIELDS: Final = ("name", "division_order", "eligibility", "min_rating", "max_rating",
                          "min_experience", "max_experience")


def _reason(tournament: Tournament, reason: str) -> str:
    reason = (reason or "").strip()
    if not reason and tournament.has_started:
        raise TournamentError("reason_required",
                              _("The event has started: say why its set-up changes."))
    return reason


def _decimal(value: Any, field: str, *, maximum: Decimal) -> Decimal:
    if isinstance(value, bool) or not isinstance(value, (Decimal, int, str)):
        raise TournamentError("bad_request",
                              _("%(field)s must be a number.") % {"field": field}, field=field)
    try:
        number = Decimal(str(value))
    except ArithmeticError:
        raise TournamentError("bad_request",
                              _("%(field)s must be a number.") % {"field": field}, field=field) \
            from None
    if not number.is_finite() or number < 0 or number > maximum:
        raise TournamentError("bad_request",
                              _("%(field)s must be from 0 to %(maximum)s.")
                              % {"field": field, "maximum": maximum},
                              field=field)
    if number != number.quantize(Decimal("0.01")):
        raise TournamentError("bad_request",
                              _("%(field)s has at most two decimals.")
                              % {"field": field}, field=field)
    return number.quantize(Decimal("0.01"))


def _table(value: Any, field: str) -> str:
    text = str(value or "").strip()
    if len(text) > 60:
        raise TournamentError("bad_request", _("A payout table is at most 60 characters."),
                              field=field)
    try:
        check_payout_table(parse_payout_table(text or "100"))
    except MoneyError as error:
        raise TournamentError("bad_request", _(error.template) % error.params,
                              field=field) from None
    return text


def _currency(value: Any) -> str:
    text = str(value or "").strip()
    if not 1 <= len(text) <= 8 or any(c.isspace() for c in text):
        raise TournamentError("bad_request", _("A currency is 1 to 8 characters, like EUR."),
                              field="currency")
    return text


def _clean_money(field: str, value: Any) -> Any:
    if field == "entry_fee":
        return _decimal(value, field, maximum=_MAX_FEE)
    if field in _PERCENTS:
        return _decimal(value, field, maximum=Decimal(100))
    if field in _TABLES:
        return _table(value, field)
    if field == "currency":
        return _currency(value)
    if not isinstance(value, bool):
        raise TournamentError("bad_request",
                              _("%(field)s is true or false.") % {"field": field}, field=field)
    return value


def _changes(before: dict[str, Any], after: dict[str, Any]) -> dict[str, list[str]]:
    """``{field: [before, after]}`` of what changed, as the log keeps it."""
    return {k: [str(before[k]), str(after[k])] for k in after if before[k] != after[k]}


@transaction.atomic
def tournament_set_money(*, tournament_id: int, actor: Any, reason: str = "",
                         **changes: Any) -> Tournament:
    """Change the money settings named in ``changes`` (:data:`MONEY_FIELDS`; the others stay
    as they are). The two flights' shares together are at most 100 %."""
    tournament = locked(tournament_id)
    require_director(actor, tournament)
    unknown = sorted(set(changes) - set(MONEY_FIELDS))
    if unknown:
        raise TournamentError("bad_request",
                              _("No money setting %(unknown)s.") % {"unknown": unknown[0]},
                              field=unknown[0])
    if has_divisions(tournament.pk):
        raise TournamentError("bad_request", _("An event with divisions keeps no money of its "
                              "own: set it on each division."))
    reason = _reason(tournament, reason)
    clean = {field: _clean_money(field, value) for field, value in changes.items()}
    merged = {f: clean.get(f, getattr(tournament, f)) for f in _PERCENTS}
    if merged["consolation_percent"] + merged["last_chance_percent"] > 100:
        raise TournamentError("bad_request", _("The flights' shares add up to more than 100 %."),
                              field="consolation_percent")
    before = {f: getattr(tournament, f) for f in clean}
    changed = _changes(before, clean)
    if not changed:
        return tournament
    for field, value in clean.items():
        setattr(tournament, field, value)
    tournament.save(update_fields=list(clean))
    log_action(tournament, "money_set", actor=actor, reason=reason, changes=changed)
    announce(tournament)
    return tournament


# -- side pools ------------------------------------------------------------------------------


def _pool_values(values: dict[str, Any]) -> dict[str, Any]:
    clean: dict[str, Any] = {}
    for field, value in values.items():
        if field == "name":
            name = str(value or "").strip()
            if not 1 <= len(name) <= 60:
                raise TournamentError("bad_request", _("A side pool's name is 1 to 60 "
                                      "characters."), field="name")
            clean[field] = name
        elif field == "fee":
            clean[field] = _decimal(value, "fee", maximum=_MAX_FEE)
        elif field == "return_percent":
            clean[field] = _decimal(value, field, maximum=Decimal(100))
        elif field == "payout_table":
            clean[field] = _table(value, field) or "100"
        else:
            raise TournamentError("bad_request",
                                  _("A side pool has no setting %(field)s.") % {"field": field},
                                  field=field)
    return clean


def _pool_of(side_pool_id: int, tournament_id: int | None = None) -> SidePool:
    side = SidePool.objects.filter(pk=side_pool_id).first()
    if side is None or (tournament_id is not None and side.tournament_id != tournament_id):
        raise TournamentError("not_found",
                              _("There is no side pool %(side_pool_id)s in this tournament.")
                              % {"side_pool_id": side_pool_id}, field="side_pool")
    return side


@transaction.atomic
def side_pool_create(*, tournament_id: int, name: str, fee: Any, actor: Any,
                     return_percent: Any = Decimal(100), payout_table: str = "100",
                     reason: str = "") -> SidePool:
    """A new side pool (a jackpot, a side bet) with its fee, return and payout table; the
    referees then put the players who paid into it (:func:`side_pool_enter`)."""
    tournament = locked(tournament_id)
    require_director(actor, tournament)
    if has_divisions(tournament.pk):
        raise TournamentError("bad_request", _("An event with divisions keeps no side pools: "
                              "add them to a division."))
    reason = _reason(tournament, reason)
    clean = _pool_values({"name": name, "fee": fee, "return_percent": return_percent,
                          "payout_table": payout_table})
    side = SidePool.objects.create(tournament=tournament, **clean)
    log_action(tournament, "side_pool_created", actor=actor, reason=reason, pool=side.name,
               side_pool=side.pk, fee=str(side.fee), return_percent=str(side.return_percent),
               payout_table=side.payout_table)
    announce(tournament)
    return side


@transaction.atomic
def side_pool_update(*, side_pool_id: int, actor: Any, reason: str = "",
                     tournament_id: int | None = None, **changes: Any) -> SidePool:
    """Change a side pool's ``name``, ``fee``, ``return_percent`` or ``payout_table`` (the
    ones given). ``tournament_id``: refuse a pool of another tournament."""
    side = _pool_of(side_pool_id, tournament_id)
    tournament = locked(side.tournament_id)
    require_director(actor, tournament)
    reason = _reason(tournament, reason)
    clean = _pool_values(changes)
    changed = _changes({f: getattr(side, f) for f in clean}, clean)
    if not changed:
        return side
    for field, value in clean.items():
        setattr(side, field, value)
    side.save(update_fields=list(clean))
    log_action(tournament, "side_pool_changed", actor=actor, reason=reason, pool=side.name,
               side_pool=side.pk, changes=changed)
    announce(tournament)
    return side


@transaction.atomic
def side_pool_delete(*, side_pool_id: int, actor: Any, reason: str = "",
                     tournament_id: int | None = None) -> None:
    """Delete a side pool nobody is in (``pool_not_empty`` otherwise)."""
    side = _pool_of(side_pool_id, tournament_id)
    tournament = locked(side.tournament_id)
    require_director(actor, tournament)
    reason = _reason(tournament, reason)
    if side.entries.exists():
        raise TournamentError("pool_not_empty",
                              _("%(name)s has players in it: take them out first.")
                              % {"name": side.name})
    log_action(tournament, "side_pool_deleted", actor=actor, reason=reason, pool=side.name,
               side_pool=side.pk, fee=str(side.fee))
    side.delete()
    announce(tournament)


# -- divisions ---------------------------------------------------------------------------------


def _clean_division(field: str, value: Any) -> Any:
    if field == "name":
        name = str(value or "").strip()
        if not 1 <= len(name) <= 120:
            raise TournamentError("bad_request", _("A division needs a name of 1 to 120 "
                                  "characters."), field="name")
        return name
    if field == "eligibility":
        if value not in Eligibility.values:
            raise TournamentError("bad_request", _("No such eligibility."), field="eligibility")
        return value
    if field == "division_order":
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 1000:
            raise TournamentError("bad_request", _("A division's order is 0 to 1000."),
                                  field=field)
        return value
    if value is None:
        return None
    if field in ("min_rating", "max_rating"):
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not (
                0 <= value <= 5000):
            raise TournamentError("bad_request", _("A rating limit is 0 to 5000."), field=field)
        return float(value)
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 2**31 - 1:
        raise TournamentError("bad_request", _("An experience limit is a whole number of "
                              "points, 0 or more."), field=field)
    return value


@transaction.atomic
def division_update(*, division_id: int, actor: Any, reason: str = "",
                    **changes: Any) -> Tournament:
    """Change a division's ``name``, ``division_order``, ``eligibility`` and its rating and
    experience limits (the ones given; ``None`` clears a limit) before it and its event
    start. A minimum is below its maximum."""
    division = Tournament.objects.filter(pk=division_id, event__isnull=False).first()
    if division is None:
        raise TournamentError("not_found",
                              _("There is no division %(division_id)s.")
                              % {"division_id": division_id},
                              field="division")
    assert division.event_id is not None
    event = locked(division.event_id)
    require_director(actor, event)
    unknown = sorted(set(changes) - set(DIVISION_FIELDS))
    if unknown:
        raise TournamentError("bad_request",
                              _("A division has no setting %(unknown)s.") % {"unknown": unknown[0]},
                              field=unknown[0])
    division = Tournament.objects.select_for_update().get(pk=division_id)
    if event.has_started or division.has_started or event.status not in (
            TournamentStatus.DRAFT, TournamentStatus.REGISTRATION, TournamentStatus.CHECK_IN):
        raise TournamentError("already_started", _("A division's players are fixed at its "
                              "start: it can no longer be changed."))
    clean = {field: _clean_division(field, value) for field, value in changes.items()}
    merged = {f: clean.get(f, getattr(division, f)) for f in DIVISION_FIELDS}
    for low, high in (("min_rating", "max_rating"), ("min_experience", "max_experience")):
        if merged[low] is not None and merged[high] is not None and merged[low] >= merged[high]:
            raise TournamentError("bad_request", _("A minimum is below its maximum."), field=high)
    changed = _changes({f: getattr(division, f) for f in clean}, clean)
    if not changed:
        return division
    for field, value in clean.items():
        setattr(division, field, value)
    division.save(update_fields=list(clean))
    log_action(event, "division_changed", actor=actor, reason=(reason or "").strip(),
               division=division.name, division_id=division.pk, changes=changed)
    announce(event)
    announce(division)
    return division
