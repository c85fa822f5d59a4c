"""The admin's view of club seasons: arenas, ladders and leagues with everything they hold,
for directors and referees to read.

Every row here belongs to :mod:`seasons.services` (an arena's pairings, a ladder's order
that must equal the replay of its history, a league's seasons built through the
tournaments' services), so nothing is added, edited or deleted in the admin: arenas,
ladders and leagues are created and run from their pages, and the few things a director
may do here are actions that call the services: pair an arena's free players now, check a
ladder's order against its history, start a league's next season.
"""

from __future__ import annotations

from typing import Any

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest
from django.urls import reverse
from django.utils.html import format_html
from django.utils.translation import gettext_lazy as _

from matches.errors import ServiceError
from matches.referee.read_only import ReadOnlyMixin
from seasons import services
from seasons.models import (
    Arena,
    ArenaEntry,
    ArenaGame,
    Ladder,
    LadderChallenge,
    LadderEntry,
    LadderEvent,
    League,
    LeagueMember,
    LeagueSeason,
)


def _page_link(url: str) -> str:
    return format_html('<a href="{}">{}</a>', url, url)


class SeasonAdmin(ReadOnlyMixin, admin.ModelAdmin):  # type: ignore[type-arg]
    """Read-only; ``permissions=["direct"]`` on an action: for who may create the model
    from its page (the permission the pages ask, e.g. ``seasons.add_league``)."""

    def has_direct_permission(self, request: HttpRequest) -> bool:
        return bool(request.user.has_perm(f"seasons.add_{self.model._meta.model_name}"))

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> Any:
        return [f.name for f in self.model._meta.fields] + list(self.readonly_fields)


class ReadOnlyInline(ReadOnlyMixin, admin.TabularInline):  # type: ignore[type-arg]
    extra = 0
    show_change_link = True


# -- arenas --------------------------------------------------------------------------------


class ArenaEntryInline(ReadOnlyInline):
    model = ArenaEntry
    fields = readonly_fields = ("player", "joined_at", "paused", "free_since")


class ArenaGameInline(ReadOnlyInline):
    model = ArenaGame
    fields = readonly_fields = ("match", "player_a", "player_b", "created_at", "winner",
                                "finished_at")


@admin.register(Arena)
class ArenaAdmin(SeasonAdmin):
    list_display = ("name", "starts_at", "ends_at", "closed_at", "match_length", "created_by")
    list_filter = ("closed_at",)
    search_fields = ("name",)
    inlines = [ArenaEntryInline, ArenaGameInline]
    readonly_fields = ("page",)
    actions = ["pair_now"]

    @admin.display(description=_("page"))
    def page(self, obj: Arena) -> str:
        return _page_link(reverse("seasons:arena", args=[obj.pk]))

    @admin.action(description=_("Pair the free players now"), permissions=["direct"])
    def pair_now(self, request: HttpRequest, queryset: QuerySet[Arena]) -> None:
        for arena in queryset:
            try:
                games = services.arena_pair(arena_id=arena.pk)
            except ServiceError as error:
                self.message_user(request, f"{arena}: {error.detail}", messages.ERROR)
            else:
                self.message_user(request, _("%(arena)s: %(count)s matches started.")
                                  % {"arena": arena, "count": len(games)}, messages.SUCCESS)


@admin.register(ArenaEntry)
class ArenaEntryAdmin(SeasonAdmin):
    list_display = ("arena", "player", "joined_at", "paused")
    list_filter = ("paused",)
    search_fields = ("arena__name", "player__display_name")


@admin.register(ArenaGame)
class ArenaGameAdmin(SeasonAdmin):
    list_display = ("arena", "player_a", "player_b", "winner", "created_at", "finished_at")
    search_fields = ("arena__name", "player_a__display_name", "player_b__display_name")


# -- ladders -------------------------------------------------------------------------------


class LadderEntryInline(ReadOnlyInline):
    model = LadderEntry
    fields = readonly_fields = ("place", "player", "joined_at", "active_at", "dropped_at")


@admin.register(Ladder)
class LadderAdmin(SeasonAdmin):
    list_display = ("name", "scope", "reach", "match_length", "correspondence_days",
                    "created_by")
    search_fields = ("name", "scope")
    inlines = [LadderEntryInline]
    readonly_fields = ("page",)
    actions = ["check_order"]

    @admin.display(description=_("page"))
    def page(self, obj: Ladder) -> str:
        return _page_link(reverse("ladders:ladder", args=[obj.pk]))

    @admin.action(description=_("Check the order against the history"))
    def check_order(self, request: HttpRequest, queryset: QuerySet[Ladder]) -> None:
        for ladder in queryset:
            problems = services.ladder_check(ladder)
            if problems:
                self.message_user(request, f"{ladder}: {'; '.join(problems)}", messages.ERROR)
            else:
                self.message_user(request, _("%(ladder)s: the order is the replay of its "
                                             "history.") % {"ladder": ladder},
                                  messages.SUCCESS)


@admin.register(LadderEntry)
class LadderEntryAdmin(SeasonAdmin):
    list_display = ("ladder", "place", "player", "joined_at", "active_at")
    search_fields = ("ladder__name", "player__display_name")


@admin.register(LadderChallenge)
class LadderChallengeAdmin(SeasonAdmin):
    list_display = ("ladder", "challenger", "defender", "status", "created_at", "accept_by",
                    "play_by", "winner", "forfeit")
    list_filter = ("status", "forfeit")
    search_fields = ("ladder__name", "challenger__display_name", "defender__display_name")


@admin.register(LadderEvent)
class LadderEventAdmin(SeasonAdmin):
    list_display = ("ladder", "sequence", "at", "kind", "player", "defender", "winner",
                    "forfeit", "places")
    list_filter = ("kind",)
    search_fields = ("ladder__name", "player__display_name")


# -- leagues -------------------------------------------------------------------------------


class LeagueMemberInline(ReadOnlyInline):
    model = LeagueMember
    fields = readonly_fields = ("player", "enrolled_at")


class LeagueSeasonInline(ReadOnlyInline):
    model = LeagueSeason
    fields = readonly_fields = ("number", "event", "created_at")


@admin.register(League)
class LeagueAdmin(SeasonAdmin):
    list_display = ("name", "divisions", "division_size", "move", "match_length",
                    "round_days", "correspondence_days", "created_by")
    search_fields = ("name",)
    inlines = [LeagueMemberInline, LeagueSeasonInline]
    readonly_fields = ("page",)
    actions = ["start_season"]

    @admin.display(description=_("page"))
    def page(self, obj: League) -> str:
        return _page_link(reverse("leagues:league", args=[obj.pk]))

    @admin.action(description=_("Start the next season (the first, or after promotion and "
                                "relegation)"), permissions=["direct"])
    def start_season(self, request: HttpRequest, queryset: QuerySet[League]) -> None:
        for league in queryset:
            try:
                season = services.league_start_season(league_id=league.pk,
                                                      actor=request.user)
            except ServiceError as error:
                self.message_user(request, f"{league}: {error.detail}", messages.ERROR)
            else:
                self.message_user(request, _("%(league)s: season %(number)s has started.")
                                  % {"league": league, "number": season.number},
                                  messages.SUCCESS)


@admin.register(LeagueMember)
class LeagueMemberAdmin(SeasonAdmin):
    list_display = ("league", "player", "enrolled_at")
    search_fields = ("league__name", "player__display_name")


@admin.register(LeagueSeason)
class LeagueSeasonAdmin(SeasonAdmin):
    list_display = ("league", "number", "event", "created_at")
    search_fields = ("league__name",)
