"""Correspondence play's records: a player's vacations (matches.services.vacation)."""

from __future__ import annotations

from typing import Any

from django.db import models
from django.utils.translation import gettext_lazy as _

from matches.models.play import Player


class Vacation(models.Model):
    """A player's vacation from correspondence play (matches.services.vacation).

    Started, it reserves up to ``ends_by`` from the player's allowance of the calendar year
    it started in; ``ended_at`` is set when the player comes back earlier. A vacation is
    over once ``ended_at`` is set or ``ends_by`` has passed.
    """

    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="vacations",
                               verbose_name=_("player"))
    started_at = models.DateTimeField(_("started"))
    ends_by = models.DateTimeField(_("ends at the latest"))
    ended_at = models.DateTimeField(_("ended"), null=True, blank=True)

    class Meta:
        verbose_name = _("vacation")
        verbose_name_plural = _("vacations")
        ordering = ["-started_at"]
        indexes = [models.Index(fields=["player", "-started_at"], name="vacation_player_newest")]

    def __str__(self) -> str:
        return f"{self.player} {self.started_at:%Y-%m-%d}"

    def end(self) -> Any:
        """When the vacation ends (or ended): on the player's return, or at ``ends_by``."""
        return self.ended_at if self.ended_at is not None and self.ended_at < self.ends_by \
            else self.ends_by
