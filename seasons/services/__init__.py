"""Every change to club seasons' records: the one door (callers are pages, the API, Celery
tasks and the ``match_finished`` receiver)."""

from seasons.services.arena import (
    ArenaError,
    arena_create,
    arena_group,
    arena_join,
    arena_pair,
    arena_pause,
    arena_sweep,
    on_match_finished,
)

__all__ = ["ArenaError", "arena_create", "arena_group", "arena_join", "arena_pair", "arena_pause",
           "arena_sweep", "on_match_finished"]
