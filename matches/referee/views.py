"""The referee's pages inside the admin: the move-by-move replay, adjudicate, void, verify and
``.mat`` export of one match. :class:`matches.admin.MatchAdmin` wires them into its URLs and
passes itself as ``admin``; the views use only what every ``ModelAdmin`` has (site,
permissions, log), so they need not import it back.

Every change is a call to :mod:`matches.services`; these views only ask and show.
"""

from __future__ import annotations

import io
import zipfile
from collections.abc import Iterable
from typing import Any

from django import forms
from django.contrib import messages
from django.contrib.admin import ModelAdmin
from django.core.exceptions import PermissionDenied
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect, JsonResponse
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.html import format_html
from django.utils.translation import gettext_lazy as _

from matches import services
from matches.audit import PHASES, ReplayStep, mat_export, mat_filename, replay_steps
from matches.errors import ServiceError
from matches.gnubg.adjudication import (
    figures_for_decision,
    figures_status,
    with_chances,
)
from matches.models import Match, MatchStatus
from matches.review import review_data
from matches.ui_strings import board_strings, review_strings
from tavla.engine import EngineError
from tavla.engine.match import MatchState

ADJUDICATE_PERMISSION = "matches.adjudicate_match"

# -- forms ------------------------------------------------------------------------------------


