"""The referee admin: players, tables with grouped rules, and matches to review.

Matches, games and events are read-only for everyone: they change only through
:mod:`matches.services`, which the referee pages (replay, adjudicate, void, verify, ``.mat``
export; see :mod:`matches.referee.views`) call. Referees (the "Referees" group, created by a
migration) may view everything here and adjudicate, but edit no table and no user.
"""

from __future__ import annotations

from typing import Any

from django.apps import apps
from django.conf import settings
from django.contrib import admin
from django.core.exceptions import FieldDoesNotExist
from django.db.models import Q, QuerySet
from django.http import HttpRequest, HttpResponse
from django.urls import URLPattern, path, reverse
from django.utils.html import format_html
from django.utils.translation import gettext_lazy as _

from matches import services
from matches.chat import admin as chat_admin  # noqa: F401 - registers the chat models
from matches.models import Event, Game, Match, Player, RatingRecord, Table, Vacation
from matches.referee import analysis_admin  # noqa: F401 - registers the analysis pages
from matches.referee import views as admin_views
from matches.referee.read_only import ReadOnlyMixin
from matches.rules import rule_fieldsets
from matches.secret_fields import SecretFieldsGuard

# -- players -----------------------------------------------------------------------------------


class RatingRecordInline(ReadOnlyMixin, admin.TabularInline):
    model = RatingRecord
    fields = ("match", "before", "after", "created_at")
    readonly_fields = ("match", "before", "after", "created_at")
    extra = 0
    ordering = ["-created_at"]


@admin.register(Player)
class PlayerAdmin(SecretFieldsGuard, admin.ModelAdmin):
    list_display = ["display_name", "user", "rating", "experience"]
    search_fields = ["display_name", "user__username"]
    readonly_fields = ["rating", "experience"]
    inlines = [RatingRecordInline]


# -- tables ------------------------------------------------------------------------------------


@admin.register(Table)
class TableAdmin(SecretFieldsGuard, admin.ModelAdmin):
    list_display = ["name", "is_public", "is_rated", "match_length", "cube_enabled",
                    "gammons_enabled", "crawford", "clock_enabled", "seat0", "seat1",
                    "created_at"]
    list_filter = ["is_public", "is_rated", "cube_enabled", "gammons_enabled", "crawford",
                   "clock_enabled"]
    search_fields = ["name"]
    readonly_fields = ["created_by", "created_at", "seat0", "seat1"]
    fieldsets = [
        (None, {"fields": ["name", "created_by", "created_at"]}),
        (_("Seats"), {
            "fields": ["seat0", "seat1", "reserved0", "reserved1"],
            "description": _("Players sit and stand themselves; a tournament pairing "
                             "reserves the seats."),
        }),
        *rule_fieldsets(descriptions={"match": _(
            "A match keeps the rules it started with; changes apply to the next match at "
            "this table.")}),
    ]

    def get_fieldsets(self, request: HttpRequest, obj: Any = None) -> list[Any]:
        """Scripted dice exist only where settings allow them (``DEBUG`` on): elsewhere the
        field is absent, so nobody reads or sets the rolls to come."""
        fieldsets = list(super().get_fieldsets(request, obj))
        if settings.TAVLA_SCRIPTED_DICE:
            fieldsets.append((_("Testing"), {"fields": ["scripted_dice"],
                                             "classes": ["collapse"]}))
        return fieldsets

    def save_model(self, request: HttpRequest, obj: Table, form: Any, change: bool) -> None:
        if change:
            super().save_model(request, obj, form, change)
            return
        rules = {name: form.cleaned_data[name] for name in services.TABLE_RULE_FIELDS
                 if name in form.cleaned_data}
        created = services.table_create(name=obj.name, **rules)
        extra = {name: getattr(obj, name) for name in ("reserved0", "reserved1")}
        if settings.TAVLA_SCRIPTED_DICE:
            extra["scripted_dice"] = obj.scripted_dice
        Table.objects.filter(pk=created.pk).update(**extra)
        obj.pk, obj.created_at = created.pk, created.created_at


# -- matches -----------------------------------------------------------------------------------


class PlayerFilter(admin.SimpleListFilter):
    title = _("player")
    parameter_name = "player"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[Any, str]]:
        return [(player.pk, str(player)) for player in Player.objects.order_by("display_name")]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Any]) -> QuerySet[Any]:
        if self.value():
            return queryset.filter(Q(player0=self.value()) | Q(player1=self.value()))
        return queryset


class TournamentFilter(admin.SimpleListFilter):
    """Matches of one tournament (the tournaments app pairs its players into matches)."""

    title = _("tournament")
    parameter_name = "tournament"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[Any, str]]:
        tournament = apps.get_model("tournaments", "Tournament")
        return [(t.pk, str(t)) for t in tournament.objects.order_by("-pk")[:200]]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Any]) -> QuerySet[Any]:
        if self.value():
            return queryset.filter(tournament_pairing__tournament=self.value())
        return queryset


