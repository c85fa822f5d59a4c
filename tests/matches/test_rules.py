"""One declaration of the table options (matches.rules), and everything derived from it."""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.contrib import admin

from matches.forms import TableForm
from matches.models import Table
from matches.rest.serializers import TableCreateSerializer, TableSerializer
from matches.rules import RULES, rule_names
from matches.selectors import rules_shown
from matches.services import TABLE_RULE_FIELDS
from tournaments.models import Tournament

BASE_DIR = Path(__file__).resolve().parents[2]

# A subprocess adds a rule to the declaration before Django loads the models, then reports
# where it finds it.
FAKE_RULE_SCRIPT = r"""
import io, json
import django
from matches import rules

rules.RULES = (*rules.RULES, rules.Rule(
    "fake_option", "flag", "fake option", rules.SCORING, True, help="A rule for a test.",
    shown="fake", form_label="Fake option"))
django.setup()

from django.contrib import admin
from django.core.management import call_command
from matches import forms, selectors, services
from matches.rest import serializers
from matches.models import Table
from tournaments.models import Tournament

def in_fieldsets(model):
    return any("fake_option" in options["fields"]
               for _title, options in admin.site._registry[model].get_fieldsets(None))

form = forms.TableForm(data={"name": "t", "match_length": "3", "clock": "none",
                             "flag_penalty": "game", "fake_option": "on"})
migrations = io.StringIO()
call_command("makemigrations", "--dry-run", stdout=migrations)
field = Table._meta.get_field("fake_option")
print(json.dumps({
    "table_field": [str(field.verbose_name), field.default, str(field.help_text)],
    "tournament_field": Tournament._meta.get_field("fake_option").default,
    "table_create": "fake_option" in services.TABLE_RULE_FIELDS,
    "serializer": "fake_option" in serializers.TableSerializer().fields,
    "create_serializer": serializers.TableCreateSerializer(
        data={"name": "t", "fake_option": False}).is_valid(),
    "create_serializer_fields": "fake_option" in serializers.TableCreateSerializer().fields,
    "table_admin": in_fieldsets(Table),
    "tournament_admin": in_fieldsets(Tournament),
    "form": form.is_valid() and form.table_options().get("fake_option"),
    "shown": selectors.rules_shown(Table(fake_option=False)).get("fake"),
    "template": Tournament(fake_option=False).rule_values().get("fake_option"),
    "migration": migrations.getvalue(),
}))
"""


def test_a_fake_rule_added_to_the_declaration_is_found_everywhere():
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "tavla.settings", "PYTHONPATH": str(BASE_DIR)}
    done = subprocess.run([sys.executable, "-c", FAKE_RULE_SCRIPT], cwd=BASE_DIR, env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout.strip().splitlines()[-1])
    assert found.pop("table_field") == ["fake option", True, "A rule for a test."]
    assert found.pop("tournament_field") is True
    migration = found.pop("migration")
    assert "Add field fake_option to table" in migration
    assert "Add field fake_option to tournament" in migration
    assert found.pop("shown") is False and found.pop("template") is False
    assert found == {"table_create": True, "serializer": True, "create_serializer": True,
                     "create_serializer_fields": True, "table_admin": True,
                     "tournament_admin": True, "form": True}


def test_a_table_has_a_field_per_rule_and_a_template_every_rule_but_the_match_length():
    for rule in RULES:
        field = Table._meta.get_field(rule.name)
        assert field.verbose_name == rule.label and field.help_text == rule.help
    # A match length is set per round; correspondence days are a template's too (a ladder,
    # a league or a tournament may be played by correspondence).
    assert set(rule_names()) - set(rule_names(template=True)) == {"match_length"}
    for name in rule_names(template=True):
        Tournament._meta.get_field(name)
    assert Tournament._meta.get_field("is_public").verbose_name == "public tables"
    assert not any(f.name == "match_length" for f in Tournament._meta.get_fields())


def test_every_place_that_lists_the_rules_lists_the_declaration():
    names = set(rule_names())
    assert set(TABLE_RULE_FIELDS) == names
    assert names <= set(TableSerializer().fields)
    assert names <= set(TableCreateSerializer().fields)
    for model, expected in ((Table, names), (Tournament, set(rule_names(template=True)))):
        listed = {name for _title, options in admin.site._registry[model].get_fieldsets(None)
                  for name in options["fields"]}
        assert expected <= listed, model
    form_rules = {rule.name for rule in RULES if rule.form_label is not None}
    assert form_rules | {"clock"} <= set(TableForm().fields)


def test_the_rules_shown_keep_their_keys():
    shown = rules_shown(Table(match_length=5, clock_enabled=True, clock_reserve_seconds=0,
                              clock_reserve_per_point=60, clock_delay=10))
    assert shown == {"match_length": 5, "correspondence_days": None,
                     "cube": True, "gammons": True, "crawford": True,
                     "resignation": "single", "rated": True, "clock": {"delay": 10, "reserve": 300,
                                              "reserve_per_point": 60, "flag_penalty": "game"}}


@pytest.mark.parametrize("class_name, template", [("PlayingRules", True), ("TableRules", False)])
def test_the_field_types_written_for_mypy_match_the_declaration(class_name, template):
    """The models declare the rule fields' types for mypy only (fields come from RULES)."""
    tree = ast.parse((BASE_DIR / "matches" / "models" / "play.py").read_text())
    declared: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef) and node.name in ("PlayingRules", "TableRules"):
            for stmt in node.body:
                if isinstance(stmt, ast.If):
                    declared |= {ann.target.id for ann in stmt.body
                                 if isinstance(ann, ast.AnnAssign)
                                 and isinstance(ann.target, ast.Name)}
            if node.name == class_name:
                break
    assert declared == set(rule_names(template=template))
