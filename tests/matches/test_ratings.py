import pytest

from matches.players.ratings import experience_factor, fibs_rating_change


def test_rule_sheet_check_equal_experienced_players_one_point():
    change = fibs_rating_change(
        winner_rating=1500, loser_rating=1500, winner_experience=1000,
        loser_experience=1000, match_length=1,
    )
    assert change.winner_delta == pytest.approx(2.0)
    assert change.loser_delta == pytest.approx(-2.0)


def test_newcomer_factor():
    assert experience_factor(0) == 5
    assert experience_factor(250) == 2.5
    assert experience_factor(10_000) == 1


def test_upset_pays_more_than_favourite_win_and_length_scales_by_root_n():
    upset = fibs_rating_change(winner_rating=1400, loser_rating=1600, winner_experience=500,
                               loser_experience=500, match_length=5)
    expected = fibs_rating_change(winner_rating=1600, loser_rating=1400, winner_experience=500,
                                  loser_experience=500, match_length=5)
    assert upset.winner_delta > expected.winner_delta
    assert upset.winner_delta + expected.winner_delta == pytest.approx(4 * 5 ** 0.5)


def test_each_player_uses_own_experience():
    change = fibs_rating_change(winner_rating=1500, loser_rating=1500, winner_experience=0,
                                loser_experience=1000, match_length=1)
    assert change.winner_delta == pytest.approx(10.0)
    assert change.loser_delta == pytest.approx(-2.0)


def test_zero_length_refused():
    with pytest.raises(ValueError):
        fibs_rating_change(winner_rating=1500, loser_rating=1500, winner_experience=0,
                           loser_experience=0, match_length=0)
