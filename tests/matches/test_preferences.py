"""Play preferences (matches.services.preferences): the server rolls for a player who chose
it — automatic roll when a double cannot help, "never double" for one match — and only then."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from matches.errors import ServiceError
from matches.models import Match, Player
from matches.services.preferences import match_never_double, player_set_auto_roll
from matches.state import load_state
from tests.matches.conftest import act


def after_opening(start_match: Callable[..., Match], **rules: object) -> Match:
    """Seat 0 opens with 3-1 and plays; seat 1 is then at the start of a turn with the cube."""
    match = start_match(dice=[[3, 1], [6, 4], [5, 2]], cube_enabled=True, is_rated=False,
                        **rules)
    act(match, 0, "play", "8/5 6/5")
    return match


@pytest.mark.django_db
def test_auto_roll_rolls_only_when_a_double_cannot_help(
        start_match: Callable[..., Match], make_player: Callable[..., Player]) -> None:
    # A 1-point match: a single win already wins it, so a double cannot help.
    first, second = make_player(), make_player()
    player_set_auto_roll(player=second, auto_roll=True)
    match = after_opening(start_match, match_length=1, players=(first, second))
    state = load_state(match)
    assert state.phase.value == "move" and state.dice == (6, 4)  # rolled for seat 1

    # A 5-point match at 0-0: doubling may help, so seat 1 decides, preference or not.
    match = after_opening(start_match, match_length=5, players=(make_player(), second))
    state = load_state(match)
    assert state.phase.value == "turn_start" and state.may_double()

    # Without the preference the 1-point match waits for the player too.
    match = after_opening(start_match, match_length=1)
    assert load_state(match).phase.value == "turn_start"


@pytest.mark.django_db
def test_turning_auto_roll_on_rolls_a_turn_that_waits_for_it(
        start_match: Callable[..., Match]) -> None:
    match = after_opening(start_match, match_length=1)
    version = match.version
    player_set_auto_roll(player=match.player1, auto_roll=True)
    match.refresh_from_db()
    assert load_state(match).dice == (6, 4) and match.version == version + 1
    assert Player.objects.get(pk=match.player1_id).auto_roll is True


@pytest.mark.django_db
def test_never_double_rolls_every_turn_of_that_match_until_turned_off(
        start_match: Callable[..., Match]) -> None:
    match = after_opening(start_match, match_length=5)
    assert load_state(match).phase.value == "turn_start"
    match_never_double(match_id=match.pk, player=match.player1, on=True)
    match.refresh_from_db()
    assert match.never_double == [1] and load_state(match).dice == (6, 4)
    act(match, 1, "play", "24/18 13/9")
    assert load_state(match).phase.value == "turn_start"  # seat 0 did not choose it
    act(match, 0, "roll")
    state = load_state(match)
    act(match, 0, "play", state.legal_plays()[0].notation())
    match.refresh_from_db()
    # seat 1's next turn is rolled by the server (the script has run out: fair dice)
    assert load_state(match).phase.value == "move" and load_state(match).player_to_act == 1
    match_never_double(match_id=match.pk, player=match.player1, on=False)
    match.refresh_from_db()
    assert match.never_double == []


@pytest.mark.django_db
def test_bad_preferences_are_refused_and_change_nothing(
        start_match: Callable[..., Match], make_player: Callable[..., Player]) -> None:
    match = after_opening(start_match, match_length=5)
    version = match.version
    for bad in ("yes", 1, None):
        with pytest.raises(ServiceError) as error:
            match_never_double(match_id=match.pk, player=match.player1, on=bad)
        assert error.value.code == "bad_request"
        with pytest.raises(ServiceError) as error:
            player_set_auto_roll(player=match.player1, auto_roll=bad)
        assert error.value.code == "bad_request"
    with pytest.raises(ServiceError) as error:
        match_never_double(match_id=match.pk, player=make_player(), on=True)
    assert error.value.code == "not_a_player"
    with pytest.raises(ServiceError) as error:
        player_set_auto_roll(player=None, auto_roll=True)
    assert error.value.code == "not_authenticated"
    match.refresh_from_db()
    assert match.version == version and match.never_double == []
    assert Player.objects.get(pk=match.player1_id).auto_roll is False
