"""The action path's compiled statements give what the ORM gives, and an action whose
write fails changes nothing."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.db import IntegrityError, connection, transaction
from django.db.transaction import TransactionManagementError
from django.test.utils import CaptureQueriesContext

from matches import services
from matches.models import Event, Match, Table
from matches.services import statements
from tests.matches.conftest import act


def _fields(instance: Any) -> dict[str, Any]:
    return {f.attname: getattr(instance, f.attname) for f in instance._meta.concrete_fields}


def test_the_locked_read_gives_what_the_queryset_gives(start_match: Callable[..., Match]) -> None:
    match = act(start_match(dice=[[3, 1], [5, 2]]), 0, "play", "8/5 6/5")
    with transaction.atomic():
        read = statements.locked_match(match.pk)
        again = statements.locked_match(match.pk)  # compiled once, run twice
        orm = (Match.objects.select_related("table", "table__seat0", "table__seat1",
                                            "player0", "player1").get(pk=match.pk))
        assert statements.locked_match(match.pk + 1000) is None
    assert read is not None and again is not None
    assert _fields(read) == _fields(orm) == _fields(again)
    for related in ("table", "player0", "player1"):
        assert _fields(getattr(read, related)) == _fields(getattr(orm, related))
    assert read.player0.user_id == orm.player0.user_id
    assert not read._state.adding and read._state.db == "default"
    # The seats are the players read, with no query of their own.
    with CaptureQueriesContext(connection) as seats:
        assert _fields(read.table.seat0) == _fields(orm.table.seat0)
        assert _fields(read.table.seat1) == _fields(orm.table.seat1)
        assert read.table.seat0 is read.player0 and read.table.seat1 is read.player1
    assert len(seats.captured_queries) == 0


def test_a_seat_that_is_not_the_match_players_is_read_when_used(
        start_match: Callable[..., Match]) -> None:
    match = start_match()
    other = services.player_for_user(User.objects.create(username="other"))
    Table.objects.filter(pk=match.table_id).update(seat0=other, seat1=None)
    with transaction.atomic():
        read = statements.locked_match(match.pk)
        assert read is not None
        with CaptureQueriesContext(connection) as seats:
            assert read.table.seat1 is None
        assert len(seats.captured_queries) == 0
        assert read.table.seat0 == other and read.table.seat0.display_name == "other"


@pytest.mark.django_db(transaction=True)
def test_the_locked_read_refuses_to_run_outside_a_transaction(
        start_match: Callable[..., Match]) -> None:
    match = start_match()
    if not connection.features.has_select_for_update:
        pytest.skip("SQLite locks the whole database instead of a row")
    with pytest.raises(TransactionManagementError):
        statements.locked_match(match.pk)


def test_the_action_write_writes_every_column(
        start_match: Callable[..., Match]) -> None:
    match = start_match(dice=[[3, 1], [5, 2]])
    match.score1 = 2
    match.version += 7
    match.snapshot = {**match.snapshot, "note": "ü"}
    match.rematch_offers = [1]
    events = [Event(match=match, sequence=match.next_sequence + i, game_number=1, kind="roll",
                    actor_id=None, payload={"n": i}) for i in range(3)]
    with transaction.atomic():
        statements.write_action(match, events)
    fresh = Match.objects.get(pk=match.pk)
    assert _fields(fresh) == _fields(match)
    written = list(Event.objects.filter(match=match, payload__has_key="n").order_by("sequence"))
    assert [e.payload["n"] for e in written] == [0, 1, 2]
    assert all(e.created_at is not None for e in written)


def test_a_locked_match_writes_the_columns_it_changed_and_every_json_column(
        start_match: Callable[..., Match]) -> None:
    """After the locked read, the update writes what changed (compared with what was read)
    and every JSON column, even one changed in place; a second write in the transaction
    compares with the first's values."""
    match = start_match(dice=[[3, 1], [5, 2]])
    with transaction.atomic():
        read = statements.locked_match(match.pk)
        assert read is not None
        read.score1 = 2
        read.rematch_offers.append(1)  # in place: no comparison could see it
        columns = statements.update_columns(read)
        assert {"score1", "rematch_offers", "snapshot"} <= set(columns)
        assert not {"score0", "dice_seed", "status"} & set(columns)
        statements.write_action(read, [])
        read.version += 1
        again = statements.update_columns(read)
        assert "version" in again and "score1" not in again
        statements.write_action(read, [])
    fresh = Match.objects.get(pk=match.pk)
    assert (fresh.score1, fresh.rematch_offers, fresh.version) == (2, [1], match.version + 1)
    assert _fields(fresh) == _fields(read)


def test_an_action_is_two_or_three_statements(start_match: Callable[..., Match]) -> None:
    """The locked read, then the events' insert with the match's update (one statement on
    PostgreSQL, two elsewhere), and the savepoint of the test's own transaction: at most 5
    queries, as issue 15 asks."""
    match = start_match(dice=[[3, 1], [5, 2]], cube_enabled=False)
    player = match.player0  # loaded, as a caller that acts has its player
    with CaptureQueriesContext(connection) as context:
        services.match_act(match_id=match.pk, player=player, action="play",
                           play="8/5 6/5", expected_version=match.version)
    statements_run = [q["sql"].split()[0].upper() for q in context.captured_queries
                      if "SAVEPOINT" not in q["sql"].upper()]
    # On PostgreSQL both are prepared once per database session and then executed.
    executed = [sql for sql in statements_run if sql != "PREPARE"]
    assert executed == (["EXECUTE", "EXECUTE"] if connection.vendor == "postgresql"
                        else ["SELECT", "INSERT", "UPDATE"])
    assert len(context.captured_queries) - statements_run.count("PREPARE") <= 5


