"""The referee admin's analysis pages: stored analyses (read-only) and the fair-play list
(:mod:`matches.referee.fairplay`), which never acts by itself."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.template.response import TemplateResponse
from django.urls import URLPattern, path
from django.utils.translation import gettext_lazy as _

from matches.models import MatchAnalysis
from matches.referee import fairplay
from matches.referee.read_only import ReadOnlyMixin
from matches.secret_fields import SecretFieldsGuard


@admin.register(MatchAnalysis)
class MatchAnalysisAdmin(SecretFieldsGuard, ReadOnlyMixin, admin.ModelAdmin):
    list_display = ["match", "status", "plies", "pr0", "pr1", "seconds", "finished_at"]
    list_filter = ["status", "plies"]
    list_select_related = ["match__player0", "match__player1"]
    exclude = ["decisions"]
    readonly_fields = ["match", "status", "plies", "engine", "players", "pr0", "pr1",
                       "error", "requested_at", "finished_at", "seconds"]
    change_list_template = "admin/matches/matchanalysis/change_list.html"

    def get_urls(self) -> list[URLPattern]:
        return [
            path("fair-play/", self.admin_site.admin_view(self.fair_play_view),
                 name="matches_matchanalysis_fair_play"),
            *super().get_urls(),
        ]

    def fair_play_view(self, request: HttpRequest) -> HttpResponse:
        if not self.has_view_permission(request):
            raise PermissionDenied
        context: dict[str, Any] = {
            **self.admin_site.each_context(request),
            "opts": self.model._meta,
            "title": _("Fair-play review"),
            "cases": fairplay.fair_play_cases(),
            "last_n": fairplay.LAST_N, "min_history": fairplay.MIN_HISTORY,
            "threshold": fairplay.THRESHOLD, "min_decisions": fairplay.MIN_DECISIONS,
            "min_sd": fairplay.MIN_SD,
        }
        return TemplateResponse(request, "admin/matches/fair_play.html", context)
