"""Two requests at the same version: exactly one applies, the other is stale.

Real threads with their own database connections, on committed data (``transactional_db``).
PostgreSQL serializes them with ``SELECT ... FOR UPDATE`` on the match row; SQLite with
``BEGIN IMMEDIATE`` (``transaction_mode`` in the settings) takes the write lock at the start
of each transaction, which serializes them just the same. Both run here.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.db import connection

from matches import services
from matches.models import Match
from matches.state import load_state
from tests.at_once import race

pytestmark = pytest.mark.django_db(transaction=True)


def assert_log_is_whole(match: Match) -> None:
    sequences = list(match.events.order_by("sequence").values_list("sequence", flat=True))
    assert sequences == list(range(len(sequences)))
    assert services.match_verify(match_id=match.pk).ok


@pytest.mark.parametrize("round_", range(3))
def test_the_same_action_twice_at_one_version_applies_once(start_match, round_):
    match = start_match(dice=[[3, 1], [5, 2], [6, 4]], cube_enabled=False)
    version, events = match.version, match.events.count()

    def play() -> Any:
        return services.match_act(match_id=match.pk, player=match.player0, action="play",
                                  play="8/5 6/5", expected_version=version)

    results = race(play, play)
    errors = [r for r in results if isinstance(r, Exception)]
    applied = [r for r in results if isinstance(r, services.ActResult)]
    assert len(applied) == 1 and len(errors) == 1, results
    assert isinstance(errors[0], services.ServiceError), repr(errors[0])
    assert errors[0].code == "stale_version"
    match.refresh_from_db()
    assert match.version == version + 1
    assert match.events.count() == events + 2  # the play and player 1's automatic roll
    assert_log_is_whole(match)


def test_two_different_actions_at_one_version_resolve_to_one(start_match):
    # Player 0 plays while player 1 resigns, both against the same version.
    match = start_match(dice=[[3, 1], [5, 2]], cube_enabled=False, match_length=5)
    version = match.version
    results = race(
        lambda: services.match_act(match_id=match.pk, player=match.player0, action="play",
                                   play="8/5 6/5", expected_version=version),
        lambda: services.match_act(match_id=match.pk, player=match.player1, action="resign",
                                   expected_version=version),
    )
    codes = [r.code if isinstance(r, services.ServiceError) else "applied" for r in results]
    assert sorted(codes) == ["applied", "stale_version"], results
    match.refresh_from_db()
    assert match.version == version + 1
    state = load_state(match)
    if codes[0] == "applied":
        assert state.player_on_roll == 1 and state.game_number == 1
    else:
        assert state.score == (1, 0) and state.game_number == 2
    assert_log_is_whole(match)


def test_the_database_really_is_shared_between_threads(start_match):
    # The race above proves nothing if each thread saw its own (empty) database.
    match = start_match(dice=[[3, 1]])
    seen = race(lambda: Match.objects.filter(pk=match.pk).count())
    assert seen == [1]
    assert connection.vendor in ("postgresql", "sqlite")