def _tournament_filter() -> list[Any]:
    """The tournament filter, once the tournaments app relates its pairings to matches."""
    try:
        apps.get_model("tournaments", "Pairing")._meta.get_field("match")
    except (LookupError, FieldDoesNotExist):
        return []
    return [TournamentFilter]


class GameInline(ReadOnlyMixin, admin.TabularInline):
    model = Game
    fields = ("number", "winner", "points", "cube_value", "ending", "finished_at")
    readonly_fields = ("number", "winner", "points", "cube_value", "ending", "finished_at")
    extra = 0


@admin.register(Match)
class MatchAdmin(SecretFieldsGuard, ReadOnlyMixin, admin.ModelAdmin):
    list_display = ["__str__", "table", "score", "status", "winner", "started_at",
                    "finished_at", "review"]
    list_filter = ["status", PlayerFilter, ("table", admin.RelatedOnlyFieldListFilter),
                   *_tournament_filter(), "started_at", "finished_at"]
    list_select_related = ["player0", "player1", "table", "winner"]
    date_hierarchy = "started_at"
    search_fields = ["=id", "player0__display_name", "player1__display_name", "table__name"]
    fieldsets = [
        (None, {"fields": ["table", "player0", "player1", "status", "score0", "score1",
                           "winner", "started_at", "finished_at"]}),
        (_("State"), {"fields": ["version", "deadline", "clock"]}),
        (_("Dice"), {"fields": ["dice_commitment", "seed", "dice_counter",
                                "dice_were_scripted"]}),
    ]
    readonly_fields = ["table", "player0", "player1", "status", "score0", "score1", "winner",
                       "started_at", "finished_at", "version", "deadline", "clock",
                       "dice_commitment", "seed", "dice_counter", "dice_were_scripted"]
    inlines = [GameInline]
    actions = ["verify_matches", "export_mat"]

    @admin.display(description=_("score"))
    def score(self, match: Match) -> str:
        return f"{match.score0}–{match.score1}"

    @admin.display(description=_("dice seed"))
    def seed(self, match: Match) -> str:
        return match.dice_seed if match.seed_revealed else str(_("(revealed at the end)"))

    @admin.display(description=_("review"))
    def review(self, match: Match) -> str:
        url = reverse("admin:matches_match_replay", args=[match.pk])
        return format_html('<a href="{}">{}</a>', url, _("replay"))

    def get_urls(self) -> list[URLPattern]:
        def wrap(view: Any, name: str) -> URLPattern:
            def page(request: HttpRequest, match_id: int) -> HttpResponse:
                return view(self, request, match_id)  # type: ignore[no-any-return]

            return path(f"<int:match_id>/{name}/", self.admin_site.admin_view(page),
                        name=f"matches_match_{name}")

        return [
            wrap(admin_views.replay_view, "replay"),
            wrap(admin_views.adjudicate_view, "adjudicate"),
            wrap(admin_views.adjudicate_figures_view, "adjudicate_figures"),
            wrap(admin_views.void_view, "void"),
            wrap(admin_views.verify_view, "verify"),
            wrap(admin_views.mat_view, "mat"),
            *super().get_urls(),
        ]

    def change_view(self, request: HttpRequest, object_id: str, form_url: str = "",
                    extra_context: dict[str, Any] | None = None) -> HttpResponse:
        extra = {**(extra_context or {}),
                 "may_adjudicate": request.user.has_perm(admin_views.ADJUDICATE_PERMISSION)}
        return super().change_view(request, object_id, form_url, extra)

    @admin.action(description=_("Verify: replay the log against the stored state"),
                  permissions=["view"])
    def verify_matches(self, request: HttpRequest, queryset: QuerySet[Match]) -> None:
        admin_views.report_verification(request, queryset)

    @admin.action(description=_("Export as .mat (several: a zip)"), permissions=["view"])
    def export_mat(self, request: HttpRequest, queryset: QuerySet[Match]) -> HttpResponse:
        return admin_views.mat_response(queryset)


@admin.register(Game)
class GameAdmin(SecretFieldsGuard, ReadOnlyMixin, admin.ModelAdmin):
    list_display = ["match", "number", "winner", "points", "cube_value", "ending", "finished_at"]
    list_filter = ["ending"]
    list_select_related = ["match__player0", "match__player1", "winner"]


@admin.register(Vacation)
class VacationAdmin(SecretFieldsGuard, ReadOnlyMixin, admin.ModelAdmin):
    """Read only: a vacation moves deadlines, so it starts and ends through
    matches.services.vacation (the player's page), never by editing a row."""

    list_display = ["player", "started_at", "ends_by", "ended_at"]
    list_select_related = ["player"]


@admin.register(Event)
class EventAdmin(SecretFieldsGuard, ReadOnlyMixin, admin.ModelAdmin):
    list_display = ["match", "sequence", "game_number", "kind", "actor", "created_at"]
    list_filter = ["kind"]
    search_fields = ["=match__id"]
    list_select_related = ["match__player0", "match__player1", "actor"]
