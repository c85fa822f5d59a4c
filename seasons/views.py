"""Arena pages: the list, one arena with its live leaderboard, joining and pausing, and the
organiser's form. Every change goes through :mod:`seasons.services`."""

from __future__ import annotations

from datetime import timedelta

from django.contrib import messages
from django.contrib.auth.decorators import login_required, permission_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from matches.errors import ServiceError
from matches.models import Player
from matches.players.accounts import player_for_user
from seasons import selectors, services
from seasons.forms import AddBotsForm, ArenaForm
from seasons.models import Arena
from seasons.services.arena import may_direct
from seasons.services.tables import template_clock_fields
from seasons.standings import club_season


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
    form = ArenaForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        starts = timezone.now() + timedelta(minutes=data["starts_in"])
        try:
            arena = services.arena_create(
                name=data["name"], starts_at=starts,
                ends_at=starts + timedelta(minutes=data["minutes"]),
                match_length=data["match_length"], creator=player_for_user(request.user),
                **template_clock_fields(data["clock"]))
        except ServiceError as error:
            form.add_error(None, error.detail)
        else:
            return redirect(reverse("seasons:arena", args=[arena.pk]))
    return render(request, "seasons/arena_new.html", {"form": form})


@require_GET
def arena_detail(request: HttpRequest, pk: int) -> HttpResponse:
    arena = get_object_or_404(Arena, pk=pk)
    context = selectors.arena_context(arena, request.user)
    if request.user.is_authenticated and may_direct(arena, player_for_user(request.user)):
        context["bots_form"] = AddBotsForm()
    return render(request, "seasons/arena.html", context)


@login_required
@require_POST
def arena_add_bots(request: HttpRequest, pk: int) -> HttpResponse:
    """The director's form: add gnubg bots of a strength to the arena."""
    arena = get_object_or_404(Arena, pk=pk)
    form = AddBotsForm(request.POST)
    if not form.is_valid():
        messages.error(request, " ".join(str(e) for errors in form.errors.values()
                                         for e in errors))
        return redirect(reverse("seasons:arena", args=[arena.pk]))
    try:
        added = services.arena_add_bots(arena_id=arena.pk, actor=player_for_user(request.user),
                                        **form.cleaned_data)
    except ServiceError as error:
        messages.error(request, error.detail)
    else:
        messages.success(request, _("%(count)s bots joined the arena.") % {"count": len(added)})
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
    try:
        services.arena_join(arena_id=arena.pk, player=player)
    except ServiceError as error:
        messages.error(request, error.detail)
    else:
        messages.success(request, _("You are in the arena: you will be paired at once."))
    return _to_match_or_arena(arena, player)


@login_required
@require_POST
def arena_pause(request: HttpRequest, pk: int) -> HttpResponse:
    arena = get_object_or_404(Arena, pk=pk)
    player = player_for_user(request.user)
    paused = request.POST.get("paused") == "1"
    try:
        services.arena_pause(arena_id=arena.pk, player=player, paused=paused)
    except ServiceError as error:
        messages.error(request, error.detail)
    else:
        messages.success(request, _("Paused: you will not be paired until you come back.")
                         if paused else _("Welcome back: you will be paired at once."))
    return _to_match_or_arena(arena, player)