class AdjudicateForm(forms.Form):
    winner = forms.TypedChoiceField(label=_("Award to"), coerce=int, widget=forms.RadioSelect)
    scope = forms.ChoiceField(
        label=_("Award"), widget=forms.RadioSelect,
        choices=[("game", _("the current game")), ("match", _("the whole match"))],
    )
    points = forms.IntegerField(
        label=_("Points"), required=False, min_value=1,
        help_text=_("Empty: the cube value for a game; for the match, what the winner still "
                    "needs."),
    )
    reason = forms.CharField(label=_("Reason"), widget=forms.Textarea(attrs={"rows": 4}),
                             help_text=_("Recorded in the match's log with your name."))
    # The version of the match the referee saw: the decision is refused if it moved on, and
    # the figures recorded with it are the worker's for this version.
    version = forms.IntegerField(widget=forms.HiddenInput, min_value=0)

    def __init__(self, *args: Any, match: Match, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        field = self.fields["winner"]
        assert isinstance(field, forms.TypedChoiceField)
        field.choices = [(0, str(match.player0)), (1, str(match.player1))]


class VoidForm(forms.Form):
    reason = forms.CharField(label=_("Reason"), widget=forms.Textarea(attrs={"rows": 4}),
                             help_text=_("Recorded in the match's log with your name."))


# -- views ------------------------------------------------------------------------------------


def _context(admin: ModelAdmin[Match], request: HttpRequest, match: Match,
             title: str, **extra: Any) -> dict[str, Any]:
    return {
        **admin.admin_site.each_context(request),
        "opts": admin.model._meta,
        "original": match,
        "match": match,
        "title": title,
        "has_view_permission": admin.has_view_permission(request, match),
        "may_adjudicate": request.user.has_perm(ADJUDICATE_PERMISSION),
        "change_url": reverse("admin:matches_match_change", args=[match.pk]),
        **extra,
    }


def get_match(admin: ModelAdmin[Match], request: HttpRequest, match_id: int) -> Match:
    match = get_object_or_404(
        Match.objects.select_related("player0", "player1", "table", "winner"), pk=match_id)
    if not admin.has_view_permission(request, match):
        raise PermissionDenied
    return match


def _step_row(index: int, step: ReplayStep) -> dict[str, Any]:
    state = step.state
    return {
        "index": index,
        "event": step.event,
        "description": step.description,
        "game": step.event.game_number,
        "score": f"{state.score[0]}–{state.score[1]}",
        "cube": state.cube_value,
        "changed": step.changed,
    }


def replay_view(admin: ModelAdmin[Match], request: HttpRequest, match_id: int) -> HttpResponse:
    """The board after any event of the log (``?step=N`` opens there; stepping happens in the
    page, on the review component), with the whole log beside it."""
    match = get_match(admin, request, match_id)
    error = None
    steps: list[ReplayStep] = []
    try:
        steps = list(replay_steps(match))
    except (EngineError, ValueError, KeyError) as exc:
        error = str(exc)
    index = len(steps) - 1
    raw = request.GET.get("step")
    if raw is not None and raw.lstrip("-").isdigit():
        index = max(0, min(int(raw), len(steps) - 1))
    current = steps[index] if steps else None
    state = current.state if current else None
    context = _context(
        admin, request, match, _("Replay of match #%(id)s") % {"id": match.pk},
        steps=[_step_row(i, step) for i, step in enumerate(steps)],
        step=_step_row(index, current) if current else None,
        index=index,
        start=index,
        previous=index - 1 if index > 0 else None,
        next=index + 1 if index + 1 < len(steps) else None,
        last=len(steps) - 1,
        # the same board component as the players' review page, one frame per log entry
        review=review_data(match, with_log=True) if error is None else None,
        strings=board_strings() | review_strings(),
        state=state,
        phase_text=PHASES.get(state.phase.value, state.phase.value) if state else "",
        dice=list(state.dice) if state and state.dice else None,
        pips=state.pip_counts() if state else None,
        on_roll=None if state is None or state.player_on_roll is None
        else match.players()[state.player_on_roll],
        cube_owner=None if state is None or state.cube_owner is None
        else match.players()[state.cube_owner],
        error=error,
    )
    return TemplateResponse(request, "admin/matches/match/replay.html", context)


def adjudicate_view(admin: ModelAdmin[Match], request: HttpRequest, match_id: int) -> HttpResponse:
    """The adjudication form. gnubg's figures are asked of an analysis worker when the page
    opens (:mod:`matches.gnubg.adjudication`) and filled in by the page when they arrive;
    nothing is evaluated in this process."""
    match = get_match(admin, request, match_id)
    if not request.user.has_perm(ADJUDICATE_PERMISSION):
        raise PermissionDenied
    change_url = reverse("admin:matches_match_change", args=[match.pk])
    if match.is_finished:
        messages.error(request, _("This match is over: there is nothing to adjudicate."))
        return HttpResponseRedirect(change_url)
    form = AdjudicateForm(request.POST or None, match=match, initial={"version": match.version})
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        if data["version"] != match.version:
            # Decided on a position that is no longer the match's: show the current one.
            fresh = request.POST.copy()
            fresh["version"] = str(match.version)
            form = AdjudicateForm(fresh, match=match)
            form.is_valid()
            form.add_error(None, _(
                "The match has moved on since you opened this page (version %(seen)s, now "
                "%(now)s): look at the position again and decide.")
                % {"seen": data["version"], "now": match.version})
        else:
            chances = figures_for_decision(match, request.user, match.version)
            try:
                services.match_adjudicate(
                    match_id=match.pk, referee=request.user,
                    winner=match.players()[data["winner"]], scope=data["scope"],
                    reason=with_chances(data["reason"], match, chances),
                    points=data["points"], expected_version=data["version"],
                )
            except ServiceError as error:
                form.add_error(None, error.detail)
            else:
                admin.log_change(request, match, f"Adjudicated the {data['scope']}: "
                                                 f"{data['reason']}")
                messages.success(request, format_html(
                    "The {} was awarded to {}.", data["scope"], match.players()[data["winner"]]))
                return HttpResponseRedirect(change_url)
    figures = figures_status(match, request.user, match.version, ask=True)
    context = _context(
        admin, request, match, f"Adjudicate match #{match.pk}", form=form,
        state=MatchState.from_dict(match.snapshot), figures=figures,
        figures_url=reverse("admin:matches_match_adjudicate_figures", args=[match.pk]),
    )
    return TemplateResponse(request, "admin/matches/match/adjudicate.html", context)


def adjudicate_figures_view(admin: ModelAdmin[Match], request: HttpRequest,
                            match_id: int) -> HttpResponse:
    """gnubg's figures for the adjudication page, as JSON: ``?version=N`` is the version the
    page shows. Polled by the page; never evaluates, never queues (the form did)."""
    match = get_match(admin, request, match_id)
    if not request.user.has_perm(ADJUDICATE_PERMISSION):
        raise PermissionDenied
    raw = request.GET.get("version", "")
    if not raw.isdigit():
        return JsonResponse({"error": "invalid_version",
                             "detail": str(_("Give the version the page shows: ?version=N."))},
                            status=400)
    figures = figures_status(match, request.user, int(raw), ask=False)
    return JsonResponse(figures.as_json(), headers={"Cache-Control": "no-store"})


def void_view(admin: ModelAdmin[Match], request: HttpRequest, match_id: int) -> HttpResponse:
    match = get_match(admin, request, match_id)
    if not request.user.has_perm(ADJUDICATE_PERMISSION):
        raise PermissionDenied
    change_url = reverse("admin:matches_match_change", args=[match.pk])
    if match.is_finished:
        messages.error(request, _("This match is over: it can no longer be voided."))
        return HttpResponseRedirect(change_url)
    form = VoidForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            services.match_void(match_id=match.pk, referee=request.user,
                                reason=form.cleaned_data["reason"])
        except ServiceError as error:
            form.add_error(None, error.detail)
        else:
            admin.log_change(request, match, f"Voided: {form.cleaned_data['reason']}")
            messages.success(request, _("The match was voided."))
            return HttpResponseRedirect(change_url)
    context = _context(admin, request, match, _("Void match #%(id)s") % {"id": match.pk},
                       form=form)
    return TemplateResponse(request, "admin/matches/match/void.html", context)


def report_verification(request: HttpRequest, matches: Iterable[Match]) -> None:
    for match in matches:
        result = services.match_verify(match_id=match.pk)
        if result.ok:
            messages.success(request, _("Match #%(id)s verified: %(detail)s.")
                             % {"id": match.pk, "detail": result.detail})
        else:
            messages.error(request, _("Match #%(id)s does NOT verify: %(detail)s.")
                           % {"id": match.pk, "detail": result.detail})


def verify_view(admin: ModelAdmin[Match], request: HttpRequest, match_id: int) -> HttpResponse:
    match = get_match(admin, request, match_id)
    if request.method != "POST":
        return HttpResponse(status=405, headers={"Allow": "POST"})
    report_verification(request, [match])
    return HttpResponseRedirect(reverse("admin:matches_match_change", args=[match.pk]))


def mat_view(admin: ModelAdmin[Match], request: HttpRequest, match_id: int) -> HttpResponse:
    return mat_response(Match.objects.filter(pk=get_match(admin, request, match_id).pk))


def mat_response(matches: QuerySet[Match]) -> HttpResponse:
    """One match as a ``.mat`` download; several as a zip of ``.mat`` files."""
    chosen = list(matches.select_related("player0", "player1", "table"))
    if len(chosen) == 1:
        response = HttpResponse(mat_export(chosen[0]), content_type="text/plain; charset=utf-8")
        response["Content-Disposition"] = f'attachment; filename="{mat_filename(chosen[0])}"'
        return response
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for match in chosen:
            archive.writestr(mat_filename(match), mat_export(match))
    response = HttpResponse(buffer.getvalue(), content_type="application/zip")
    response["Content-Disposition"] = 'attachment; filename="tavla-matches.zip"'
    return response


def status_label(match: Match) -> str:
    return str(MatchStatus(match.status).label)
