"""Club seasons' records. Every change goes through :mod:`seasons.services`."""

from __future__ import annotations

from datetime import datetime

from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from matches.models import Match, Player, TemplateRules


class Arena(TemplateRules):
    """A timed arena: between ``starts_at`` and ``ends_at`` its free players are paired at
    once (:mod:`seasons.formats.arena`); its tables follow these rules at ``match_length``."""

    name = models.CharField(_("name"), max_length=80)
    match_length = models.PositiveSmallIntegerField(_("match length"), default=3)
    starts_at = models.DateTimeField(_("starts"))
    ends_at = models.DateTimeField(_("ends"))
    created_by = models.ForeignKey(Player, on_delete=models.SET_NULL, null=True, blank=True,
                                   related_name="+", verbose_name=_("created by"))
    created_at = models.DateTimeField(_("created"), auto_now_add=True)
    # Set once the time is up and the last match in play has finished.
    closed_at = models.DateTimeField(_("closed"), null=True, blank=True)

    class Meta:
        verbose_name = _("arena")
        verbose_name_plural = _("arenas")
        ordering = ["-starts_at"]
        indexes = [models.Index(fields=["closed_at", "starts_at"])]

    def __str__(self) -> str:
        return self.name

    def is_running(self, now: datetime) -> bool:
        """Whether players are paired at ``now``: started, not yet at its end."""
        return self.closed_at is None and self.starts_at <= now < self.ends_at


class ArenaEntry(models.Model):
    arena = models.ForeignKey(Arena, on_delete=models.CASCADE, related_name="entries")
    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="arena_entries")
    joined_at = models.DateTimeField(_("joined"), auto_now_add=True)
    # A paused player is not paired until they come back; their points stay.
    paused = models.BooleanField(_("paused"), default=False)
    # Since when the player has been free (joined, back from a pause, or their last match
    # ended): who waited longest is paired first among equals.
    free_since = models.DateTimeField(_("free since"), default=timezone.now)

    class Meta:
        verbose_name = _("arena player")
        verbose_name_plural = _("arena players")
        constraints = [models.UniqueConstraint(fields=["arena", "player"],
                                               name="one_entry_per_arena_player")]


class ArenaGame(models.Model):
    """One match of the arena; its result (``winner``, ``finished_at``) scores when it ends."""

    arena = models.ForeignKey(Arena, on_delete=models.CASCADE, related_name="games")
    match = models.OneToOneField(Match, on_delete=models.PROTECT, related_name="arena_game")
    player_a = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="+")
    player_b = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="+")
    created_at = models.DateTimeField(_("paired at"), default=timezone.now)
    winner = models.ForeignKey(Player, on_delete=models.PROTECT, null=True, blank=True,
                               related_name="+")
    finished_at = models.DateTimeField(_("finished"), null=True, blank=True)

    class Meta:
        verbose_name = _("arena match")
        verbose_name_plural = _("arena matches")
        indexes = [models.Index(fields=["arena", "finished_at"])]
