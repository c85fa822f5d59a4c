"""Forms of the live-play pages: a new table's options, and signing up."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib.auth import get_user_model
from django.contrib.auth.forms import UserCreationForm
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext_lazy

from matches.models import Player
from matches.players.accounts import player_for_user
from matches.rules import RULES
from tavla.engine.clock import PRESETS

CLOCK_CHOICES = [
    ("none", _("No clock")),
    ("fast", _("Fast: 8 s per move + 20 s per point")),
    ("normal", _("Normal: 10 s per move + 1 min per point")),
    ("casual", _("Casual: 15 s per move + 3 min per point")),
    ("usbgf", _("Tournament: 12 s per move + 2 min per point")),
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
        if control is not None:
            options.update(clock_delay=control.delay,
                           clock_reserve_seconds=control.reserve_seconds,
                           clock_reserve_per_point=control.reserve_per_point)
        if options["match_length"] is None:
            options["is_rated"] = False  # money sessions are never rated
        return options


SEEK_LENGTHS = (1, 3, 5, 7, 9, 11, 13, 15, 17, 21, 25)


class SeekForm(forms.Form):
    """The terms of a seek or a challenge, as the lobby shows them (its script sends them to
    ``/api/seeks/`` or ``/api/challenges/``; :func:`matches.validation.game_terms` checks)."""

    match_length = forms.TypedChoiceField(
        label=_("Match to"), coerce=int, initial=5,
        choices=[(n, ngettext_lazy("%(n)s point", "%(n)s points", n) % {"n": n})
                 for n in SEEK_LENGTHS])
    clock = forms.ChoiceField(label=_("Clock"), choices=CLOCK_CHOICES, initial="none")
    rated = forms.BooleanField(label=_("Rated"), required=False)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("auto_id", "seek_%s")  # beside the new-table form's own fields
        super().__init__(*args, **kwargs)


class SignUpForm(UserCreationForm):  # type: ignore[type-arg]
    """Django's own sign-up form; a player is created on first use."""

    class Meta(UserCreationForm.Meta):  # type: ignore[name-defined,misc]
        fields = ("username",)
