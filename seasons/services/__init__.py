"""Every change to club seasons' records: the one door (callers are pages, the API, Celery
tasks and the ``match_finished`` receivers)."""

from seasons.services.arena import (
    ArenaError,
    arena_add_bots,
    arena_create,
    arena_group,
    arena_join,
    arena_pair,
    arena_pause,
    arena_sweep,
    on_match_finished,
)
from seasons.services.ladder import (
    LadderError,
    ladder_accept,
    ladder_add_bots,
    ladder_challenge,
    ladder_check,
    ladder_create,
    ladder_decline,
    ladder_group,
    ladder_join,
    ladder_leave,
    ladder_sweep,
)
from seasons.services.ladder import on_match_finished as on_ladder_match_finished
from seasons.services.league import (
    LeagueError,
    league_create,
    league_enrol,
    league_first_season,
    league_next_season,
    league_start_season,
    league_withdraw,
)

__all__ = ["ArenaError", "LadderError", "LeagueError", "league_create", "league_enrol",
           "league_first_season", "league_next_season", "league_start_season",
           "league_withdraw",
           "arena_add_bots", "arena_create", "arena_group", "arena_join",
           "arena_pair", "arena_pause", "arena_sweep", "ladder_accept",
           "ladder_add_bots", "ladder_challenge",
           "ladder_check", "ladder_create", "ladder_decline", "ladder_group", "ladder_join",
           "ladder_leave", "ladder_sweep", "on_ladder_match_finished", "on_match_finished"]
