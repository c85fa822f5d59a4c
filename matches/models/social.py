"""Finding a game: seeks, challenges and follows (matches.services.seeks, challenges,
follows)."""

from __future__ import annotations

from django.db import models
from django.utils.translation import gettext_lazy as _

from matches.models.play import Player, Table


class GameTerms(models.Model):
    """What a seek or a challenge asks for: the match length, a named time control
    (``tavla.engine.clock.PRESETS``) and whether it is rated. The table's other rules are
    the defaults of :mod:`matches.rules`."""

    match_length = models.PositiveSmallIntegerField(_("match length"))
    clock_preset = models.CharField(_("time control"), max_length=12, default="none")
    rated = models.BooleanField(_("rated"), default=False)
    created_at = models.DateTimeField(_("created"), auto_now_add=True, db_index=True)
    expires_at = models.DateTimeField(_("expires"), db_index=True)
    table = models.ForeignKey(Table, on_delete=models.SET_NULL, null=True, blank=True,
                              related_name="+", verbose_name=_("table"))

    class Meta:
        abstract = True

    def terms(self) -> tuple[int, str, bool]:
        return self.match_length, self.clock_preset, self.rated


class SeekStatus(models.TextChoices):
    OPEN = "open", _("open")
    PAIRED = "paired", _("paired")
    CANCELLED = "cancelled", _("cancelled")
    EXPIRED = "expired", _("expired")


class SeekPool(models.Model):
    """One row per kind of seek (its terms): two seeks of the same terms posted at the same
    moment each lock this row first, so the second sees the first and pairs with it
    (without it, neither would see the other's uncommitted row and both would wait)."""

    match_length = models.PositiveSmallIntegerField(_("match length"))
    clock_preset = models.CharField(_("time control"), max_length=12)
    rated = models.BooleanField(_("rated"))

    class Meta:
        verbose_name = _("seek pool")
        verbose_name_plural = _("seek pools")
        constraints = [models.UniqueConstraint(fields=["match_length", "clock_preset", "rated"],
                                               name="one_seek_pool_per_terms")]


class Seek(GameTerms):
    """A player's wish for a game on these terms with anyone: paired with the first seek of
    the same terms by another player."""

    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="seeks",
                               verbose_name=_("player"))
    status = models.CharField(_("status"), max_length=10, choices=SeekStatus.choices,
                              default=SeekStatus.OPEN, db_index=True)

    class Meta:
        verbose_name = _("seek")
        verbose_name_plural = _("seeks")
        ordering = ["created_at", "pk"]


class ChallengeStatus(models.TextChoices):
    OPEN = "open", _("open")
    ACCEPTED = "accepted", _("accepted")
    DECLINED = "declined", _("declined")
    CANCELLED = "cancelled", _("cancelled")
    EXPIRED = "expired", _("expired")


class Challenge(GameTerms):
    """One player's invitation to another for a game on these terms."""

    challenger = models.ForeignKey(Player, on_delete=models.CASCADE,
                                   related_name="challenges_sent", verbose_name=_("challenger"))
    challenged = models.ForeignKey(Player, on_delete=models.CASCADE,
                                   related_name="challenges_received",
                                   verbose_name=_("challenged"))
    status = models.CharField(_("status"), max_length=10, choices=ChallengeStatus.choices,
                              default=ChallengeStatus.OPEN, db_index=True)

    class Meta:
        verbose_name = _("challenge")
        verbose_name_plural = _("challenges")
        ordering = ["-created_at", "-pk"]


class Follow(models.Model):
    """``follower`` follows ``followed``: the lobby shows the followed player's tables."""

    follower = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="follows",
                                 verbose_name=_("follower"))
    followed = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="followers",
                                 verbose_name=_("followed"))
    created_at = models.DateTimeField(_("time"), auto_now_add=True)

    class Meta:
        verbose_name = _("follow")
        verbose_name_plural = _("follows")
        constraints = [
            models.UniqueConstraint(fields=["follower", "followed"], name="one_follow_per_pair"),
            models.CheckConstraint(condition=~models.Q(follower=models.F("followed")),
                                   name="no_follow_of_oneself"),
        ]
