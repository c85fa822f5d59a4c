"""Referees' view of table chat: read every message, review reports, remove with a reason.

Removal goes through :func:`matches.chat.rooms.chat_remove` (logged in ``ChatModeration`` and sent
to the boards); nothing here edits or deletes a message row.
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.urls import URLPattern, path, reverse
from django.utils.translation import gettext_lazy as _

from matches.chat import rooms as chat
from matches.errors import ServiceError
from matches.models import ChatMessage, ChatModeration, ChatReport
from matches.referee.read_only import ReadOnlyMixin

MODERATE = "matches.moderate_chat"


class RemoveForm(forms.Form):
    reason = forms.CharField(label=_("Reason"), max_length=300,
                             widget=forms.Textarea(attrs={"rows": 3}),
                             help_text=_("Kept in the moderation log with your name."))


class ReadOnly(ReadOnlyMixin, admin.ModelAdmin):  # type: ignore[type-arg]
    """Moderation rows: the chat services own them."""


@admin.register(ChatMessage)
class ChatMessageAdmin(ReadOnly):
    list_display = ["created_at", "table", "author", "room", "text", "removed"]
    list_filter = ["room", "deleted_at"]
    search_fields = ["text", "author__display_name", "table__name"]
    list_select_related = ["table", "author"]
    readonly_fields = ["table", "match", "author", "room", "text", "created_at", "deleted_at"]

    @admin.display(boolean=True, description=_("removed"))
    def removed(self, message: ChatMessage) -> bool:
        return message.deleted_at is not None

    def get_urls(self) -> list[URLPattern]:
        return [path("<int:message_id>/remove/", self.admin_site.admin_view(self.remove_view),
                     name="matches_chatmessage_remove"), *super().get_urls()]

    def change_view(self, request: HttpRequest, object_id: str, form_url: str = "",
                    extra_context: dict[str, Any] | None = None) -> HttpResponse:
        extra = {"remove_url": reverse("admin:matches_chatmessage_remove", args=[object_id])
                 if request.user.has_perm(MODERATE) else None}
        return super().change_view(request, object_id, form_url, {**(extra_context or {}), **extra})

    def remove_view(self, request: HttpRequest, message_id: int) -> HttpResponse:
        if not request.user.has_perm(MODERATE):
            raise PermissionDenied
        message = get_object_or_404(ChatMessage, pk=message_id)
        back = reverse("admin:matches_chatmessage_change", args=[message.pk])
        form = RemoveForm(request.POST or None)
        if request.method == "POST" and form.is_valid():
            try:
                chat.chat_remove(message_id=message.pk, referee=request.user,
                                 reason=form.cleaned_data["reason"])
            except ServiceError as error:
                form.add_error(None, error.detail)
            else:
                messages.success(request, _("The message was removed from every board."))
                return HttpResponseRedirect(back)
        return TemplateResponse(request, "admin/matches/chatmessage/remove.html", {
            **self.admin_site.each_context(request), "opts": self.model._meta,
            "title": _("Remove a chat message"), "message": message, "form": form,
            "back": back,
        })


@admin.register(ChatReport)
class ChatReportAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
    list_display = ["created_at", "message", "reporter", "reason", "reviewed"]
    list_filter = ["reviewed"]
    list_select_related = ["message", "reporter"]
    readonly_fields = ["message", "reporter", "reason", "created_at"]
    fields = ["message", "reporter", "reason", "created_at", "reviewed"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(ChatModeration)
class ChatModerationAdmin(ReadOnly):
    list_display = ["created_at", "referee", "action", "message", "reason"]
    list_select_related = ["referee", "message"]
    readonly_fields = ["created_at", "referee", "action", "message", "reason"]
