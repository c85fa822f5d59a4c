"""A live match's dice seed and its scripted dice cannot be read or tested by anyone.

The attack of issue 11: 257 admin requests ``?id=<id>&dice_seed__lt=<x>`` answer one yes/no
question each and recover the seed by binary search. Here that search (and its cousins on
every other interface) runs as a superuser and must learn nothing.
"""

from __future__ import annotations

import hashlib
import logging
import re
from collections.abc import Callable
from typing import Any

import pytest
from django.contrib import admin
from django.contrib.auth.models import User
from django.test import Client, RequestFactory

from matches.models import Match
from matches.secret_fields import SECRET_FIELDS, lookup_reads_secret

pytestmark = pytest.mark.django_db

# CSRF tokens change on every request; a state's server_time is the clock of the answer.
_TOKEN = re.compile(rb'name="csrfmiddlewaretoken" value="[^"]*"|csrftoken=[^;]*'
                    rb'|"server_time":[0-9.]+')


@pytest.fixture
def superuser_client() -> Client:
    User.objects.create_superuser("boss", password="boss-pass-123")
    client = Client()
    assert client.login(username="boss", password="boss-pass-123")
    return client


def _answer(client: Client, url: str, echoes: tuple[str, ...] = ()) -> tuple[int, bytes]:
    """Everything a response says, CSRF tokens and the server's clock aside, and the
    guess itself where the page echoes it (the search box shows what was searched)."""
    response = client.get(url)
    body = b"".join(response) if response.streaming else response.content
    body = _TOKEN.sub(b"", body)
    for echo in echoes:
        body = body.replace(echo.encode(), b"<guess>")
    return response.status_code, body


def _binary_search(ask: Callable[[str], tuple[int, bytes]]) -> tuple[str, set[Any]]:
    """The attack: find the 64-hex-digit seed with ``ask(x)`` meaning "seed < x?".

    Returns the recovered value and every distinct answer the oracle gave.
    """
    low, high = 0, 16**64
    answers: set[Any] = set()
    no = ask("0" * 64)  # "seed < 0?" is a no
    answers.add(no)
    for _ in range(256):
        middle = (low + high) // 2
        answer = ask(f"{middle:064x}")
        answers.add(answer)
        if answer == no:
            low = middle
        else:
            high = middle
    return f"{low:064x}", answers


def test_the_257_request_binary_search_through_the_admin_learns_nothing(
        start_match, superuser_client, caplog):
    caplog.set_level(logging.DEBUG)
    match = start_match(match_length=5)
    assert match.is_finished is False
    base = f"/admin/matches/match/?id={match.pk}&dice_seed__lt="
    recovered, answers = _binary_search(lambda x: _answer(superuser_client, base + x))
    assert len(answers) == 1, "the answers depended on the guess"
    assert hashlib.sha256(bytes.fromhex(recovered)).hexdigest() != match.dice_commitment
    assert match.dice_seed not in caplog.text


