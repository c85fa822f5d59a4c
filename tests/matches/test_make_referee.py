"""``manage.py make_referee USER``: a referee without hand edits."""

from __future__ import annotations

import io

import pytest
from django.contrib.auth.models import User
from django.core.management import CommandError, call_command
from django.test import Client

pytestmark = pytest.mark.django_db


def run(*args: str) -> str:
    out = io.StringIO()
    call_command("make_referee", *args, stdout=out)
    return out.getvalue()


def test_a_new_referee_can_review_matches_in_the_admin_and_edit_nothing() -> None:
    user = User.objects.create_user("rita", password="rita-secret-1")
    client = Client()
    client.force_login(user)
    assert client.get("/admin/matches/match/").status_code == 302  # not staff: to login
    assert "is a referee" in run("rita")
    run("rita")  # idempotent
    user.refresh_from_db()
    assert user.is_staff and not user.is_superuser
    assert list(user.groups.values_list("name", flat=True)) == ["Referees"]
    assert client.get("/admin/matches/match/").status_code == 200
    assert user.has_perm("matches.adjudicate_match")
    assert not user.has_perm("matches.change_table")
    assert client.get("/admin/auth/user/").status_code == 403


def test_remove_takes_it_back() -> None:
    User.objects.create_user("rita")
    run("rita")
    assert "no longer a referee" in run("rita", "--remove")
    user = User.objects.get(username="rita")
    assert not user.is_staff and not user.groups.exists()


def test_an_unknown_user_is_a_clear_error() -> None:
    with pytest.raises(CommandError, match="There is no user 'nobody'"):
        run("nobody")
