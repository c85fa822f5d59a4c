"""Model rules: ordered statuses, per-round match lengths, the table template."""

from __future__ import annotations

import pytest

from matches.services import TABLE_RULE_FIELDS
from tournaments.models import PairingStatus, Tournament, TournamentStatus


def test_statuses_are_ordered_so_that_started_is_one_comparison():
    order = [TournamentStatus.DRAFT, TournamentStatus.REGISTRATION, TournamentStatus.CHECK_IN,
             TournamentStatus.RUNNING, TournamentStatus.FINISHED]
    assert order == sorted(order)
    assert all(s >= PairingStatus.DECIDED for s in (PairingStatus.BYE, PairingStatus.VOID))
    assert Tournament(status=TournamentStatus.FINISHED).has_started
    assert not Tournament(status=TournamentStatus.CHECK_IN).has_started


@pytest.mark.parametrize(("lengths", "bracket", "number", "expected"), [
    ([3, 5, 7], "main", 1, 3), ([3, 5, 7], "winners", 3, 7), ([3, 5, 7], "losers", 9, 7),
    ([3, 5, 7], "final", 1, 7), ([1], "main", 4, 1), ([], "main", 1, 1),
])
def test_round_n_plays_the_nth_length_and_later_rounds_the_last(lengths, bracket, number,
                                                                 expected):
    assert Tournament(match_lengths=lengths).match_length_for(bracket, number) == expected


def test_the_table_template_is_exactly_what_table_create_accepts():
    rules = Tournament().rule_values()
    assert set(rules) <= set(TABLE_RULE_FIELDS)
    assert set(TABLE_RULE_FIELDS) - set(rules) == {"match_length"}  # set per round
