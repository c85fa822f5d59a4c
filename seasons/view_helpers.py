"""What the arena, ladder and league pages share: the organiser's create form, a button that
makes one change and says how it went, and the director's form that adds bots.

These helpers decide nothing: every change is the callable a view hands them, a call into
:mod:`seasons.services`; they only turn its refusal or its outcome into the page's answer.
"""

from __future__ import annotations

from collections.abc import Callable, Sized
from typing import Any, TypeVar

from django import forms
from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render

from matches.errors import ServiceError
from matches.models import Player
from matches.players.accounts import player_for_user
from seasons.forms import AddBotsForm

T = TypeVar("T")
F = TypeVar("F", bound=forms.Form)


def create_page(request: HttpRequest, form_class: type[forms.Form], template: str,
                create: Callable[[dict[str, Any]], T], page_of: Callable[[T], str],
                created: str | None = None) -> HttpResponse:
    """An organiser's form that creates an arena, a ladder or a league: ``create`` makes it
    from the valid form's data; the service's refusal shows on the form, above its fields;
    once made, ``created`` (if any) is said and the browser goes to ``page_of`` it."""
    form = form_class(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            made = create(form.cleaned_data)
        except ServiceError as error:
            form.add_error(None, error.detail)
        else:
            if created is not None:
                messages.success(request, created)
            return redirect(page_of(made))
    return render(request, template, {"form": form})


def perform(request: HttpRequest, change: Callable[[], T], said: Callable[[T], str]) -> bool:
    """One button's change: ``change`` calls the service; its refusal becomes the error
    message, else ``said`` of its result the success message. True when the change was made
    (a view may then send the player on, as it does after either)."""
    try:
        result = change()
    except ServiceError as error:
        messages.error(request, error.detail)
        return False
    messages.success(request, said(result))
    return True


def perform_form(request: HttpRequest, form: F, change: Callable[[F], T],
                 said: Callable[[T], str], invalid: str | None = None) -> bool:
    """As :func:`perform`, for a button with a form: an invalid form asks no service and is
    refused with ``invalid``, or, without it, the form's own errors in one message."""
    if not form.is_valid():
        messages.error(request, invalid if invalid is not None else " ".join(
            str(e) for errors in form.errors.values() for e in errors))
        return False
    return perform(request, lambda: change(form), said)


def director_page(request: HttpRequest, template: str, context: dict[str, Any],
                  may_direct: Callable[[Player], bool]) -> HttpResponse:
    """An arena's or a ladder's page: its director also gets the form that adds bots."""
    if request.user.is_authenticated and may_direct(player_for_user(request.user)):
        context["bots_form"] = AddBotsForm()
    return render(request, template, context)


def add_bots(request: HttpRequest, add: Callable[..., Sized], joined: str) -> bool:
    """The director's form: ``add`` (the arena's or the ladder's service, bound to it) puts
    gnubg bots of a strength in, the user as the acting director; ``joined`` says how many,
    with ``%(count)s``."""
    return perform_form(
        request, AddBotsForm(request.POST),
        lambda form: add(actor=player_for_user(request.user), **form.cleaned_data),
        lambda added: joined % {"count": len(added)})
