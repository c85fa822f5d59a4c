"""Table chat: messages, blocks, reports and the referees' moderation log."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from matches.models.play import Match, Player, Table


class ChatRoom(models.TextChoices):
    """A table has two rooms, kept apart while a match is played (see ``matches.chat.rooms``)."""

    PLAYERS = "players", _("players")
    SPECTATORS = "spectators", _("spectators")


class ChatMessage(models.Model):
    """One line of table chat. Never deleted: a referee's removal hides it and is logged."""

    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="chat_messages",
                              verbose_name=_("table"))
    match = models.ForeignKey(Match, on_delete=models.SET_NULL, null=True, blank=True,
                              related_name="+", verbose_name=_("match"))
    author = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="+",
                               verbose_name=_("author"))
    room = models.CharField(_("room"), max_length=12, choices=ChatRoom.choices)
    text = models.CharField(_("text"), max_length=300)
    # A quick phrase's code (matches.chat.phrases): each reader sees it in their own language;
    # ``text`` keeps its English words for the admin and for clients that do not know it.
    phrase = models.CharField(_("quick phrase"), max_length=20, blank=True, default="")
    created_at = models.DateTimeField(_("time"), auto_now_add=True, db_index=True)
    deleted_at = models.DateTimeField(_("removed at"), null=True, blank=True)

    class Meta:
        verbose_name = _("chat message")
        verbose_name_plural = _("chat messages")
        ordering = ["-created_at", "-pk"]
        permissions = [("moderate_chat", "Can read, remove and review reports of table chat")]

    def __str__(self) -> str:
        return f"{self.author}: {self.text[:40]}"


class ChatBlock(models.Model):
    """``blocker`` never sees ``blocked``'s messages again, at any table."""

    blocker = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="chat_blocks",
                                verbose_name=_("blocker"))
    blocked = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="+",
                                verbose_name=_("blocked"))
    created_at = models.DateTimeField(_("time"), auto_now_add=True)

    class Meta:
        verbose_name = _("chat block")
        verbose_name_plural = _("chat blocks")
        constraints = [models.UniqueConstraint(fields=["blocker", "blocked"],
                                               name="one_chat_block_per_pair")]


class ChatReport(models.Model):
    """A player's report of a message to the referees."""

    message = models.ForeignKey(ChatMessage, on_delete=models.CASCADE, related_name="reports",
                                verbose_name=_("message"))
    reporter = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="+",
                                 verbose_name=_("reported by"))
    reason = models.CharField(_("reason"), max_length=300, blank=True)
    created_at = models.DateTimeField(_("time"), auto_now_add=True)
    reviewed = models.BooleanField(_("reviewed"), default=False)

    class Meta:
        verbose_name = _("chat report")
        verbose_name_plural = _("chat reports")
        ordering = ["reviewed", "-created_at"]
        constraints = [models.UniqueConstraint(fields=["message", "reporter"],
                                               name="one_report_per_message_and_reporter")]


class ChatModeration(models.Model):
    """The append-only log of what referees did to chat messages."""

    message = models.ForeignKey(ChatMessage, on_delete=models.CASCADE,
                                related_name="moderations", verbose_name=_("message"))
    referee = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT,
                                related_name="+", verbose_name=_("referee"))
    action = models.CharField(_("action"), max_length=20)
    reason = models.CharField(_("reason"), max_length=300)
    created_at = models.DateTimeField(_("time"), auto_now_add=True)

    class Meta:
        verbose_name = _("chat moderation")
        verbose_name_plural = _("chat moderations")
        ordering = ["-created_at"]
