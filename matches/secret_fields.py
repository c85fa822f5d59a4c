"""Fields nobody may read or test through an interface: a live match's dice seed and the
scripted dice still to come.

A yes/no question about a secret is as good as reading it: 257 admin requests of the form
``?dice_seed__lt=<x>`` recover a 256-bit seed by binary search. So no admin lookup, list
filter, search field or ordering may *touch* these fields, through any chain of relations,
for any user (superusers included). The revealed seed of a finished match is shown by the
dice audit and the admin's read-only "dice seed" display, never through a lookup.
:class:`SecretFieldsGuard` is mixed into every model admin that can reach them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

from django.core.exceptions import FieldDoesNotExist
from django.db import models
from django.db.models.constants import LOOKUP_SEP
from django.http import HttpRequest

# (app label, model name) -> names of its secret fields.
SECRET_FIELDS: Final[dict[tuple[str, str], frozenset[str]]] = {
    ("matches", "match"): frozenset({"dice_seed", "scripted_dice"}),
    ("matches", "table"): frozenset({"scripted_dice"}),
}


def is_secret(model: type[models.Model], name: str) -> bool:
    """True when ``name`` is a secret field of ``model``."""
    meta = model._meta
    return name in SECRET_FIELDS.get((meta.app_label, meta.model_name or ""), frozenset())


def lookup_reads_secret(model: type[models.Model], lookup: str) -> bool:
    """True when the ORM lookup ``lookup`` (``table__matches__dice_seed__lt``, ``-dice_seed``,
    ``=scripted_dice``…) on ``model`` reaches a secret field anywhere along its path."""
    current: type[models.Model] | None = model
    for part in lookup.lstrip("-=^@").split(LOOKUP_SEP):
        if current is None:
            return False
        if is_secret(current, part):
            return True
        try:
            field = current._meta.get_field(part)
        except FieldDoesNotExist:
            return False  # a transform (lt, contains, 0, …) or a name the ORM will refuse
        related = getattr(field, "related_model", None)
        current = related if isinstance(related, type) else None
    return False


def _without_secrets(model: type[models.Model], names: Sequence[Any]) -> list[Any]:
    kept = []
    for name in names:
        # List filters may be classes or (field, filter class) pairs; only names are lookups.
        lookup = name[0] if isinstance(name, tuple | list) else name
        if isinstance(lookup, str) and lookup_reads_secret(model, lookup):
            continue
        kept.append(name)
    return kept


class SecretFieldsGuard:
    """A ``ModelAdmin`` mixin: no URL parameter, search, filter or ordering touches a secret.

    Django allows lookups on any local field (``?dice_seed__lt=…`` included); a refused
    lookup answers 400 whatever its value, so the answer carries no information.
    """

    model: type[models.Model]

    def lookup_allowed(self, lookup: str, value: str, request: HttpRequest | None = None) -> bool:
        if lookup_reads_secret(self.model, lookup):
            return False
        return super().lookup_allowed(lookup, value, request)  # type: ignore[misc,no-any-return]

    def get_search_fields(self, request: HttpRequest) -> list[Any]:
        return _without_secrets(self.model, super().get_search_fields(request))  # type: ignore[misc]

    def get_list_filter(self, request: HttpRequest) -> list[Any]:
        return _without_secrets(self.model, super().get_list_filter(request))  # type: ignore[misc]

    def get_ordering(self, request: HttpRequest) -> list[Any]:
        return _without_secrets(self.model, super().get_ordering(request) or [])  # type: ignore[misc]

    def get_sortable_by(self, request: HttpRequest) -> list[Any]:
        return _without_secrets(self.model, super().get_sortable_by(request))  # type: ignore[misc]
