"""Safe production defaults: a deployer who forgets DEBUG gets a safe site, or none at all.

Each check starts a fresh Python with the environment a deployment would have, so the
settings are read the way production reads them.
"""

from __future__ import annotations

import json
import secrets

import pytest
from django.test import Client

from tests.test_foundation import run_python

PRODUCTION = {
    "DEBUG": None, "SECRET_KEY": secrets.token_urlsafe(50), "TAVLA_HTTPS": "1",
    "ALLOWED_HOSTS": "tavla.example.org", "TAVLA_SCRIPTED_DICE": None,
}


def test_debug_is_off_unless_set():
    result = run_python("from django.conf import settings; print(settings.DEBUG)", **PRODUCTION)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "False"


def test_without_debug_and_without_a_secret_key_the_site_refuses_to_start():
    result = run_python("import django; django.setup()", **{**PRODUCTION, "SECRET_KEY": None})
    assert result.returncode != 0 and "SECRET_KEY is not set" in result.stderr


def test_scripted_dice_are_refused_at_start_unless_debug_is_on():
    refused = run_python("import django; django.setup()",
                         **{**PRODUCTION, "TAVLA_SCRIPTED_DICE": "1"})
    assert refused.returncode != 0 and "TAVLA_SCRIPTED_DICE" in refused.stderr
    allowed = run_python("from django.conf import settings; print(settings.TAVLA_SCRIPTED_DICE)",
                         **{**PRODUCTION, "TAVLA_SCRIPTED_DICE": "1", "DEBUG": "1"})
    assert allowed.returncode == 0 and allowed.stdout.strip() == "True", allowed.stderr


@pytest.mark.slow
def test_check_deploy_is_clean_on_the_production_configuration():
    result = run_python(
        "import sys; from django.core.management import execute_from_command_line; "
        "execute_from_command_line(['manage.py', 'check', '--deploy', '--fail-level', 'DEBUG'])",
        **PRODUCTION,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "System check identified no issues (0 silenced)" in result.stdout


def test_https_turns_on_hsts_the_ssl_redirect_and_secure_cookies():
    code = ("import json; from django.conf import settings as s; print(json.dumps([s.DEBUG, "
            "s.SECURE_SSL_REDIRECT, s.SECURE_HSTS_SECONDS, s.SESSION_COOKIE_SECURE, "
            "s.CSRF_COOKIE_SECURE, s.SECURE_PROXY_SSL_HEADER]))")
    result = run_python(code, **PRODUCTION)
    assert result.returncode == 0, result.stderr
    debug, redirect, hsts, session, csrf, proxy = json.loads(result.stdout)
    assert (debug, redirect, session, csrf) == (False, True, True, True)
    assert hsts >= 365 * 24 * 3600 and proxy == ["HTTP_X_FORWARDED_PROTO", "https"]


@pytest.mark.django_db
def test_https_redirects_plain_http_and_sends_hsts(settings):
    settings.SECURE_SSL_REDIRECT = True
    settings.SECURE_HSTS_SECONDS = 31536000
    settings.SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    client = Client()
    plain = client.get("/lobby/")
    assert plain.status_code == 301 and plain["Location"].startswith("https://")
    secure = client.get("/lobby/", HTTP_X_FORWARDED_PROTO="https")
    assert secure.status_code == 200
    assert secure["Strict-Transport-Security"].startswith("max-age=31536000")


@pytest.mark.django_db
@pytest.mark.parametrize("url", ["/", "/lobby/", "/accounts/login/", "/tournaments/",
                                 "/admin/login/", "/api/docs/", "/api/matches/"])
def test_every_page_sends_a_policy_that_allows_only_the_site_itself(url):
    response = Client().get(url)
    assert response.status_code == 200
    policy = dict(
        (directive.split(" ", 1) + [""])[:2]
        for directive in response["Content-Security-Policy"].split("; ")
    )
    assert policy["default-src"] == "'self'"
    assert policy["script-src"] == "'self'" and policy["style-src"] == "'self'"
    assert policy["frame-ancestors"] == "'none'" and policy["object-src"] == "'none'"
    if response["Content-Type"].startswith("text/html"):
        html = response.content.decode()
        assert "<script>" not in html and "<style" not in html and " style=" not in html
        assert " onchange=" not in html and " onclick=" not in html
