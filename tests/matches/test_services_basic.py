"""The service layer end to end on the database: a scripted match from start to finish."""

from __future__ import annotations

import pytest

from matches import services
from matches.models import GameEnding, LogKind, MatchStatus
from matches.state import load_state
from tavla.engine.game import Phase
from tests.matches.conftest import act

pytestmark = pytest.mark.django_db


def test_sitting_twice_starts_a_match_with_the_opening_roll_played(start_match):
    # Player 0 wins the opening roll 3-1 and must play it at once.
    match = start_match(dice=[[3, 1]])
    state = load_state(match)
    assert state.phase is Phase.MOVE and state.player_on_roll == 0 and state.dice == (3, 1)
    kinds = list(match.events.order_by("sequence").values_list("kind", flat=True))
    assert kinds == [LogKind.START, LogKind.OPENING_ROLL]
    assert len(match.dice_commitment) == 64


def test_drop_ends_the_game_and_the_next_game_starts(start_match):
    match = start_match(dice=[[3, 1], [5, 6]], match_length=3)
    match = act(match, 0, "play", "8/5 6/5")
    match = act(match, 1, "double")
    match = act(match, 0, "drop")
    assert (match.score0, match.score1) == (0, 1)
    game = match.games.get(number=1)
    assert game.ending == GameEnding.DROP and game.points == 1 and game.winner == match.player1
    state = load_state(match)
    assert state.game_number == 2 and state.phase is Phase.MOVE and state.player_on_roll == 1


def test_stale_version_and_out_of_turn_are_refused_without_change(start_match):
    match = start_match(dice=[[3, 1]])
    before = (match.version, match.events.count(), match.snapshot)
    with pytest.raises(services.ServiceError) as stale:
        services.match_act(match_id=match.pk, player=match.player0, action="play",
                           play="8/5 6/5", expected_version=match.version - 1)
    assert stale.value.code == "stale_version"
    with pytest.raises(services.ServiceError) as turn:
        services.match_act(match_id=match.pk, player=match.player1, action="double",
                           expected_version=match.version)
    assert turn.value.code == "not_your_turn"
    with pytest.raises(services.ServiceError) as illegal:
        services.match_act(match_id=match.pk, player=match.player0, action="play",
                           play="24/18", expected_version=match.version)
    assert illegal.value.code == "illegal_action"
    match.refresh_from_db()
    assert (match.version, match.events.count(), match.snapshot) == before


def test_resignations_finish_a_rated_match_and_update_ratings(start_match, make_player):
    match = start_match(dice=[[3, 1], [5, 2], [4, 3]], match_length=1, is_rated=True)
    match = act(match, 0, "resign")
    assert match.status == MatchStatus.FINISHED and match.winner == match.player1
    assert match.seed_revealed
    match.player1.refresh_from_db()
    assert match.player1.rating == pytest.approx(1510.0)  # newcomer K = 5, 1 point: 2 * 5
    assert services.match_verify(match_id=match.pk).ok
