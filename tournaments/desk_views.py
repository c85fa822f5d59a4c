"""The director's desk: pages of our own for running an event (not the Django admin).

``/tournaments/desk/`` lists the events the user may run and creates one from a template;
``/tournaments/desk/players/`` is the club's players (CSV import and export, ratings);
``/tournaments/<id>/desk/`` is one event's desk: its actions, entries, bracket and pairings
with their results, round start times and the log. Every form posts to
``/tournaments/<id>/desk/<action>/``, which runs :func:`tournaments.desk.perform` (the same
call as the write API) and comes back to the desk with the outcome, or the refusal, on top.
"""

from __future__ import annotations

import re
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import get_object_or_404, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST
from rest_framework import serializers
from rest_framework.exceptions import ValidationError

from matches.errors import ServiceError
from matches.models import Player
from tournaments import desk, desk_log, permissions, selectors, services, treasury
from tournaments.desk_api import (
    CreateSerializer,
    RatingSerializer,
    csv_response,
    describe_fields,
)
from tournaments.models import (
    Eligibility,
    Entry,
    FormatName,
    Pairing,
    PairingStatus,
    Tournament,
    TournamentStatus,
)
from tournaments.money import PAYOUT_PRESETS
from tournaments.services.creation import TEMPLATES, can_create


def _desk_tournament(request: HttpRequest, pk: int) -> Tournament:
    tournament = get_object_or_404(Tournament, pk=pk)
    if desk.role_of(request.user, tournament) is None:
        raise PermissionDenied
    return tournament


def _errors_text(error: ValidationError) -> str:
    detail = error.detail
    if isinstance(detail, dict):
        return " ".join(f"{field}: {' '.join(str(m) for m in messages_)}"
                        for field, messages_ in detail.items())
    return " ".join(str(m) for m in detail) if isinstance(detail, list) else str(detail)


@require_GET
@login_required
def desk_list(request: HttpRequest) -> HttpResponse:
    tournaments = desk.desk_tournaments(request.user)
    if not tournaments.exists() and not can_create(request.user):
        raise PermissionDenied
    return render(request, "tournaments/desk_list.html", {
        "tournaments": tournaments, "templates": TEMPLATES.values(),
        "payout_presets": list(PAYOUT_PRESETS), "can_create": can_create(request.user),
        "statuses": TournamentStatus,
        "can_direct_club": permissions.can_direct_club(request.user),
    })


def _create_data(request: HttpRequest) -> dict[str, Any]:
    """The create form as the API's input: a field left empty is left out, and the match
    lengths are typed as a list ("5, 5, 7": a browser has no list field)."""
    data: dict[str, Any] = {key: request.POST.get(key) for key in request.POST
                            if key != "csrfmiddlewaretoken" and request.POST.get(key) != ""}
    if "match_lengths" in data:
        data["match_lengths"] = [part for part in re.split(r"[\s,;/]+",
                                                           str(data["match_lengths"])) if part]
    return data


@require_POST
@login_required
def desk_create(request: HttpRequest) -> HttpResponse:
    """Create a tournament from a template, or (with ``event``) a division of an event,
    which brings the director back to the event's desk to add the next one."""
    event = request.POST.get("event", "")
    back = (reverse("tournaments:desk", args=[int(event)]) + "#desk-divisions"
            if event.isdigit() else reverse("tournaments:desk_list"))
    data = CreateSerializer(data=_create_data(request))
    try:
        data.is_valid(raise_exception=True)
        tournament = services.tournament_create_from_template(actor=request.user,
                                                              **data.validated_data)
    except ValidationError as error:
        messages.error(request, _errors_text(error))
        return HttpResponseRedirect(back)
    except ServiceError as error:
        messages.error(request, error.detail)
        return HttpResponseRedirect(back)
    if tournament.event_id is not None:
        messages.success(request, _("The division is created."))
        return HttpResponseRedirect(back)
    messages.success(request, _("The tournament is created (a draft)."))
    return HttpResponseRedirect(reverse("tournaments:desk", args=[tournament.pk]))


