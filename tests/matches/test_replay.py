"""Replaying the event log reproduces the stored snapshot exactly, for random matches."""

from __future__ import annotations

import importlib
import random

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from matches import services
from matches.audit import dice_audit, mat_export, replay_steps
from matches.demo.tables import play_out
from matches.models import Event, Game, LogKind, Match, MatchStatus
from matches.services import clocks
from matches.state import full_state, load_state, replay_events

pytestmark = pytest.mark.django_db

# (table options, random-player chances): cube on and off, gammons off, money, Crawford off.
VARIANTS = [
    ({"match_length": 3}, {"double": 0.1, "take": 0.6}),
    ({"match_length": 1}, {}),
    ({"match_length": 5, "cube_enabled": False}, {}),
    ({"match_length": 3, "gammons_enabled": False}, {"double": 0.2}),
    ({"match_length": 3, "crawford": False}, {"double": 0.15, "resign": 0.01}),
    ({"match_length": None, "is_rated": False}, {"double": 0.2, "take": 0.9}),
]


@pytest.mark.parametrize("seed", range(12))
def test_random_matches_replay_to_their_snapshot(start_match, seed):
    options, chances = VARIANTS[seed % len(VARIANTS)]
    rng = random.Random(seed)
    match = start_match(**options)  # fair dice: nothing scripted
    match = play_out(match, rng, session_games=2, **chances)
    assert match.status == MatchStatus.FINISHED

    events = list(match.events.order_by("sequence"))
    assert [e.sequence for e in events] == list(range(len(events)))
    replayed = replay_events(events)
    # The snapshot keeps the last game's events; each earlier game's are in its Game row.
    assert replayed.compact().to_dict() == match.snapshot
    assert replayed.to_dict() == full_state(match).to_dict()
    assert not any(game.events for game in load_state(match).games[:-1])
    result = services.match_verify(match_id=match.pk)
    assert result.ok and result.events == len(events), result.detail

    # Step by step, every intermediate state is legal and the last one is the snapshot.
    steps = list(replay_steps(match))
    assert len(steps) == len(events)
    assert steps[-1].state.to_dict() == replayed.to_dict()

    audit = dice_audit(match)
    assert audit["verified"] is True and not audit["dice_were_scripted"]
    assert mat_export(match).count(" Game ") == len(replayed.games)


def test_a_tampered_log_fails_verification(start_match):
    match = start_match(match_length=1)
    match = play_out(match, random.Random(99))
    assert services.match_verify(match_id=match.pk).ok

    play = match.events.filter(kind=LogKind.PLAY).first()
    assert play is not None
    original = dict(play.payload)
    legal_elsewhere = "24/23"  # a different (possibly illegal) play
    Event.objects.filter(pk=play.pk).update(
        payload={**original, "action": {**original["action"], "play": legal_elsewhere}})
    changed = services.match_verify(match_id=match.pk)
    assert not changed.ok

    Event.objects.filter(pk=play.pk).update(payload=original)
    assert services.match_verify(match_id=match.pk).ok
    Event.objects.filter(pk=play.pk).delete()
    gap = services.match_verify(match_id=match.pk)
    assert not gap.ok and "gap" in gap.detail


def test_a_finished_games_record_is_verified_and_a_missing_one_replayed(start_match):
    # A point a game (no cube, no gammons): at least three games whatever the dice.
    match = play_out(start_match(match_length=3, cube_enabled=False, gammons_enabled=False),
                     random.Random(7))
    replayed = replay_events(match.events.order_by("sequence"))
    first = match.games.get(number=1)
    assert first.record == replayed.games[0].to_dict()
    assert services.match_verify(match_id=match.pk).ok

    forged = {**first.record, "events": first.record["events"][:-1]}
    Game.objects.filter(pk=first.pk).update(record=forged)
    changed = services.match_verify(match_id=match.pk)
    assert not changed.ok and "different state" in changed.detail

    Game.objects.filter(pk=first.pk).update(record=None)
    missing = services.match_verify(match_id=match.pk)
    assert not missing.ok and "missing" in missing.detail
    # The history and the export still have the game: the log is replayed for it.
    assert full_state(match).to_dict() == replayed.to_dict()


