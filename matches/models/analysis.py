"""GNU Backgammon's answers: match analyses, questions to the analysis board and hints,
and the drill items made from a player's errors."""

from __future__ import annotations

from typing import Any

from django.db import models
from django.utils.translation import gettext_lazy as _

from matches.models.play import Match, Player


class AnalysisStatus(models.TextChoices):
    PENDING = "pending", _("Waiting")
    DONE = "done", _("Done")
    FAILED = "failed", _("Failed")


class MatchAnalysis(models.Model):
    """GNU Backgammon's analysis of a finished match (matches/gnubg/analysis.py), made on the
    analysis queue. ``players`` and ``decisions`` are :class:`tavla.analysis.MatchAnalysis`
    as JSON; ``pr0``/``pr1`` are copied out for the fair-play review."""

    match = models.OneToOneField(Match, on_delete=models.CASCADE, related_name="analysis",
                                 verbose_name=_("match"))
    status = models.CharField(_("status"), max_length=10, choices=AnalysisStatus.choices,
                              default=AnalysisStatus.PENDING)
    plies = models.PositiveSmallIntegerField(_("plies"), default=0)
    engine = models.CharField(_("engine"), max_length=40, blank=True)
    players: models.JSONField[Any] = models.JSONField(_("players"), default=list)
    decisions: models.JSONField[Any] = models.JSONField(_("decisions"), default=list)
    pr0 = models.FloatField(_("first player's PR"), null=True, blank=True)
    pr1 = models.FloatField(_("second player's PR"), null=True, blank=True)
    error = models.TextField(_("error"), blank=True)
    requested_at = models.DateTimeField(_("requested"), auto_now_add=True)
    finished_at = models.DateTimeField(_("finished"), null=True, blank=True)
    seconds = models.FloatField(_("seconds taken"), null=True, blank=True)

    class Meta:
        verbose_name = _("match analysis")
        verbose_name_plural = _("match analyses")
        ordering = ["-requested_at"]

    def __str__(self) -> str:
        return f"analysis of {self.match_id}"
class AnalysisRequestKind(models.TextChoices):
    BOARD = "board", _("Analysis board")
    HINT = "hint", _("Hint")


class AnalysisRequest(models.Model):
    """One question a player asked gnubg (the analysis board, or a hint in practice against
    the bot), answered by a worker of the analysis queue (matches/gnubg/board.py).

    ``key`` names the question (position, Match ID, decision, plies): the same question asked
    again, by anyone, is answered from a finished row. A pending row counts towards the
    player's bound on simultaneous analysis requests until it is answered or times out."""

    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="+",
                               verbose_name=_("player"))
    kind = models.CharField(_("kind"), max_length=10, choices=AnalysisRequestKind.choices)
    key = models.CharField(_("question"), max_length=80, db_index=True)
    position_id = models.CharField(_("Position ID"), max_length=14)
    gnubg_match_id = models.CharField(_("Match ID"), max_length=12)
    decision = models.CharField(_("decision"), max_length=10)  # "checker" or "cube"
    plies = models.PositiveSmallIntegerField(_("plies"), default=0)
    match = models.ForeignKey(Match, on_delete=models.CASCADE, null=True, blank=True,
                              related_name="+", verbose_name=_("match"))
    match_version = models.PositiveIntegerField(_("match version"), null=True, blank=True)
    status = models.CharField(_("status"), max_length=10, choices=AnalysisStatus.choices,
                              default=AnalysisStatus.PENDING)
    result: models.JSONField[Any] = models.JSONField(_("answer"), null=True, blank=True)
    error = models.TextField(_("error"), blank=True)
    requested_at = models.DateTimeField(_("requested"), auto_now_add=True, db_index=True)
    finished_at = models.DateTimeField(_("finished"), null=True, blank=True)

    class Meta:
        verbose_name = _("analysis request")
        verbose_name_plural = _("analysis requests")
        ordering = ["-requested_at"]

    def __str__(self) -> str:
        return f"{self.kind} {self.position_id}:{self.gnubg_match_id} ({self.status})"


class DrillItem(models.Model):
    """One of a player's errors or blunders from an analysed match, to be practised again
    (matches/gnubg/practice.py): the position, the dice or the cube decision, gnubg's answers,
    and its place on the Leitner schedule (``box`` 1-5, due at ``due_at``)."""

    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="drill_items",
                               verbose_name=_("player"))
    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="+",
                              verbose_name=_("match"))
    game = models.PositiveSmallIntegerField(_("game"))
    index = models.PositiveIntegerField(_("decision in the game"))
    kind = models.CharField(_("kind"), max_length=10)  # move, double, no_double, take, drop
    position_id = models.CharField(_("Position ID"), max_length=14)
    gnubg_match_id = models.CharField(_("Match ID"), max_length=12)
    played = models.CharField(_("played"), max_length=60)
    best = models.CharField(_("best"), max_length=60)
    loss = models.FloatField(_("equity lost"))
    mark = models.CharField(_("mark"), max_length=10)
    # checker plays: [{"play", "equity", "loss"}] best first; cube decisions: the cube answer
    answers: models.JSONField[Any] = models.JSONField(_("gnubg's answers"))
    box = models.PositiveSmallIntegerField(_("box"), default=1)
    due_at = models.DateTimeField(_("due"), db_index=True)
    reviews = models.PositiveIntegerField(_("answers given"), default=0)
    right = models.PositiveIntegerField(_("right answers"), default=0)
    created_at = models.DateTimeField(_("created"), auto_now_add=True)

    class Meta:
        verbose_name = _("drill item")
        verbose_name_plural = _("drill items")
        ordering = ["due_at", "pk"]
        # A missed double and the play after it share a turn's index: the kind tells them apart.
        constraints = [models.UniqueConstraint(fields=["player", "match", "game", "index",
                                                       "kind"], name="drill_item_once")]

    def __str__(self) -> str:
        return f"{self.player} {self.kind} {self.position_id}"