def _form(spec: desk.DeskAction, choices: dict[str, list[tuple[Any, str]]],
          hidden: dict[str, Any], label: str = "",
          values: dict[str, Any] | None = None) -> dict[str, Any]:
    """One action as the desk draws its form: the target as hidden fields, the rest as
    inputs (a choice where the desk knows the choices, or the field has its own), filled in
    with ``values`` (an edit form shows what is set now)."""
    fields = []
    own = spec.fields()
    for field in describe_fields(spec):
        name = field["name"]
        if name in hidden:
            continue
        options = choices.get(name)
        own_field = own[name]
        if options is None and isinstance(own_field, serializers.ChoiceField):
            options = [(key, str(text)) for key, text in own_field.choices.items()]
        value = (values or {}).get(name)
        fields.append({**field, "choices": options,
                       "value": "" if value is None else value})
    return {"spec": spec, "fields": fields, "hidden": hidden, "label": label}


def _money_values(tournament: Tournament) -> dict[str, Any]:
    return {name: getattr(tournament, name) for name in (
        "entry_fee", "currency", "return_percent", "payout_table", "consolation_percent",
        "consolation_payout_table", "last_chance_percent", "last_chance_payout_table",
        "forfeit_prize_on_disqualification")}


def _division_values(division: Tournament) -> dict[str, Any]:
    return {"name": division.name, "division_order": division.division_order,
            "eligibility": division.eligibility, "min_rating": division.min_rating,
            "max_rating": division.max_rating, "min_experience": division.min_experience,
            "max_experience": division.max_experience}


def _entries(tournament: Tournament) -> list[tuple[Entry, Tournament]]:
    rows = [(e, tournament) for e in tournament.entries.select_related("player")
            .prefetch_related("side_pools").order_by("seed", "registered_at")]
    for division in tournament.divisions.order_by("division_order", "pk"):
        rows += [(e, division) for e in division.entries.select_related("player")
                 .prefetch_related("side_pools").order_by("seed", "registered_at")]
    return rows