@pytest.mark.django_db(transaction=True)
def test_postgresql_prepares_each_statement_once_a_session(
        start_match: Callable[..., Match]) -> None:
    """The locked read and the write are prepared the first time a database session runs
    them, executed after that, and prepared again in a new session (Django reconnecting)."""
    if connection.vendor != "postgresql":
        pytest.skip("only PostgreSQL's statements are prepared")
    match = start_match(dice=[[3, 1], [5, 2], [6, 4]], cube_enabled=False)
    connection.close()  # a new session: nothing prepared in it yet

    def run(player: Any, play: str | None, action: str) -> list[str]:
        fresh = Match.objects.get(pk=match.pk)
        with CaptureQueriesContext(connection) as context:
            services.match_act(match_id=match.pk, player=player, action=action, play=play,
                               expected_version=fresh.version)
        return [q["sql"].split()[0].upper() for q in context.captured_queries
                if q["sql"].split()[0].upper() in {"PREPARE", "EXECUTE", "SELECT", "WITH"}]

    assert run(match.player0, "8/5 6/5", "play") == ["PREPARE", "EXECUTE", "PREPARE", "EXECUTE"]
    # The next play writes as many events (the play and the roll after it): nothing to prepare.
    assert run(match.player1, "13/8 6/4", "play") == ["EXECUTE", "EXECUTE"]
    connection.close()
    assert run(match.player0, "24/18 13/9", "play")[:2] == ["PREPARE", "EXECUTE"]
    assert services.match_verify(match_id=match.pk).ok


@pytest.mark.django_db(transaction=True)
def test_a_failed_write_changes_nothing(start_match: Callable[..., Match],
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    match = start_match(dice=[[3, 1], [5, 2]], cube_enabled=False)
    before = Match.objects.get(pk=match.pk)
    count = Event.objects.filter(match=match).count()
    real_write = statements.write_action

    def write_twice(match: Match, events: list[Event]) -> None:
        real_write(match, [*events, events[0]])  # the same sequence number twice

    monkeypatch.setattr(statements, "write_action", write_twice)
    with pytest.raises(IntegrityError):
        services.match_act(match_id=match.pk, player=match.player0, action="play",
                           play="8/5 6/5", expected_version=match.version)
    monkeypatch.setattr(statements, "write_action", real_write)
    assert _fields(Match.objects.get(pk=match.pk)) == _fields(before)
    assert Event.objects.filter(match=match).count() == count
    act(match, 0, "play", "8/5 6/5")  # the connection is usable, the action can be made
    assert Match.objects.get(pk=match.pk).version == before.version + 1


@pytest.mark.django_db(transaction=True)
def test_the_locked_read_locks_the_match_row_and_nothing_else(
        start_match: Callable[..., Match]) -> None:
    """Another session cannot lock the match while the read's transaction lasts, and can
    lock its table and players (``FOR UPDATE OF`` the match only)."""
    if connection.vendor != "postgresql":
        pytest.skip("SQLite locks the whole database instead of a row")
    import psycopg

    match = start_match()
    settings_dict = connection.settings_dict
    other = psycopg.connect(dbname=settings_dict["NAME"], user=settings_dict["USER"],
                            host=settings_dict["HOST"], port=settings_dict["PORT"] or 5432,
                            password=settings_dict["PASSWORD"] or None)

    def lockable(table: str, pk: int) -> bool:
        try:
            with other.transaction():
                other.execute(f"SELECT 1 FROM {table} WHERE id = %s FOR UPDATE NOWAIT", [pk])
            return True
        except psycopg.errors.LockNotAvailable:
            return False

    try:
        with transaction.atomic():
            read = statements.locked_match(match.pk)
            assert read is not None
            assert not lockable(Match._meta.db_table, match.pk)
            assert lockable(Table._meta.db_table, match.table_id)
            assert lockable("matches_player", match.player0_id)
        assert lockable(Match._meta.db_table, match.pk)  # the lock ends with the transaction
    finally:
        other.close()


def test_unprepared_statements_give_the_same_match(start_match: Callable[..., Match],
                                                   settings: Any) -> None:
    """With ``TAVLA_PREPARED_STATEMENTS`` off (a pooler without sessions) the same plain SQL
    runs unprepared, and reads and writes the same."""
    settings.TAVLA_PREPARED_STATEMENTS = False
    match = act(start_match(dice=[[3, 1], [5, 2]], cube_enabled=False), 0, "play", "8/5 6/5")
    with CaptureQueriesContext(connection) as context, transaction.atomic():
        read = statements.locked_match(match.pk)
        assert read is not None
        read.score0 = 1
        statements.write_action(read, [])
    kinds = {q["sql"].split()[0].upper() for q in context.captured_queries}
    assert not kinds & {"PREPARE", "EXECUTE"}
    assert _fields(Match.objects.get(pk=match.pk)) == _fields(read)


def test_what_a_read_remembers_goes_with_the_match(start_match: Callable[..., Match]) -> None:
    """The values a match was read with are kept for its update only as long as the match
    itself: a process reading thousands of matches keeps none of them."""
    import gc

    match = start_match()
    before = len(statements._loaded)
    with transaction.atomic():
        for _ in range(50):
            read = statements.locked_match(match.pk)
            assert read is not None and statements.update_columns(read)
        del read
    gc.collect()
    assert len(statements._loaded) <= before


def test_a_match_not_read_locked_writes_every_column(start_match: Callable[..., Match]) -> None:
    match = Match.objects.get(pk=start_match().pk)
    assert statements.update_columns(match) == [
        field.column for field in Match._meta.concrete_fields if not field.primary_key]
