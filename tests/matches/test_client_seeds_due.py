"""``client_seeds.due`` has the format docs/dice.md gives: ISO 8601 in UTC with the offset
``+00:00``, six fraction digits or none at a whole second."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from pathlib import Path

import pytest
from rest_framework.test import APIClient

from matches.models import Match
from matches.state import client_seeds_state

pytestmark = pytest.mark.django_db

DOC = Path(__file__).resolve().parents[2] / "docs" / "dice.md"
DUE = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{6})?\+00:00")


def test_due_is_iso_8601_utc_with_its_offset_as_documented(start_match, settings) -> None:
    text = " ".join(DOC.read_text().split())
    assert "`YYYY-MM-DDTHH:MM:SS.ffffff+00:00`" in text and "never `Z`" in text
    settings.TAVLA_CLIENT_SEED_SECONDS = 30
    match = start_match(match_length=1)
    stored = Match.objects.get(pk=match.pk).client_seeds_due
    assert stored is not None
    served = APIClient().get(f"/api/matches/{match.pk}/").json()["client_seeds"]["due"]
    assert DUE.fullmatch(served), served
    assert datetime.fromisoformat(served) == stored

    # At a whole second the fraction is left out, as the page says.
    match.client_seeds_due = datetime(2026, 12, 3, 11, 38, 27, tzinfo=UTC)
    assert client_seeds_state(match)["due"] == "2026-12-03T11:38:27+00:00"
    match.client_seeds_due = None
    assert client_seeds_state(match)["due"] is None