@require_GET
@login_required
def desk_page(request: HttpRequest, pk: int) -> HttpResponse:
    tournament = _desk_tournament(request, pk)
    allowed = desk.allowed_actions(request.user, tournament)
    by_target: dict[str, list[desk.DeskAction]] = {}
    for spec in allowed:
        by_target.setdefault(spec.target, []).append(spec)
    ids = selectors.family(tournament)
    players = [(p.pk, p.display_name) for p in
               Player.objects.exclude(entries__tournament_id__in=ids).order_by("display_name")]
    divisions = list(tournament.divisions.order_by("division_order", "pk"))
    pools = list(tournament.side_pools.all())
    open_rows = [row for row in tournament.pairings.filter(
        status__in=(PairingStatus.WAITING, PairingStatus.PAIRED)).select_related(
        "entry_a__player", "entry_b__player").order_by("order") if row.entry_a and row.entry_b]
    in_open = [(e.pk, f"{row.slot}: {e.player.display_name}") for row in open_rows
               for e in row.entries()]
    choices: dict[str, list[tuple[Any, str]]] = {
        "player": players,
        "pairing_a": [(row.pk, f"{row.slot}: " + " – ".join(
            e.player.display_name for e in row.entries())) for row in open_rows],
        "entry_a": in_open,
        "division": [(d.pk, d.name) for d in divisions],
        "side_pool": [(s.pk, s.name) for s in pools],
    }
    choices["pairing_b"], choices["entry_b"] = choices["pairing_a"], choices["entry_a"]
    role = desk.role_of(request.user, tournament)
    entries = []
    for entry, home in _entries(tournament):
        info = {**selectors.entry_dict(entry), "paid": entry.paid, "late": entry.late,
                "division": home.name if home.pk != tournament.pk else "",
                "pools": {s.pk for s in entry.side_pools.all()}, "role": role}
        forms = []
        for spec in by_target.get("entry", []):
            if not spec.applies(info):
                continue
            hidden: dict[str, Any] = {"entry": entry.pk}
            label = ""
            if spec.name == "set_paid":  # a toggle: the desk shows the one way it can go
                hidden["paid"] = "false" if entry.paid else "true"
                label = _("Not paid") if entry.paid else _("Mark paid")
            forms.append(_form(spec, choices, hidden, label))
        entries.append({**info, "forms": forms, "anchor": f"#entry-{entry.pk}"})
    bracket = selectors.bracket(tournament) if tournament.has_started else None
    # The reports waiting for confirmation: who reported which winner and score, so a
    # referee sees what they confirm or reject.
    reports = {row.pk: row for row in Pairing.objects.filter(
        tournament_id__in=ids, status=PairingStatus.PAIRED, reported_by__isnull=False,
    ).select_related("reported_by", "reported_winner__player")}
    for section in (bracket or {}).get("brackets", []):
        for round_ in section["rounds"]:
            round_["forms"] = [
                {**_form(spec, choices, {"bracket": section["bracket"],
                                         "number": round_["number"]}),
                 "value": round_["starts_at"]}
                for spec in by_target.get("round", [])]
            for pairing in round_["pairings"]:
                winners = [(s["entry"], s["name"]) for s in (pairing["a"], pairing["b"])
                           if s["entry"]]
                pairing["anchor"] = f"#pairing-{pairing['id']}"
                report = reports.get(pairing["id"])
                if report is not None and report.reported_winner is not None:
                    pairing["report"] = {
                        "winner": report.reported_winner.player.display_name,
                        "by": report.reported_by.get_username() if report.reported_by else "",
                        "winner_points": report.reported_winner_points,
                        "loser_points": report.reported_loser_points}
                pairing["forms"] = [
                    _form(spec, {**choices, "winner": winners}, {"pairing": pairing["id"]})
                    for spec in by_target.get("pairing", []) if spec.applies(pairing)]
    undo = request.session.pop("desk_undo", None)
    undo_form = None
    if undo and undo.get("action") in desk.BY_NAME:
        spec = desk.BY_NAME[undo["action"]]
        if spec in allowed:
            undo_form = _form(spec, choices, {"entry": undo["entry"]})
    # The money's actions go with the money, not on the toolbar.
    money_names = ("set_money", "add_side_pool")
    money_forms = [_form(spec, choices, {}, label=_("Save") if spec.name == "set_money" else "",
                         values=_money_values(tournament)
                         if spec.name == "set_money" else None)
                   for spec in by_target.get("tournament", []) if spec.name in money_names]
    side_pools = []
    for pool in pools:
        info = {"members": pool.entries.count()}
        side_pools.append({
            "pool": pool, **info,
            "forms": [_form(spec, choices, {"side_pool": pool.pk},
                            label=_("Save") if spec.name == "edit_side_pool" else "",
                            values={"name": pool.name, "fee": pool.fee,
                                    "return_percent": pool.return_percent,
                                    "payout_table": pool.payout_table})
                      for spec in by_target.get("side_pool", []) if spec.applies(info)]})
    division_rows = [{"division": d, "eligibility": selectors.eligibility_text(d),
                      "anchor": f"#division-{d.pk}", "forms": [
        _form(spec, choices, {"division": d.pk}, label=_("Save"), values=_division_values(d))
        for spec in by_target.get("division", [])]} for d in divisions]
    see_money = permissions.can_see_money(request.user, tournament) and not divisions
    return render(request, "tournaments/desk.html", {
        "tournament": tournament,
        "role": role,
        "toolbar": [_form(spec, choices, {}) for spec in by_target.get("tournament", [])
                    if spec.name not in money_names],
        "money_forms": money_forms,
        "side_pools": side_pools,
        "division_rows": division_rows,
        "money": treasury.money_summary(tournament) if see_money else None,
        "standings": selectors.standings(tournament) if see_money else [],
        "entries": entries,
        "divisions": divisions,
        "bracket": bracket,
        "log": [(line, desk_log.LOG_LABELS.get(line.action, line.action),
                 desk_log.log_reason(line.reason))
                for line in desk_log.log_of(tournament, limit=200)],
        "undo": undo_form,
        "is_paired_format": tournament.format in (FormatName.SWISS, FormatName.ROUND_ROBIN),
        "statuses": TournamentStatus,
        # A division is added (and changed) on its event's desk only, by its director,
        # before the start: the create form's fields and the division's own.
        "add_division": role == desk.DIRECTOR and can_create(request.user)
        and tournament.event_id is None and tournament.status in (
            TournamentStatus.DRAFT, TournamentStatus.REGISTRATION, TournamentStatus.CHECK_IN),
        "templates": TEMPLATES.values(), "payout_presets": list(PAYOUT_PRESETS),
        "eligibilities": Eligibility.choices,
    })