@pytest.mark.parametrize("url", [
    "/admin/matches/match/?id={id}&dice_seed__lt={guess}",
    "/admin/matches/match/?id={id}&dice_seed__gte={guess}",
    "/admin/matches/match/?id={id}&dice_seed__startswith={prefix}",
    "/admin/matches/match/?id={id}&dice_seed__regex=^{prefix}",
    "/admin/matches/match/?id={id}&dice_seed={seed}",
    "/admin/matches/match/?id={id}&dice_seed__in={seed}",
    "/admin/matches/match/?id={id}&scripted_dice__contains=[[{die},{die}]]",
    "/admin/matches/match/?id={id}&scripted_dice__0__0={die}",
    "/admin/matches/match/?id={id}&table__scripted_dice__0__0={die}",
    "/admin/matches/match/?id={id}&table__matches__dice_seed__lt={guess}",
    "/admin/matches/match/?id={id}&q={prefix}",
    "/admin/matches/match/?id={id}&o=-dice_seed",
    "/admin/matches/game/?match__id={id}&match__dice_seed__lt={guess}",
    "/admin/matches/event/?match__id={id}&match__dice_seed__lt={guess}",
    "/admin/matches/table/?id={table}&scripted_dice__0__0={die}",
    "/admin/matches/table/?id={table}&matches__dice_seed__lt={guess}",
    "/admin/matches/player/?id={player}&match__dice_seed__lt={guess}",
    "/admin/tournaments/pairing/?match__dice_seed__lt={guess}",
    "/api/matches/?id={id}&dice_seed__lt={guess}",
    "/api/matches/{id}/?dice_seed__lt={guess}",
    "/api/matches/{id}/dice/?dice_seed__lt={guess}",
    "/api/matches/{id}/events/?dice_seed__lt={guess}",
    "/api/tables/?scripted_dice__0__0={die}",
    "/api/tables/{table}/?scripted_dice__0__0={die}",
])
def test_no_lookup_anywhere_answers_differently_for_a_right_and_a_wrong_guess(
        url, start_match, superuser_client, settings):
    match = start_match(match_length=5)
    # Two scripted rolls still to come, on the match and on its table.
    Match.objects.filter(pk=match.pk).update(scripted_dice=[[5, 5], [2, 1]])
    match.table.__class__.objects.filter(pk=match.table_id).update(scripted_dice=[[5, 5]])
    seed = match.dice_seed
    top = int(seed, 16)
    guesses = [
        # right guesses, then wrong ones
        dict(guess=f"{top + 1:064x}", prefix=seed[:8], seed=seed, die=5),
        dict(guess=f"{max(top - 1, 0):064x}", prefix=f"{(int(seed[:8], 16) + 1) % 16**8:08x}",
             seed="0" * 64, die=3),
    ]
    ids = dict(id=match.pk, table=match.table_id, player=match.player0_id)
    answers = {_answer(superuser_client, url.format(**ids, **guess), (guess["prefix"],))
               for guess in guesses}
    assert len(answers) == 1, f"{url} answers differently for a right and a wrong guess"
    for _status, body in answers:
        assert seed.encode() not in body


def test_every_registered_admin_refuses_every_lookup_that_reaches_a_secret():
    """Every model admin of the site, every relation path up to three steps to a secret field."""
    from django.apps import apps

    request = RequestFactory().get("/")
    request.user = User(is_superuser=True, is_staff=True)
    checked = 0
    for model, model_admin in admin.site._registry.items():
        for path in _paths_to_secrets(model, depth=3):
            for lookup in (path, f"{path}__lt", f"{path}__0__0", f"{path}__startswith"):
                assert lookup_reads_secret(model, lookup), lookup
                assert not model_admin.lookup_allowed(lookup, "0", request), (model, lookup)
                checked += 1
            assert path not in map(str, model_admin.get_search_fields(request))
    assert checked >= 4 * len(SECRET_FIELDS)
    assert apps.get_model("matches", "Match") in admin.site._registry


def _paths_to_secrets(model: Any, depth: int, prefix: str = "") -> list[str]:
    from matches.secret_fields import is_secret

    paths = [f"{prefix}{field.name}" for field in model._meta.get_fields()
             if is_secret(model, field.name)]
    if depth:
        for field in model._meta.get_fields():
            related = getattr(field, "related_model", None)
            if field.is_relation and related is not None and related is not model:
                reverse = field.auto_created and not field.concrete
                name = field.field.related_query_name() if reverse else field.name
                paths += _paths_to_secrets(related, depth - 1, f"{prefix}{name}__")
    return paths


def test_the_table_admin_has_no_scripted_dice_field_where_scripted_dice_are_off(
        start_match, superuser_client, settings):
    match = start_match()
    url = f"/admin/matches/table/{match.table_id}/change/"
    settings.TAVLA_SCRIPTED_DICE = False
    assert 'name="scripted_dice"' not in superuser_client.get(url).content.decode()
    settings.TAVLA_SCRIPTED_DICE = True
    assert 'name="scripted_dice"' in superuser_client.get(url).content.decode()


def test_the_seed_shows_in_the_audit_and_the_admin_only_after_the_end(start_match,
                                                                      superuser_client):
    from matches import services

    match = start_match(match_length=1)
    change = f"/admin/matches/match/{match.pk}/change/"
    for url in (change, f"/api/matches/{match.pk}/dice/", f"/api/matches/{match.pk}/",
                f"/api/matches/{match.pk}/events/", f"/admin/matches/match/{match.pk}/replay/"):
        assert match.dice_seed not in superuser_client.get(url).content.decode(), url
    services.match_act(match_id=match.pk, player=match.player0, action="resign",
                       expected_version=Match.objects.get(pk=match.pk).version)
    assert match.dice_seed in superuser_client.get(change).content.decode()
    audit = superuser_client.get(f"/api/matches/{match.pk}/dice/").json()
    assert audit["seed"] == match.dice_seed