def test_the_migration_copies_old_games_records_from_their_whole_snapshot(start_match):
    from django.apps import apps

    migration = importlib.import_module("matches.migrations.0015_game_record")
    match = play_out(start_match(match_length=3, cube_enabled=False, gammons_enabled=False),
                     random.Random(8))
    replayed = replay_events(match.events.order_by("sequence"))
    # As before the migration: no records, and a snapshot with every game's events.
    Game.objects.filter(match=match).update(record=None)
    Match.objects.filter(pk=match.pk).update(snapshot=replayed.to_dict())
    migration.copy_records(apps, None)
    records = dict(Game.objects.filter(match=match).values_list("number", "record"))
    assert records == {game.number: game.to_dict() for game in replayed.games if game.result}
    assert services.match_verify(match_id=match.pk).ok


def test_a_tampered_roll_fails_the_dice_audit(start_match):
    match = start_match(match_length=1, cube_enabled=False)
    match = play_out(match, random.Random(5))
    assert dice_audit(match)["verified"] is True
    roll = match.events.filter(kind=LogKind.ROLL).first()
    assert roll is not None
    dice = roll.payload["action"]["dice"]
    forged = [dice[0] % 6 + 1, dice[1]]
    Event.objects.filter(pk=roll.pk).update(
        payload={**roll.payload, "action": {**roll.payload["action"], "dice": forged}})
    audit = dice_audit(match)
    assert audit["verified"] is False
    assert [r["matches"] for r in audit["rolls"]].count(False) == 1


def test_the_replay_steps_end_in_the_state_the_snapshot_replay_gives(start_match):
    match = play_out(start_match(match_length=3), random.Random(3), double=0.2)
    events = list(match.events.order_by("sequence"))
    steps = list(replay_steps(match))
    assert [step.event.pk for step in steps] == [event.pk for event in events]
    assert steps[-1].state == replay_events(events)
    assert not steps[-1].event.payload.get("action") and steps[-1].changed is False


def test_a_log_without_its_start_event_does_not_replay(start_match):
    match = play_out(start_match(match_length=1), random.Random(4))
    events = list(match.events.order_by("sequence"))[1:]
    with pytest.raises(ValueError, match="before its start event"):
        replay_events(events)
    match.events.filter(sequence=0).delete()
    assert not services.match_verify(match_id=match.pk).ok


def test_events_are_written_once_with_their_final_payload(start_match):
    """The log is append-only: a flag and a forfeit write their events complete (one insert
    with the match's other new events), never save them again to add when the flag fell or
    why the match was forfeited."""
    match = start_match(dice=[[3, 1], [3, 1]], match_length=5, clock_enabled=True,
                        clock_delay=1, clock_reserve_seconds=1, clock_reserve_per_point=0)
    with CaptureQueriesContext(connection) as context:
        assert clocks.flag_if_expired(match_id=match.pk, now=match.deadline)
        services.match_forfeit(match_id=match.pk, loser=match.player1, reason="No show")
    run = [q["sql"].lstrip().upper() for q in context.captured_queries]
    assert not [sql for sql in run if sql.startswith('UPDATE "MATCHES_EVENT"')]
    # On PostgreSQL the insert rides with the match's update ("WITH logged AS (INSERT ..."),
    # prepared once a session and then executed (matches.services.statements).
    writes = [sql for sql in run if sql.startswith("EXECUTE TAVLA_WRITE_") or (
        sql.startswith(("INSERT", "WITH LOGGED AS (INSERT")) and '"MATCHES_EVENT"' in sql)]
    assert len(writes) == 2
    timeout = match.events.get(kind=LogKind.TIMEOUT).payload
    assert set(timeout) == {"action", "flagged_at", "absent"}
    assert match.events.get(kind=LogKind.FORFEIT).payload["reason"] == "No show"
    assert services.match_verify(match_id=match.pk).ok
