"""The director's and the referees' admin: configure a tournament (format, seeding, rounds
and their match lengths, table template, entries) and run it with actions that call the
services.

Rows that the services own (pairings, the log) are read-only here: every change to them is
an action with a reason, and is logged. Referees (``tournaments.referee_tournament``, the
Referees group) see tournaments, entries, pairings and the log, and have the referee's
actions: enter or correct a result, record a double forfeit, reinstate a player.
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin, messages
from django.contrib.admin import helpers
from django.db import models
from django.db.models import Count, Q, QuerySet
from django.http import HttpRequest, HttpResponse
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.html import format_html
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from matches.errors import ServiceError
from matches.models import Player
from matches.referee.read_only import ReadOnlyMixin
from matches.rules import rule_fieldsets
from tournaments import formats, money, services
from tournaments.models import (
    Entry,
    EntryStatus,
    Pairing,
    PairingStatus,
    Round,
    SidePool,
    Tournament,
    TournamentLog,
)
from tournaments.permissions import can_direct_club
from tournaments.selectors import REFEREE_PERMISSION


class TournamentForm(forms.ModelForm):
    class Meta:
        model = Tournament
        fields = "__all__"

    # Bookkeeping and division settings a plain tournament leaves alone: left empty, they
    # keep their defaults (no fee, everything returned, open to anyone).
    OPTIONAL_WITH_DEFAULT = ("entry_fee", "currency", "return_percent", "payout_table",
                             "division_order", "eligibility", "consolation_percent",
                             "consolation_payout_table", "last_chance_percent",
                             "last_chance_payout_table")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for name in self.OPTIONAL_WITH_DEFAULT:
            if name in self.fields:
                self.fields[name].required = False

    def _clean_default(self, name: str) -> Any:
        value = self.cleaned_data.get(name)
        if value in (None, ""):
            field = Tournament._meta.get_field(name)
            assert isinstance(field, models.Field)
            return field.get_default()
        return value

    def clean_entry_fee(self) -> Any:
        return self._clean_default("entry_fee")

    def clean_return_percent(self) -> Any:
        return self._clean_default("return_percent")

    def clean_consolation_percent(self) -> Any:
        return self._clean_default("consolation_percent")

    def clean_last_chance_percent(self) -> Any:
        return self._clean_default("last_chance_percent")

    def clean_division_order(self) -> Any:
        return self._clean_default("division_order")

    def clean_eligibility(self) -> Any:
        return self._clean_default("eligibility")

    def clean_correspondence_days(self) -> Any:
        days = self.cleaned_data.get("correspondence_days")
        if days is not None and not 1 <= days <= 7:
            raise forms.ValidationError(_("A correspondence clock gives 1 to 7 days per move."))
        return days

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        options = data.get("format_options") or {}
        if not isinstance(options, dict):
            self.add_error("format_options", _("Enter a JSON object, e.g. {\"rounds\": 5}."))
        elif data.get("format"):
            try:
                formats.get_format(data["format"], **options)
            except formats.PairingError as error:
                self.add_error("format_options", gettext(error.template) % error.params)
        lengths = data.get("match_lengths")
        if "match_lengths" in self.fields and not (
            isinstance(lengths, list) and lengths
            and all(isinstance(n, int) and not isinstance(n, bool) and 1 <= n <= 99
                    for n in lengths)
        ):
            self.add_error("match_lengths",
                           _("A list of match lengths (1 to 99 points), e.g. [3, 5, 7]."))
        for name in ("payout_table", "consolation_payout_table", "last_chance_payout_table"):
            if data.get(name):
                try:
                    money.parse_payout_table(data[name])
                except money.MoneyError as error:
                    self.add_error(name, gettext(error.template) % error.params)
        shares = [data.get(name) or 0 for name in ("consolation_percent", "last_chance_percent")]
        if sum(shares) > 100:
            self.add_error("consolation_percent",
                           _("The flights' shares add up to more than 100 %."))
        return data


class EntryInline(admin.TabularInline):
    model = Entry
    extra = 0
    fields = ("player", "seed", "status", "checked_in", "paid", "registered_at")
    readonly_fields = ("status", "paid", "registered_at")
    raw_id_fields = ("player",)
    ordering = ("seed", "registered_at")

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> Any:
        if obj is not None and obj.has_started:
            return ("player", "seed", "status", "checked_in", "paid", "registered_at")
        return self.readonly_fields

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return super().has_add_permission(request, obj) and not (obj and obj.has_started)

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return super().has_delete_permission(request, obj) and not (obj and obj.has_started)


class SidePoolInline(admin.TabularInline):
    """Side pools are set up here; who is in one: :func:`services.side_pool_enter`."""

    model = SidePool
    extra = 0
    fields = ("name", "fee", "return_percent", "payout_table")


class RoundInline(admin.TabularInline):
    """Match lengths of the rounds the draw created; change a later round's here. The start
    time is read-only: it is set on the director's desk through
    :func:`tournaments.services.round_set_start` (logged, pushed live to players)."""

    model = Round
    extra = 0
    fields = ("bracket", "number", "match_length", "starts_at")
    readonly_fields = ("bracket", "number", "starts_at")
    verbose_name_plural = _("rounds (a changed match length applies to tables created after)")

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


class LogInline(ReadOnlyMixin, admin.TabularInline):  # type: ignore[type-arg]
    model = TournamentLog
    extra = 0
    fields = ("created_at", "actor", "action", "reason", "data")
    readonly_fields = fields
    ordering = ("-created_at", "-pk")
    classes = ("collapse",)


def _each(modeladmin: admin.ModelAdmin, request: HttpRequest, queryset: QuerySet[Any],
          call: Any, done: str) -> None:
    count = 0
    for obj in queryset:
        try:
            call(obj)
        except ServiceError as error:
            modeladmin.message_user(request, f"{obj}: {error.detail}", messages.ERROR)
        else:
            count += 1
    if count:
        modeladmin.message_user(request, f"{done}: {count}", messages.SUCCESS)


@admin.register(Tournament)
class TournamentAdmin(admin.ModelAdmin):
    form = TournamentForm
    list_display = ("name", "format", "status", "entry_count", "director", "champion",
                    "created_at")
    list_filter = ("status", "format")
    search_fields = ("name",)
    inlines = [EntryInline, SidePoolInline, RoundInline, LogInline]
    readonly_fields = ("status", "rng_seed", "current_round", "champion", "started_at",
                       "finished_at", "view_on_site_link")
    fieldsets = (
        (None, {"fields": ("name", "description", "director", "status",
                           "view_on_site_link")}),
        (_("Format and seeding"), {"fields": ("format", "format_options", "seeding",
                                              "rng_seed", "max_entries")}),
        (_("Rounds"), {"fields": ("match_lengths", "auto_pair", "over_the_board",
                                  "no_show_minutes",
                                  ("late_penalty_points", "late_penalty_minutes"))}),
        # The table template: every rule a tournament's tables are played by.
        *rule_fieldsets(template=True, prefix=_("Table template: ")),
        (_("Money (bookkeeping only)"), {"fields": (
            "entry_fee", "currency", "return_percent", "payout_table", "consolation_percent",
            "consolation_payout_table", "last_chance_percent", "last_chance_payout_table",
            "forfeit_prize_on_disqualification")}),
        (_("Division of an event"), {"classes": ("collapse",), "fields": (
            "event", "division_order", "eligibility", "min_rating", "max_rating",
            "min_experience", "max_experience")}),
        (_("Progress"), {"fields": ("current_round", "champion", "started_at",
                                    "finished_at")}),
    )
    actions = ["open_registration", "open_check_in", "start", "pair_next_round", "reseed",
               "late_entry"]

    @admin.action(description=_("Late entry (after the start)"), permissions=["change"])
    def late_entry(self, request: HttpRequest,
                   queryset: QuerySet[Tournament]) -> HttpResponse | None:
        tournament = _one(self, request, queryset)
        if tournament is None:
            return None
        form = LateEntryForm(request.POST if "apply" in request.POST else None)
        if form.is_valid():
            _apply(self, request, lambda: services.entry_register_late(
                tournament_id=tournament.pk, player=form.cleaned_data["player"],
                actor=request.user), _("Late entry accepted, seeded last."))
            return None
        return _reason_page(self, request, [tournament], form, _("Late entry"), "late_entry")

    def get_queryset(self, request: HttpRequest) -> QuerySet[Tournament]:
        return super().get_queryset(request).annotate(
            active_entries=Count("entries", filter=Q(entries__status=EntryStatus.ACTIVE)))

    @admin.display(description=_("entries"), ordering="active_entries")
    def entry_count(self, obj: Tournament) -> int:
        return getattr(obj, "active_entries", 0)

    @admin.display(description=_("page"))
    def view_on_site_link(self, obj: Tournament) -> str:
        if obj.pk is None:
            return "-"
        url = reverse("tournaments:detail", args=[obj.pk])
        return format_html('<a href="{}">{}</a>', url, url)

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> Any:
        fields = list(self.readonly_fields)
        if obj is not None and obj.has_started:
            # The draw is made: its rules are fixed (change a round's length in Rounds).
            fields += ["format", "format_options", "seeding", "match_lengths", "max_entries"]
        return fields

    def save_model(self, request: HttpRequest, obj: Tournament, form: Any, change: bool) -> None:
        if not change and obj.director_id is None:
            obj.director = request.user  # type: ignore[assignment]
        super().save_model(request, obj, form, change)

    @admin.action(description=_("Open registration"), permissions=["change"])
    def open_registration(self, request: HttpRequest, queryset: QuerySet[Tournament]) -> None:
        _each(self, request, queryset, lambda t: services.tournament_open_registration(
            tournament_id=t.pk, actor=request.user), "Registration opened")

    @admin.action(description=_("Open check-in"), permissions=["change"])
    def open_check_in(self, request: HttpRequest, queryset: QuerySet[Tournament]) -> None:
        _each(self, request, queryset, lambda t: services.tournament_open_check_in(
            tournament_id=t.pk, actor=request.user), "Check-in opened")

    @admin.action(description=_("Start (make the draw, pair round 1)"), permissions=["change"])
    def start(self, request: HttpRequest, queryset: QuerySet[Tournament]) -> None:
        _each(self, request, queryset, lambda t: services.tournament_start(
            tournament_id=t.pk, actor=request.user), "Started")

    @admin.action(description=_("Pair next round"), permissions=["change"])
    def pair_next_round(self, request: HttpRequest, queryset: QuerySet[Tournament]) -> None:
        _each(self, request, queryset, lambda t: services.tournament_pair_next_round(
            tournament_id=t.pk, actor=request.user), "Paired")

    @admin.action(description=_("Reseed (before the start)"), permissions=["change"])
    def reseed(self, request: HttpRequest, queryset: QuerySet[Tournament]) -> None:
        _each(self, request, queryset, lambda t: services.tournament_reseed(
            tournament_id=t.pk, actor=request.user), "Reseeded")


class ReasonForm(forms.Form):
    reason = forms.CharField(label=_("Reason"), widget=forms.Textarea(attrs={"rows": 3}))


class BoardForm(forms.Form):
    board_number = forms.IntegerField(label=_("Table number"), min_value=1, max_value=999)


class LateEntryForm(forms.Form):
    player = forms.ModelChoiceField(label=_("Player"), queryset=Player.objects.all())


class DivisionForm(forms.Form):
    division = forms.ModelChoiceField(label=_("Division"),
                                      queryset=Tournament.objects.filter(event__isnull=False))
    reason = forms.CharField(label=_("Reason"), required=False)


class RefereeActions:
    """``permissions=["referee"]`` on an admin action: only for tournament referees (and
    directors); ``permissions=["director"]``: only for directors. The roles are
    :data:`tournaments.permissions.RIGHTS`'s, so the admin offers nobody an action the
    service would refuse them; the service checks again, for the tournament at hand."""

    def has_referee_permission(self, request: HttpRequest) -> bool:
        return bool(request.user.has_perm(REFEREE_PERMISSION))

    def has_director_permission(self, request: HttpRequest) -> bool:
        return can_direct_club(request.user)


def _reason_page(modeladmin: admin.ModelAdmin, request: HttpRequest, objects: list[Any],
                 form: forms.Form, title: Any, action: str) -> TemplateResponse:
    return TemplateResponse(request, "tournaments/admin/reason_action.html", {
        **modeladmin.admin_site.each_context(request),
        "title": title, "objects": objects, "form": form, "action": action,
        "opts": modeladmin.model._meta,
        "action_checkbox_name": helpers.ACTION_CHECKBOX_NAME,
    })


def _one(modeladmin: admin.ModelAdmin, request: HttpRequest, queryset: QuerySet[Any]
         ) -> Any | None:
    rows = list(queryset)
    if len(rows) != 1:
        modeladmin.message_user(request, _("Choose exactly one."), messages.ERROR)
        return None
    return rows[0]


def _apply(modeladmin: admin.ModelAdmin, request: HttpRequest, call: Any, done: Any) -> None:
    try:
        call()
    except ServiceError as error:
        modeladmin.message_user(request, error.detail, messages.ERROR)
    else:
        modeladmin.message_user(request, done, messages.SUCCESS)


@admin.register(Entry)
class EntryAdmin(RefereeActions, admin.ModelAdmin):
    list_display = ("player", "tournament", "seed", "status", "checked_in", "paid", "late",
                    "registered_at")
    list_filter = ("status", "paid", "tournament")
    search_fields = ("player__display_name", "tournament__name")
    raw_id_fields = ("player", "tournament")
    readonly_fields = ("status", "left_at", "registered_at", "paid", "late")
    actions = ["withdraw", "disqualify", "reinstate", "mark_paid", "mark_unpaid",
               "assign_division"]

    @admin.action(description=_("Assign to a division of the event"),
                  permissions=["director"])
    def assign_division(self, request: HttpRequest,
                        queryset: QuerySet[Entry]) -> HttpResponse | None:
        form = DivisionForm(request.POST if "apply" in request.POST else None)
        if form.is_valid():
            _each(self, request, queryset, lambda e: services.division_assign(
                entry_id=e.pk, division_id=form.cleaned_data["division"].pk,
                actor=request.user, reason=form.cleaned_data["reason"]), "Assigned")
            return None
        return _reason_page(self, request, list(queryset), form, _("Assign to a division"),
                            "assign_division")

    @admin.action(description=_("Mark the entry fee paid"), permissions=["referee"])
    def mark_paid(self, request: HttpRequest, queryset: QuerySet[Entry]) -> None:
        _each(self, request, queryset, lambda e: services.entry_set_paid(
            entry_id=e.pk, paid=True, actor=request.user), "Marked paid")

    @admin.action(description=_("Mark the entry fee not paid"), permissions=["referee"])
    def mark_unpaid(self, request: HttpRequest, queryset: QuerySet[Entry]) -> None:
        _each(self, request, queryset, lambda e: services.entry_set_paid(
            entry_id=e.pk, paid=False, actor=request.user), "Marked not paid")

    @admin.action(description=_("Reinstate (paired again from the next pairing), with a "
                                "reason"), permissions=["referee"])
    def reinstate(self, request: HttpRequest, queryset: QuerySet[Entry]) -> HttpResponse | None:
        entry = _one(self, request, queryset.select_related("player", "tournament"))
        if entry is None:
            return None
        form = ReasonForm(request.POST if "apply" in request.POST else None)
        if form.is_valid():
            _apply(self, request, lambda: services.entry_reinstate(
                entry_id=entry.pk, actor=request.user, reason=form.cleaned_data["reason"]),
                _("%(player)s is back in the tournament.") % {"player": entry.player})
            return None
        return _reason_page(self, request, [entry], form,
                            _("Reinstate %(player)s") % {"player": entry.player}, "reinstate")

    @admin.action(description=_("Withdraw (future matches are forfeited)"),
                  permissions=["director"])
    def withdraw(self, request: HttpRequest, queryset: QuerySet[Entry]) -> None:
        _each(self, request, queryset, lambda e: services.entry_withdraw(
            entry_id=e.pk, actor=request.user, reason="withdrawn by the director"), "Withdrawn")

    @admin.action(description=_("Disqualify, with a reason"), permissions=["director"])
    def disqualify(self, request: HttpRequest, queryset: QuerySet[Entry]) -> HttpResponse | None:
        if "apply" in request.POST:
            form = ReasonForm(request.POST)
            if form.is_valid():
                _each(self, request, queryset, lambda e: services.entry_withdraw(
                    entry_id=e.pk, actor=request.user, reason=form.cleaned_data["reason"],
                    disqualify=True), "Disqualified")
                return None
        else:
            form = ReasonForm()
        return TemplateResponse(request, "tournaments/admin/reason_action.html", {
            **self.admin_site.each_context(request),
            "title": _("Disqualify"), "objects": queryset, "form": form,
            "action": "disqualify", "opts": self.model._meta,
            "action_checkbox_name": helpers.ACTION_CHECKBOX_NAME,
        })


class OverrideForm(forms.Form):
    winner = forms.TypedChoiceField(label=_("Winner"), coerce=int)
    winner_points = forms.IntegerField(label=_("Winner's points"), required=False, min_value=0)
    loser_points = forms.IntegerField(label=_("Loser's points"), required=False, min_value=0)
    reason = forms.CharField(label=_("Reason"), widget=forms.Textarea(attrs={"rows": 3}))

    def __init__(self, *args: Any, pairing: Pairing, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        field = self.fields["winner"]
        assert isinstance(field, forms.TypedChoiceField)
        field.choices = [(e.pk, str(e.player)) for e in pairing.entries()]


@admin.register(Pairing)
class PairingAdmin(RefereeActions, admin.ModelAdmin):
    list_display = ("slot", "tournament", "round", "board_number", "entry_a", "entry_b",
                    "status", "winner", "score", "result_source", "table")
    list_filter = ("status", "result_source", "tournament")
    search_fields = ("slot", "tournament__name", "entry_a__player__display_name",
                     "entry_b__player__display_name")
    list_select_related = ("tournament", "round", "entry_a__player", "entry_b__player",
                           "winner__player", "table")
    actions = ["override_result", "double_forfeit", "set_board_number"]

    @admin.action(description=_("Move to another table number"), permissions=["referee"])
    def set_board_number(self, request: HttpRequest,
                         queryset: QuerySet[Pairing]) -> HttpResponse | None:
        row = _one(self, request, queryset)
        if row is None:
            return None
        form = BoardForm(request.POST if "apply" in request.POST else None)
        if form.is_valid():
            _apply(self, request, lambda: services.pairing_set_board(
                pairing_id=row.pk, board_number=form.cleaned_data["board_number"],
                actor=request.user), _("Table number changed."))
            return None
        return _reason_page(self, request, [row], form,
                            _("Table number of %(pairing)s") % {"pairing": row},
                            "set_board_number")

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False  # read-only: results change through the override action, logged

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    @admin.display(description=_("score"))
    def score(self, obj: Pairing) -> str:
        if obj.winner_points is None:
            return ""
        return f"{obj.winner_points}–{obj.loser_points}"

    @admin.action(description=_("Enter or correct the result, with a reason"),
                  permissions=["referee"])
    def override_result(self, request: HttpRequest,
                        queryset: QuerySet[Pairing]) -> HttpResponse | None:
        """A pairing waiting for an over-the-board result gets the referee's result; any
        other (a live match, a decided or confirmed result) is overridden."""
        rows = list(queryset.select_related("entry_a__player", "entry_b__player", "tournament"))
        if len(rows) != 1:
            self.message_user(request, _("Choose exactly one pairing."), messages.ERROR)
            return None
        row = rows[0]
        if row.status not in (PairingStatus.PAIRED, PairingStatus.DECIDED):
            self.message_user(request, _("This pairing has no two players to decide between."),
                              messages.ERROR)
            return None
        if "apply" in request.POST:
            form = OverrideForm(request.POST, pairing=row)
            if form.is_valid():
                data = form.cleaned_data
                result = {"pairing_id": row.pk, "winner_entry_id": data["winner"],
                          "winner_points": data["winner_points"],
                          "loser_points": data["loser_points"], "reason": data["reason"]}
                if row.status == PairingStatus.PAIRED and row.tournament.over_the_board:
                    _apply(self, request, lambda: services.pairing_enter_result(
                        referee=request.user, **result), _("Result entered."))
                else:
                    _apply(self, request, lambda: services.pairing_override(
                        actor=request.user, **result), _("Result corrected."))
                return None
        else:
            form = OverrideForm(pairing=row, initial={"winner": row.winner_id})
        return _reason_page(self, request, rows, form,
                            _("Enter or correct the result of %(pairing)s") % {"pairing": row},
                            "override_result")

    @admin.action(description=_("Record a double forfeit (both lose), with a reason"),
                  permissions=["referee"])
    def double_forfeit(self, request: HttpRequest,
                       queryset: QuerySet[Pairing]) -> HttpResponse | None:
        row = _one(self, request, queryset.select_related("tournament"))
        if row is None:
            return None
        form = ReasonForm(request.POST if "apply" in request.POST else None)
        if form.is_valid():
            _apply(self, request, lambda: services.pairing_double_forfeit(
                pairing_id=row.pk, actor=request.user, reason=form.cleaned_data["reason"]),
                _("Double forfeit recorded."))
            return None
        return _reason_page(self, request, [row], form,
                            _("Record a double forfeit in %(pairing)s") % {"pairing": row},
                            "double_forfeit")


@admin.register(TournamentLog)
class TournamentLogAdmin(ReadOnlyMixin, admin.ModelAdmin):  # type: ignore[type-arg]
    list_display = ("created_at", "tournament", "action", "actor", "pairing", "reason")
    list_filter = ("action", "tournament")
    search_fields = ("reason", "action")