@require_POST
@login_required
def desk_act(request: HttpRequest, pk: int, name: str) -> HttpResponse:
    tournament = _desk_tournament(request, pk)
    spec = desk.BY_NAME.get(name)
    if spec is None:
        raise Http404
    back = reverse("tournaments:desk", args=[tournament.pk])
    anchor = request.POST.get("next", "")
    if anchor.startswith("#"):
        back += anchor
    try:
        desk.perform(request.user, tournament, spec, request.POST)
    except ValidationError as error:
        messages.error(request, _errors_text(error))
    except ServiceError as error:
        messages.error(request, error.detail)
    else:
        messages.success(request, str(spec.done))
        if spec.undo and request.POST.get("entry", "").isdigit():
            request.session["desk_undo"] = {"action": spec.undo,
                                            "entry": int(request.POST["entry"])}
    return HttpResponseRedirect(back)


def _club_director(request: HttpRequest) -> None:
    if not permissions.can_direct_club(request.user):
        raise PermissionDenied


@login_required
def players_page(request: HttpRequest) -> HttpResponse:
    """The club's players: import from CSV (a dry run first), export, set a rating."""
    _club_director(request)
    report = None
    if request.method == "POST":
        upload = request.FILES.get("file")
        text = upload.read().decode("utf-8", errors="replace") if upload else request.POST.get(
            "csv", "")
        try:
            report = services.players_import(csv_text=text, actor=request.user,
                                             dry_run=request.POST.get("dry_run") == "true")
        except ServiceError as error:
            messages.error(request, error.detail)
        else:
            if report.applied:
                messages.success(request, _("The players are imported."))
            elif report.errors:
                messages.error(request, _("Nothing was imported: fix the lines marked "
                                          "error and import again."))
    players = Player.objects.filter(is_bot=False).order_by("display_name")
    return render(request, "tournaments/desk_players.html",
                  {"report": report.as_dict() if report else None, "players": players,
                   "csv": request.POST.get("csv", "")})


@require_POST
@login_required
def players_rating(request: HttpRequest) -> HttpResponse:
    _club_director(request)
    data = RatingSerializer(data=request.POST)
    try:
        data.is_valid(raise_exception=True)
        services.player_set_rating(player_id=data.validated_data["player"],
                                   rating=data.validated_data["rating"], actor=request.user,
                                   reason=data.validated_data["reason"])
    except ValidationError as error:
        messages.error(request, _errors_text(error))
    except ServiceError as error:
        messages.error(request, error.detail)
    else:
        messages.success(request, str(_("The rating is saved.")))
    return HttpResponseRedirect(reverse("tournaments:desk_players"))


@require_GET
@login_required
def players_csv(request: HttpRequest) -> HttpResponse:
    _club_director(request)
    return csv_response(services.players_export(actor=request.user))
