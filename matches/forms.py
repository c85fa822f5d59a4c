"""Forms of the live-play pages: a new table's options, and signing up."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib.auth.forms import UserCreationForm
from django.utils.translation import gettext_lazy as _

from matches.models import FlagPenalty
from tavla.engine.clock import PRESETS

CLOCK_CHOICES = [
    ("none", _("No clock")),
    ("fast", _("Fast: 8 s per move + 20 s per point")),
    ("normal", _("Normal: 10 s per move + 1 min per point")),
    ("casual", _("Casual: 15 s per move + 3 min per point")),
    ("usbgf", _("Tournament: 12 s per move + 2 min per point")),
]


class TableForm(forms.Form):
    """A new table: the options of :func:`matches.services.table_create`, clock as a preset."""

    name = forms.CharField(label=_("Name"), max_length=80)
    match_length = forms.IntegerField(
        label=_("Match to (points)"), min_value=1, max_value=99, required=False, initial=3,
        help_text=_("Leave empty for a money session."),
    )
    cube_enabled = forms.BooleanField(label=_("Doubling cube"), required=False, initial=True)
    gammons_enabled = forms.BooleanField(label=_("Gammons and backgammons count"),
                                         required=False, initial=True)
    crawford = forms.BooleanField(label=_("Crawford rule"), required=False, initial=True)
    is_rated = forms.BooleanField(label=_("Rated"), required=False, initial=True)
    clock = forms.ChoiceField(label=_("Clock"), choices=CLOCK_CHOICES, initial="none")
    flag_penalty = forms.ChoiceField(label=_("When a flag falls"), choices=FlagPenalty.choices,
                                     initial=FlagPenalty.GAME)
    is_public = forms.BooleanField(label=_("Listed in the lobby"), required=False, initial=True)

    def table_options(self) -> dict[str, Any]:
        """Keyword arguments for ``services.table_create`` (call after ``is_valid()``)."""
        data = self.cleaned_data
        options: dict[str, Any] = {
            key: data[key]
            for key in ("match_length", "cube_enabled", "gammons_enabled", "crawford",
                        "is_rated", "flag_penalty", "is_public")
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


class SignUpForm(UserCreationForm):  # type: ignore[type-arg]
    """Django's own sign-up form; a player is created on first use."""

    class Meta(UserCreationForm.Meta):  # type: ignore[name-defined,misc]
        fields = ("username",)
