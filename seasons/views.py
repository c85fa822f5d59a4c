"""Arena pages: the list, one arena with its live leaderboard, joining and pausing, and the
organiser's form. Every change goes through :mod:`seasons.services`."""

from __future__ import annotations

from datetime import timedelta
from functools import partial
from typing import Any

from django.contrib.auth.decorators import login_required, permission_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from matches.models import Player
from matches.players.accounts import player_for_user
from seasons import selectors, services
from seasons.forms import ArenaForm
from seasons.models import Arena
from seasons.services.arena import may_direct
from seasons.services.tables import template_clock_fields
from seasons.standings import club_season
from seasons.view_helpers import add_bots, create_page, director_page, perform


@require_GET
def home(request: HttpRequest) -> HttpResponse:
    """The club's home page, with this season's standings (:mod:`seasons.standings`)."""
    season = club_season()
    return render(request, "home.html", {"season": season, "leaders": season.lines[:10],
                                         "most_active": season.most_active[:5]})


@require_GET
def arena_list(request: HttpRequest) -> HttpResponse:
    return render(request, "seasons/arena_list.html", {
        "arenas": selectors.arena_rows(timezone.now()),
        "may_create": request.user.has_perm("seasons.add_arena")})


@permission_required("seasons.add_arena")
def arena_new(request: HttpRequest) -> HttpResponse:
    return create_page(request, ArenaForm, "seasons/arena_new.html",
                       lambda data: _arena_create(request, data),
                       lambda arena: reverse("seasons:arena", args=[arena.pk]))


def _arena_create(request: HttpRequest, data: dict[str, Any]) -> Arena:
    """The form gives when it starts and how long it lasts; the service takes the times."""
    starts = timezone.now() + timedelta(minutes=data["starts_in"])
    return services.arena_create(
        name=data["name"], starts_at=starts,
        ends_at=starts + timedelta(minutes=data["minutes"]),
        match_length=data["match_length"], creator=player_for_user(request.user),
        **template_clock_fields(data["clock"]))


@require_GET
def arena_detail(request: HttpRequest, pk: int) -> HttpResponse:
    arena = get_object_or_404(Arena, pk=pk)
    return director_page(request, "seasons/arena.html",
                         selectors.arena_context(arena, request.user),
                         lambda player: may_direct(arena, player))


@login_required
@require_POST
def arena_add_bots(request: HttpRequest, pk: int) -> HttpResponse:
    """The director's form: add gnubg bots of a strength to the arena."""
    arena = get_object_or_404(Arena, pk=pk)
    add_bots(request, partial(services.arena_add_bots, arena_id=arena.pk),
             _("%(count)s bots joined the arena."))
    return redirect(reverse("seasons:arena", args=[arena.pk]))


@require_GET
def arena_live(request: HttpRequest, pk: int) -> HttpResponse:
    """The live part the page refetches when the socket says the arena changed."""
    arena = get_object_or_404(Arena, pk=pk)
    return render(request, "seasons/_arena_live.html",
                  selectors.arena_context(arena, request.user))


def _to_match_or_arena(arena: Arena, player: Player) -> HttpResponse:
    """To the player's match if they were paired at once, else back to the arena (whose page
    takes them to their match when they are paired)."""
    table_id = selectors.current_table_id(arena, player)
    if table_id is not None:
        return redirect(reverse("table", args=[table_id]))
    return redirect(reverse("seasons:arena", args=[arena.pk]))


@login_required
@require_POST
def arena_join(request: HttpRequest, pk: int) -> HttpResponse:
    arena = get_object_or_404(Arena, pk=pk)
    player = player_for_user(request.user)
    perform(request, lambda: services.arena_join(arena_id=arena.pk, player=player),
            lambda _entry: _("You are in the arena: you will be paired at once."))
    return _to_match_or_arena(arena, player)


@login_required
@require_POST
def arena_pause(request: HttpRequest, pk: int) -> HttpResponse:
    arena = get_object_or_404(Arena, pk=pk)
    player = player_for_user(request.user)
    paused = request.POST.get("paused") == "1"
    perform(request,
            lambda: services.arena_pause(arena_id=arena.pk, player=player, paused=paused),
            lambda _entry: _("Paused: you will not be paired until you come back.")
            if paused else _("Welcome back: you will be paired at once."))
    return _to_match_or_arena(arena, player)
