"""What the one validator accepts, and what it gives back (the refusals are in
``test_two_doors.py``, sent through both doors)."""

from __future__ import annotations

import pytest

from matches import validation
from matches.errors import ServiceError


def test_good_actions_come_back_typed_and_trimmed() -> None:
    assert validation.action_input(
        {"type": "action", "action": "play", "play": " 8/5 6/5 ", "expected_version": 7,
         "ref": 1}) == validation.ActionInput("play", 7, "8/5 6/5")
    assert validation.action_input({"action": "resign", "level": 3, "expected_version": 0}
                                   ) == validation.ActionInput("resign", 0, level=3)
    # A pass is an empty play; an empty play on another action is no play at all.
    assert validation.action_input({"action": "play", "play": "", "expected_version": 1}
                                   ).play == ""
    assert validation.action_input({"action": "roll", "play": "", "expected_version": 1}
                                   ).play is None
    assert validation.action_input({"action": "end_session", "expected_version": 4,
                                    "match_id": 9}, with_match_id=True).match_id == 9
    # REST names the match in its URL: a match_id in the body is not read there.
    assert validation.action_input({"action": "roll", "expected_version": 4,
                                    "match_id": "x"}).match_id is None


def test_the_services_refuse_end_session_as_a_game_action() -> None:
    with pytest.raises(ServiceError) as refused:
        validation.action_arguments("end_session", None, None)
    assert refused.value.code == "unknown_action"


def test_client_seeds_are_recorded_in_lower_case() -> None:
    assert validation.client_seed("AbCd") == "abcd"
    assert validation.client_seed("") == ""
    assert validation.client_seed("ff" * 64) == "ff" * 64


def test_seats_and_invitations() -> None:
    assert validation.sit_input({}) == validation.SitInput(None, None)
    assert validation.sit_input({"seat": 1, "invite": "tok"}) == validation.SitInput(1, "tok")
    assert validation.sit_input({"seat": None, "invite": ""}) == validation.SitInput(None, None)


@pytest.mark.django_db
def test_table_options_come_back_typed(make_player) -> None:
    creator, guest = make_player("creator"), make_player("guest")
    options = validation.table_options(
        {"name": "  Evening ", "match_length": None, "cube_enabled": False, "clock_delay": 8,
         "resignation": "offer", "clock_preset": "fast", "reserve_for": guest.pk},
        creator=creator)
    assert options == validation.TableOptions(
        "Evening", "fast", guest,
        {"match_length": None, "cube_enabled": False, "clock_delay": 8.0,
         "resignation": "offer"})
    assert validation.rule_values({"grace_seconds": 30}) == {"grace_seconds": 30.0}
    with pytest.raises(ServiceError) as refused:
        validation.table_options({"name": "x", "reserve_for": creator.pk}, creator=creator)
    assert (refused.value.code, refused.value.field) == ("invalid_option", "reserve_for")
