"""Admin rows nobody edits: what the services own is shown, never changed, in the admin."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest


class ReadOnlyMixin:
    """Nobody adds, edits or deletes these rows through the admin: services own them."""

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False
