"""What each desk action takes: the DRF serializers behind the desk's forms and the write
API's bodies (:data:`tournaments.desk.ACTIONS` names one per action), so a form and an API
call are validated by one definition.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from django.utils.translation import gettext_lazy as _
from rest_framework import serializers

from tournaments.models import Eligibility


def reason_field(required: bool = True) -> serializers.CharField:
    return serializers.CharField(
        max_length=500, required=required, allow_blank=not required,
        label=_("Reason"), help_text=_("Why: goes to the tournament's log with your name."))


class NoInput(serializers.Serializer[Any]):
    """An action on the whole tournament that needs nothing more."""


class PlayerInput(serializers.Serializer[Any]):
    player = serializers.IntegerField(min_value=1, label=_("Player"),
                                      help_text=_("The player's id."))


class EntryInput(serializers.Serializer[Any]):
    entry = serializers.IntegerField(min_value=1, label=_("Entry"),
                                     help_text=_("The entry's id (see entries/)."))


class EntryReasonInput(EntryInput):
    reason = reason_field()


class PaidInput(EntryInput):
    paid = serializers.BooleanField(default=True, label=_("Paid"))


class SidePoolInput(EntryInput):
    side_pool = serializers.IntegerField(min_value=1, label=_("Side pool"))
    member = serializers.BooleanField(default=True, label=_("In the pool"))


class DivisionInput(EntryReasonInput):
    division = serializers.IntegerField(min_value=1, label=_("Division"))
    reason = reason_field(required=False)


class PairingInput(serializers.Serializer[Any]):
    pairing = serializers.IntegerField(min_value=1, label=_("Pairing"),
                                       help_text=_("The pairing's id (see bracket/)."))


class PairingReasonInput(PairingInput):
    reason = reason_field()


class RejectReportInput(PairingInput):
    reason = reason_field(required=False)


class ResultInput(PairingReasonInput):
    winner = serializers.IntegerField(min_value=1, label=_("Winner"),
                                      help_text=_("The winner's entry id."))
    winner_points = serializers.IntegerField(min_value=0, max_value=999, required=False,
                                             allow_null=True, label=_("Winner's points"))
    loser_points = serializers.IntegerField(min_value=0, max_value=999, required=False,
                                            allow_null=True, label=_("Loser's points"))


class TableInput(PairingInput):
    board_number = serializers.IntegerField(min_value=1, max_value=999,
                                            label=_("Table number"))


class RoundStartInput(serializers.Serializer[Any]):
    bracket = serializers.CharField(max_length=16, label=_("Bracket"))
    number = serializers.IntegerField(min_value=1, max_value=999, label=_("Round"))
    starts_at = serializers.DateTimeField(allow_null=True, label=_("Starts at"),
                                          help_text=_("Empty (null): no time."))


class ReasonInput(serializers.Serializer[Any]):
    reason = reason_field()


class SwapInput(serializers.Serializer[Any]):
    pairing_a = serializers.IntegerField(min_value=1, label=_("Pairing A"))
    entry_a = serializers.IntegerField(min_value=1, label=_("Player A"),
                                       help_text=_("An entry id of pairing A."))
    pairing_b = serializers.IntegerField(min_value=1, label=_("Pairing B"))
    entry_b = serializers.IntegerField(min_value=1, label=_("Player B"),
                                       help_text=_("An entry id of pairing B."))
    reason = reason_field()  # last: the form reads in the order the director fills it


class RatingInput(EntryReasonInput):
    rating = serializers.FloatField(min_value=0, max_value=5000, label=_("Rating"))


def _amount(label: Any, *, percent: bool = False, **kwargs: Any) -> serializers.DecimalField:
    if percent:
        return serializers.DecimalField(max_digits=5, decimal_places=2, min_value=0,
                                        max_value=100, label=label, **kwargs)
    return serializers.DecimalField(max_digits=9, decimal_places=2, min_value=0, label=label,
                                    **kwargs)


def _optional(field: type[serializers.Field[Any, Any, Any, Any]], label: Any,
              **kwargs: Any) -> Any:
    """A field left out (or null) to keep the setting as it is."""
    return field(required=False, allow_null=True, label=label, **kwargs)


def _table_field(label: Any, **kwargs: Any) -> serializers.CharField:
    return serializers.CharField(max_length=60, allow_blank=True, label=label,
                                 help_text=_("A preset or percentages, e.g. 50/30/20; empty: "
                                             "all to the winner."), **kwargs)


class MoneyInput(serializers.Serializer[Any]):
    """The money settings; each one left out (or null) stays as it is."""

    entry_fee = _amount(_("Entry fee"), required=False, allow_null=True)
    currency = serializers.CharField(max_length=8, required=False, allow_null=True,
                                     allow_blank=True, label=_("Currency"))
    return_percent = _amount(_("Return to players (%)"), percent=True, required=False,
                             allow_null=True)
    payout_table = _table_field(_("Payout table"), required=False, allow_null=True)
    consolation_percent = _amount(_("Consolation flight's share (%)"), percent=True,
                                  required=False, allow_null=True)
    consolation_payout_table = _table_field(_("Consolation payout table"), required=False,
                                            allow_null=True)
    last_chance_percent = _amount(_("Last chance flight's share (%)"), percent=True,
                                  required=False, allow_null=True)
    last_chance_payout_table = _table_field(_("Last chance payout table"), required=False,
                                            allow_null=True)
    forfeit_prize_on_disqualification = serializers.BooleanField(
        required=False, label=_("A disqualified player forfeits their place and prize"))
    reason = reason_field(required=False)


class SidePoolCreateInput(serializers.Serializer[Any]):
    name = serializers.CharField(max_length=60, label=_("Name"))
    fee = _amount(_("Fee"))
    return_percent = _amount(_("Return to players (%)"), percent=True, default=Decimal(100))
    payout_table = _table_field(_("Payout table"), default="100")
    reason = reason_field(required=False)


class SidePoolTarget(serializers.Serializer[Any]):
    side_pool = serializers.IntegerField(min_value=1, label=_("Side pool"),
                                         help_text=_("The side pool's id (see money/)."))


class SidePoolEditInput(SidePoolTarget):
    name = _optional(serializers.CharField, _("Name"), max_length=60)
    fee = _amount(_("Fee"), required=False, allow_null=True)
    return_percent = _amount(_("Return to players (%)"), percent=True, required=False,
                             allow_null=True)
    payout_table = _table_field(_("Payout table"), required=False, allow_null=True)
    reason = reason_field(required=False)


class SidePoolDeleteInput(SidePoolTarget):
    reason = reason_field(required=False)


class DivisionEditInput(serializers.Serializer[Any]):
    """A division's settings; each one left out stays as it is, a limit set to null is
    cleared."""

    division = serializers.IntegerField(min_value=1, label=_("Division"),
                                        help_text=_("The division's id (see divisions in "
                                                    "GET <id>/)."))
    name = _optional(serializers.CharField, _("Name"), max_length=120)
    division_order = _optional(serializers.IntegerField, _("Order"), min_value=0,
                               max_value=1000)
    eligibility = _optional(serializers.ChoiceField, _("Eligibility"),
                            choices=Eligibility.choices)
    min_rating = _optional(serializers.FloatField, _("Minimum rating"), min_value=0,
                           max_value=5000)
    max_rating = _optional(serializers.FloatField, _("Maximum rating (exclusive)"),
                           min_value=0, max_value=5000)
    min_experience = _optional(serializers.IntegerField, _("Minimum experience"),
                               min_value=0, max_value=2**31 - 1)
    max_experience = _optional(serializers.IntegerField, _("Maximum experience (exclusive)"),
                               min_value=0, max_value=2**31 - 1)
    reason = reason_field(required=False)

