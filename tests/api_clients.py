"""The REST API as an outside program calls it: with an account's token, or with none."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

if TYPE_CHECKING:
    from django.contrib.auth.models import User

    from tournaments.models import Tournament


def token_client(user: User | None) -> APIClient:
    """A client sending ``user``'s API token (``Authorization: Token …``); anonymous for None."""
    client = APIClient()
    if user is not None:
        token, _ = Token.objects.get_or_create(user=user)
        client.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    return client


def desk_action(user: User | None, tournament: Tournament, name: str, /, **data: Any) -> Any:
    """``POST /api/tournaments/<id>/actions/<name>/`` as ``user``: the desk's write API."""
    return token_client(user).post(f"/api/tournaments/{tournament.pk}/actions/{name}/", data,
                                   format="json")
