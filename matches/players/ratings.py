"""FIBS ratings, the backgammon servers' standard (``docs/protocol.md``, "Ratings").

Pure arithmetic: the service decides when a match is rated and records the change.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

START_RATING = 1500.0


@dataclass(frozen=True, slots=True)
class RatingChange:
    winner_delta: float
    loser_delta: float


def experience_factor(experience: int) -> float:
    """K = max(1, 5 - experience / 100): newcomers' ratings move faster."""
    return max(1.0, 5.0 - experience / 100.0)


def fibs_rating_change(
    *,
    winner_rating: float,
    loser_rating: float,
    winner_experience: int,
    loser_experience: int,
    match_length: int,
) -> RatingChange:
    """The FIBS change for a match of ``match_length`` points (each side's own K).

    P_upset = 1 / (10^(D·√n / 2000) + 1); the winner gains 4·K·√n·P, the loser loses the
    same with their own K, where P is P_upset when the favourite wins, 1 − P_upset otherwise.
    """
    if match_length < 1:
        raise ValueError("a rated match has a length of at least one point")
    root_n = math.sqrt(match_length)
    difference = abs(winner_rating - loser_rating)
    p_upset = 1.0 / (10.0 ** (difference * root_n / 2000.0) + 1.0)
    favourite_won = winner_rating >= loser_rating
    p = p_upset if favourite_won else 1.0 - p_upset
    base = 4.0 * root_n * p
    return RatingChange(
        winner_delta=base * experience_factor(winner_experience),
        loser_delta=-base * experience_factor(loser_experience),
    )
