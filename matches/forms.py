"""Forms of the live-play pages: a new table's options, and signing up."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib.auth import get_user_model
from django.contrib.auth.forms import UserCreationForm
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from matches.gnubg.bots import BOT_NAME_PREFIX
from matches.models import Player
from matches.players.accounts import player_for_user
from matches.players.history import MAX_PAGE_SIZE, PAGE_SIZE, HistoryFilters, Outcome
from matches.rules import RULES
from matches.services.tables import CORRESPONDENCE_DEFAULT_DAYS
from tavla.engine.clock import CORRESPONDENCE_PRESET, PRESETS

CLOCK_CHOICES = [
    ("none", _("No clock")),
    ("fast", _("Fast: 8 s per move + 20 s per point")),
    ("normal", _("Normal: 10 s per move + 1 min per point")),
    ("casual", _("Casual: 15 s per move + 3 min per point")),
    ("usbgf", _("Tournament: 12 s per move + 2 min per point")),
    ("correspondence", _("Correspondence: days per move (below)")),
]


class TableForm(forms.Form):
    """A new table: the options of :func:`matches.services.table_create` that have a
    ``form_label`` in :mod:`matches.rules`, with the clock as a preset."""

    name = forms.CharField(label=_("Name"), max_length=80)
    reserve_for = forms.CharField(
        label=_("Keep the other seat for"), max_length=150, required=False,
        help_text=_("A member's user name: only they may take the other seat."),
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for rule in RULES:
            if rule.name == "clock_enabled":  # the preset stands for the clock's rules
                self.fields["clock"] = forms.ChoiceField(
                    label=_("Clock"), choices=CLOCK_CHOICES, initial="none")
            if rule.form_label is not None:
                self.fields[rule.name] = rule.form_field()
        self.fields["reserve_for"] = self.fields.pop("reserve_for")  # last, after the rules


    def clean_reserve_for(self) -> Player | None:
        username = (self.cleaned_data.get("reserve_for") or "").strip()
        if not username:
            return None
        player = Player.objects.filter(user__username__iexact=username).first()
        if player is None:
            user = get_user_model().objects.filter(username__iexact=username).first()
            if user is None:
                raise forms.ValidationError(_("No member is called %(name)s."),
                                            params={"name": username})
            player = player_for_user(user)
        return player

    def table_options(self) -> dict[str, Any]:
        """Keyword arguments for ``services.table_create`` (call after ``is_valid()``)."""
        data = self.cleaned_data
        options: dict[str, Any] = {
            rule.name: data[rule.name] for rule in RULES if rule.form_label is not None
        }
        control = PRESETS.get(data["clock"])
        options["clock_enabled"] = control is not None
        # The days count only with the correspondence clock; a live table has none.
        days = options.pop("correspondence_days", None)
        options["correspondence_days"] = None
        if data["clock"] == CORRESPONDENCE_PRESET:
            options.update(clock_enabled=True,
                           correspondence_days=days or CORRESPONDENCE_DEFAULT_DAYS)
        elif control is not None:
            options.update(clock_delay=control.delay,
                           clock_reserve_seconds=control.reserve_seconds,
                           clock_reserve_per_point=control.reserve_per_point)
        if options["match_length"] is None:
            options["is_rated"] = False  # money sessions are never rated
        return options


SEEK_LENGTHS = (1, 3, 5, 7, 9, 11, 13, 15, 17, 21, 25)


def seek_length_choices() -> list[tuple[int, str]]:
    """The lengths a seek offers, in the reader's language: called each time the form is
    drawn (a list made at import would be in whatever language was active then)."""
    return [(n, ngettext("%(n)s point", "%(n)s points", n) % {"n": n}) for n in SEEK_LENGTHS]


class SeekForm(forms.Form):
    """The terms of a seek or a challenge, as the lobby shows them (its script sends them to
    ``/api/seeks/`` or ``/api/challenges/``; :func:`matches.validation.game_terms` checks)."""

    match_length = forms.TypedChoiceField(
        label=_("Match to"), coerce=int, initial=5,
        choices=seek_length_choices)
    clock = forms.ChoiceField(label=_("Clock"), choices=CLOCK_CHOICES, initial="none")
    rated = forms.BooleanField(label=_("Rated"), required=False)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("auto_id", "seek_%s")  # beside the new-table form's own fields
        super().__init__(*args, **kwargs)


class SignUpForm(UserCreationForm):  # type: ignore[type-arg]
    """Django's own sign-up form; a player is created on first use. Names beginning with
    ``gnubg-`` are the bots' (``gnubg-expert``, ``gnubg-beginner-2``: see
    :func:`matches.gnubg.bots.bot_player`), so nobody can pass for one."""

    class Meta(UserCreationForm.Meta):  # type: ignore[name-defined,misc]
        fields = ("username",)

    def clean_username(self) -> str:
        username: str = super().clean_username()
        if username.lower().startswith(BOT_NAME_PREFIX):
            raise forms.ValidationError(
                _("Names beginning with “%(prefix)s” are kept for the club's bots."),
                code="reserved", params={"prefix": BOT_NAME_PREFIX})
        return username


class MatchHistoryForm(forms.Form):
    """The filters and the page of a player's match history: the page's form and the REST
    API's query parameters (one validator, so both doors give the same error). Every field is
    optional; an empty one filters nothing."""

    opponent = forms.CharField(label=_("Opponent"), max_length=150, required=False,
                               help_text=_("A member's user name."))
    result = forms.ChoiceField(label=_("Result"), required=False, choices=[
        ("", _("Any result")),
        (Outcome.WON.value, _("Won")),
        (Outcome.LOST.value, _("Lost")),
        (Outcome.PLAYING.value, _("Still playing")),
        (Outcome.NONE.value, _("No result (voided or ended without a winner)")),
    ])
    # A text value (the API takes any length, 1 to 99, or ``money``); the page offers a list,
    # so nobody has to type the API's English word.
    length = forms.CharField(label=_("Match length"), max_length=10, required=False,
                             widget=forms.Select(choices=[
                                 ("", _("Any length")), ("money", _("Money sessions")),
                                 *((str(n), str(n)) for n in range(1, 26))]))
    rated = forms.ChoiceField(label=_("Rated"), required=False, choices=[
        ("", _("Rated or not")), ("true", _("Rated only")), ("false", _("Unrated only")),
    ])
    since = forms.DateField(label=_("From"), required=False,
                            widget=forms.DateInput(attrs={"type": "date"}, format="%Y-%m-%d"),
                            help_text=_("The first day, as YYYY-MM-DD."))
    until = forms.DateField(label=_("Until"), required=False,
                            widget=forms.DateInput(attrs={"type": "date"}, format="%Y-%m-%d"),
                            help_text=_("The last day, as YYYY-MM-DD."))
    page = forms.IntegerField(label=_("Page"), required=False, min_value=1,
                              max_value=2**31 - 1, widget=forms.HiddenInput)
    page_size = forms.IntegerField(label=_("Matches per page"), required=False, min_value=1,
                                   max_value=MAX_PAGE_SIZE, widget=forms.HiddenInput)

    def clean_opponent(self) -> Player | None:
        username = (self.cleaned_data.get("opponent") or "").strip()
        if not username:
            return None
        named = Player.objects.filter(user__username=username).first()
        if named is None:
            named = Player.objects.filter(user__username__iexact=username).first()
        if named is None:
            raise forms.ValidationError(_("No member is called %(name)s."),
                                        code="unknown_player", params={"name": username})
        return named

    def clean_length(self) -> int | str | None:
        text = (self.cleaned_data.get("length") or "").strip().lower()
        if not text:
            return None
        if text == "money":
            return "money"
        if not text.isascii() or not text.isdigit() or not 1 <= int(text) <= 99:
            raise forms.ValidationError(
                _("A match length is a number of points from 1 to 99, or “money”."),
                code="invalid_length")
        return int(text)

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        since, until = data.get("since"), data.get("until")
        if since is not None and until is not None and until < since:
            self.add_error("until", forms.ValidationError(
                _("The last day comes before the first."), code="dates_reversed"))
        return data

    def filters(self) -> HistoryFilters:
        """The filters (call after ``is_valid()``)."""
        data = self.cleaned_data
        length = data.get("length")
        rated = data.get("rated")
        return HistoryFilters(
            opponent=data.get("opponent"),
            result=Outcome(data["result"]) if data.get("result") else None,
            length=length if isinstance(length, int) else None,
            money=length == "money",
            rated=None if not rated else rated == "true",
            since=data.get("since"), until=data.get("until"),
        )

    def page_number(self) -> int:
        return self.cleaned_data.get("page") or 1

    def rows_per_page(self) -> int:
        return self.cleaned_data.get("page_size") or PAGE_SIZE
