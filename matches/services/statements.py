"""The action path's two statements, in plain SQL through the public cursor API.

Every action reads its match locked (with its table and players) and writes its events and
the match back. Django builds a query's SQL anew each time it runs it, and in
``benchmarks/live_load.py`` (py-spy, 150 tables) that locked read with its joins and the
update took a third of a web process's CPU, most of it in the SQL compiler. So these two are
written here by hand, once per shape, from the models' documented ``_meta`` (table and column
names), run through ``connection.cursor()``, and their rows become models through
``Model.from_db``; values are converted with the fields' documented ``from_db_value``,
``pre_save`` and ``get_db_prep_save``. The update writes only the columns the action changed.

On PostgreSQL each statement is also prepared once per database session (``PREPARE`` and
``EXECUTE`` are plain SQL), so its plan is kept: see :func:`_prepared`. A pooler that does
not keep a session for Django (PgBouncer in transaction mode) needs
``TAVLA_PREPARED_STATEMENTS=0``, which sends the same statements unprepared.

Nothing here knows a rule; :mod:`matches.services` decides what to read and write.
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from typing import Any

from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, connections
from django.db.backends.base.base import BaseDatabaseWrapper
from django.db.models import DateTimeField, Field, JSONField, Model
from django.db.transaction import TransactionManagementError
from django.utils import timezone
from django.utils.dateparse import parse_datetime
from psycopg.types.json import Jsonb

from matches import jsontext
from matches.models import Event, Match, Player, Table

Placeholder = Callable[[int], str]


def _percent(number: int) -> str:
    return "%s"  # the driver binds the parameters: the statement as sent


def _dollar(number: int) -> str:
    return f"${number}"  # a parameter of a prepared statement (PostgreSQL numbers them)


def _concrete(model: type[Model]) -> list[Field[Any, Any]]:
    return list(model._meta.concrete_fields)


def _column(field: Any) -> str:
    """A concrete field's column name (every concrete field has one)."""
    return str(field.column)


# -- reading -----------------------------------------------------------------------------------

# The models the locked read joins, in the order of their columns in its rows.
_READ_MODELS: tuple[type[Model], ...] = (Match, Table, Player, Player)


def _locked_read_sql(connection: BaseDatabaseWrapper, placeholder: Placeholder) -> str:
    """``SELECT`` the match, its table and its two players by the match's id, locking the
    match's row only (``FOR UPDATE OF``) where the database locks rows."""
    quote = connection.ops.quote_name
    aliases = ("m", "t", "p0", "p1")
    columns = ", ".join(f"{alias}.{quote(_column(field))}"
                        for alias, model in zip(aliases, _READ_MODELS, strict=True)
                        for field in _concrete(model))
    match, table, player = Match._meta, Table._meta, Player._meta

    def join(alias: str, meta: Any, foreign_key: str) -> str:
        column = _column(match.get_field(foreign_key))
        return (f"JOIN {quote(meta.db_table)} {alias} "
                f"ON {alias}.{quote(_column(meta.pk))} = m.{quote(column)}")

    sql = (f"SELECT {columns} FROM {quote(match.db_table)} m "
           f"{join('t', table, 'table')} {join('p0', player, 'player0')} "
           f"{join('p1', player, 'player1')} "
           f"WHERE m.{quote(_column(match.pk))} = {placeholder(1)}")
    if connection.features.has_select_for_update_of:
        sql += " FOR UPDATE OF m"
    elif connection.features.has_select_for_update:
        sql += " FOR UPDATE"
    return sql


def _reader(field: Field[Any, Any], connection: BaseDatabaseWrapper) -> Callable[[Any], Any] | None:
    """What turns ``field``'s column as the driver returns it into the model's value, as the
    ORM does; ``None`` when it is the value already."""
    if isinstance(field, JSONField) and field.decoder is None:
        # The stored state is decoded on every action: through orjson (matches/jsontext).
        def json_value(value: Any) -> Any:
            if not isinstance(value, str | bytes):
                return value  # None, or a value the driver already decoded
            try:
                return jsontext.loads(value)
            except ValueError:
                return value  # as Django's: text that is not JSON is returned as it is

        return json_value
    from_db_value = getattr(field, "from_db_value", None)
    if from_db_value is not None:
        return lambda value: from_db_value(value, None, connection)
    if isinstance(field, DateTimeField) and connection.vendor == "sqlite":
        # SQLite stores a datetime as text: PostgreSQL's driver gives aware datetimes.
        def datetime_value(value: Any) -> Any:
            if value is None:
                return None
            if not isinstance(value, datetime):
                value = parse_datetime(value)
            if settings.USE_TZ and timezone.is_naive(value):
                value = timezone.make_aware(value, UTC)
            return value

        return datetime_value
    return None


class _Shape:
    """The locked read's SQL for one connection and how to cut its rows into models."""

    def __init__(self, connection: BaseDatabaseWrapper) -> None:
        self.connection = connection
        self.sql = _locked_read_sql(connection, _percent)
        self.prepare = _locked_read_sql(connection, _dollar)
        self.models: list[tuple[type[Model], list[str], int, int]] = []
        self.readers: list[tuple[int, Callable[[Any], Any]]] = []
        start = 0
        for model in _READ_MODELS:
            fields = _concrete(model)
            self.models.append((model, [field.attname for field in fields],
                                start, start + len(fields)))
            for offset, field in enumerate(fields):
                reader = _reader(field, connection)
                if reader is not None:
                    self.readers.append((start + offset, reader))
            start += len(fields)


_local = threading.local()


def locked_match(match_id: int) -> Match | None:
    """``Match.objects.select_for_update(of=("self",)).select_related("table",
    "table__seat0", "table__seat1", "player0", "player1").filter(pk=match_id).first()`` in
    one statement: the match, row-locked until the transaction ends, or ``None``.

    The table's seats are its match's players while it is played: they are taken from the
    players read, not joined again (PostgreSQL planned the six-table join in 0.4 ms, the
    four-table one in 0.2). A seat held by someone else is read when it is first used.

    Raises ``TransactionManagementError`` outside a transaction (where rows are locked).
    """
    connection = connections[DEFAULT_DB_ALIAS]
    if connection.features.has_select_for_update and connection.get_autocommit():
        raise TransactionManagementError("select_for_update cannot be used outside of a "
                                         "transaction.")
    shape: _Shape | None = getattr(_local, "shape", None)
    if shape is None or shape.connection is not connection:
        shape = _local.shape = _Shape(connection)
    with connection.cursor() as cursor:
        cursor.execute(_prepared(cursor, connection, "read", shape.sql, shape.prepare, 1),
                       [match_id])
        row = cursor.fetchone()
    if row is None:
        return None
    values = list(row)
    for position, reader in shape.readers:
        values[position] = reader(values[position])
    match, table, player0, player1 = (
        model.from_db(connection.alias, names, values[start:end])
        for model, names, start, end in shape.models)
    assert isinstance(match, Match) and isinstance(table, Table)
    assert isinstance(player0, Player) and isinstance(player1, Player)
    _remember(match, values[shape.models[0][2]:shape.models[0][3]], shape.models[0][1])
    # Assigned through the relations' public descriptors: the ids are the same ones.
    match.table, match.player0, match.player1 = table, player0, player1
    players = {player0.pk: player0, player1.pk: player1}
    for seat in ("seat0", "seat1"):
        seat_id = getattr(table, f"{seat}_id")
        if seat_id is None or seat_id in players:
            setattr(table, seat, None if seat_id is None else players[seat_id])
    return match


# -- what a match was read with ----------------------------------------------------------------

# Each match read locked, by identity, with the values (by attribute name) its row holds, so
# that its update writes only the columns the action changed. Nothing is stored on the model
# instance; an entry goes when its instance does.
_loaded: dict[int, tuple[weakref.ref[Match], dict[str, Any]]] = {}


def _remember(match: Match, values: Sequence[Any], names: Sequence[str]) -> None:
    key = id(match)
    _loaded[key] = (weakref.ref(match), dict(zip(names, values, strict=True)))
    weakref.finalize(match, _loaded.pop, key, None)


def _loaded_values(match: Match) -> dict[str, Any] | None:
    entry = _loaded.get(id(match))
    if entry is None or entry[0]() is not match:
        return None
    return entry[1]


# -- writing ----------------------------------------------------------------------------------


def _db_value(field: Field[Any, Any], value: Any, connection: BaseDatabaseWrapper) -> Any:
    """``field.get_db_prep_save(value, connection)``; a plain JSON field's value encoded
    through :mod:`matches.jsontext`."""
    if (not isinstance(field, JSONField) or field.encoder is not None or value is None
            or hasattr(value, "as_sql")):
        return field.get_db_prep_save(value, connection)
    if connection.vendor == "postgresql":
        return Jsonb(value, dumps=jsontext.dumps)
    return jsontext.dumps(value)


def _updatable() -> list[Field[Any, Any]]:
    """The match's columns an update may write."""
    return [field for field in _concrete(Match) if not field.primary_key]


def _written(match: Match) -> list[Field[Any, Any]]:
    """The columns whose value changed since the locked read, or every column for a match
    read otherwise. A JSON column is always written (its value may have been changed in
    place, where no comparison sees it). An action changes about eight of the 26: fewer
    values to convert, quote and send (the full update cost 90 µs of Python)."""
    fields = _updatable()
    loaded = _loaded_values(match)
    if loaded is None:
        return fields
    return [field for field in fields if isinstance(field, JSONField)
            or getattr(match, field.attname) != loaded[field.attname]]


def _update_sql(connection: BaseDatabaseWrapper, columns: Sequence[str], first: int,
                placeholder: Placeholder) -> str:
    """``UPDATE`` the match's ``columns`` by its id; parameters numbered from ``first``."""
    quote = connection.ops.quote_name
    meta = Match._meta
    assignments = ", ".join(f"{quote(column)} = {placeholder(first + index)}"
                            for index, column in enumerate(columns))
    return (f"UPDATE {quote(meta.db_table)} SET {assignments} "
            f"WHERE {quote(_column(meta.pk))} = {placeholder(first + len(columns))}")


def _insert_sql(connection: BaseDatabaseWrapper, rows: int, placeholder: Placeholder) -> str:
    """``INSERT`` ``rows`` events in one statement, reading no id back (nothing on the action
    path uses them); parameters numbered from 1."""
    quote = connection.ops.quote_name
    meta = Event._meta
    columns = [_column(field) for field in _event_fields()]
    numbers = iter(range(1, rows * len(columns) + 1))
    values = ", ".join("(" + ", ".join(placeholder(next(numbers)) for _ in columns) + ")"
                       for _ in range(rows))
    return (f"INSERT INTO {quote(meta.db_table)} "
            f"({', '.join(quote(column) for column in columns)}) VALUES {values}")


def _write_sql(connection: BaseDatabaseWrapper, rows: int,
               columns: list[str]) -> tuple[str, str]:
    """The write of ``rows`` events (none: the update alone) and the match's ``columns``, as
    sent and as prepared (``$`` parameters); each shape built once per kind of database."""
    key = (connection.vendor, rows, tuple(columns))
    found = _write_statements.get(key)
    if found is None:
        def write(placeholder: Placeholder) -> str:
            if not rows:
                return _update_sql(connection, columns, 1, placeholder)
            first = rows * len(_event_fields()) + 1  # after the events' parameters
            return (f"WITH logged AS ({_insert_sql(connection, rows, placeholder)}) "
                    f"{_update_sql(connection, columns, first, placeholder)}")

        found = _write_statements[key] = (write(_percent), write(_dollar))
    return found


# The write statements built so far: one for each number of events and set of changed
# columns an action has (a few dozen).
_write_statements: dict[tuple[str, int, tuple[str, ...]], tuple[str, str]] = {}


def _event_fields() -> list[Field[Any, Any]]:
    """The event's columns an insert writes (all but its id)."""
    return [field for field in _concrete(Event) if not field.primary_key]


def _event_params(events: list[Event], connection: BaseDatabaseWrapper) -> list[Any]:
    fields = _event_fields()
    return [_db_value(field, field.pre_save(event, True), connection)
            for event in events for field in fields]


def update_columns(match: Match) -> list[str]:
    """The columns :func:`write_action` would write for ``match`` now (see :func:`_written`)."""
    return [_column(field) for field in _written(match)]


def write_action(match: Match, events: list[Event]) -> None:
    """Write an action's new ``events`` and the ``match`` they leave; the caller holds the
    match's row lock. On PostgreSQL both go in one statement (the insert as a data-modifying
    ``WITH``, run to completion whatever the update does): one statement fewer per action for
    both ends to parse, plan and answer. Elsewhere, the insert then the update. No
    ``pre_save``/``post_save`` signal is sent: nothing listens for these, and the action path
    is where that cost would be paid.

    Raises ``Match.DoesNotExist`` if the match's row is gone, and the database's error (for
    example ``IntegrityError`` for an event's sequence number used twice), with nothing
    written by this call left in the transaction's outcome once it rolls back.
    """
    connection = connections[DEFAULT_DB_ALIAS]
    written = _written(match)
    columns = [_column(field) for field in written]
    update_params = [*(_db_value(field, field.pre_save(match, False), connection)
                       for field in written), match.pk]
    with connection.cursor() as cursor:
        if events and connection.vendor == "postgresql":
            insert_params = _event_params(events, connection)
            sql, numbered = _write_sql(connection, len(events), columns)
            sql = _prepared(cursor, connection, "write", sql, numbered,
                            len(insert_params) + len(update_params))
            cursor.execute(sql, [*insert_params, *update_params])
        else:
            if events:
                cursor.execute(_insert_sql(connection, len(events), _percent),
                               _event_params(events, connection))
            sql, numbered = _write_sql(connection, 0, columns)
            cursor.execute(_prepared(cursor, connection, "write", sql, numbered,
                                     len(update_params)), update_params)
        if cursor.rowcount != 1:
            raise Match.DoesNotExist(f"Match {match.pk} is gone.")
    loaded = _loaded_values(match)
    if loaded is not None:  # what the row holds now, for a second write in this transaction
        loaded.update((field.attname, getattr(match, field.attname)) for field in written)


# -- prepared statements -----------------------------------------------------------------------


def prepared_statements_enabled(connection: BaseDatabaseWrapper) -> bool:
    """Whether :func:`_prepared` prepares on ``connection``: PostgreSQL, unless the
    ``TAVLA_PREPARED_STATEMENTS`` setting is off (a pooler without sessions)."""
    return (connection.vendor == "postgresql"
            and bool(getattr(settings, "TAVLA_PREPARED_STATEMENTS", True)))


def _prepared(cursor: Any, connection: BaseDatabaseWrapper, kind: str, sql: str,
              numbered: str, count: int) -> str:
    """The statement to run for ``sql`` (whose ``count`` parameters are ``%s``): on
    PostgreSQL, the ``EXECUTE`` of ``numbered`` (the same statement with ``$1``..``$count``),
    prepared first if this database session has not prepared it yet; otherwise, or past
    :data:`_MOST_PREPARED` distinct statements, ``sql`` itself.

    PostgreSQL planned the locked read's four-table join on every action: 0.5 ms of its CPU
    for the read, 0.2 ms once the plan is kept (the write: 0.35 against 0.2 ms). ``PREPARE``
    and ``EXECUTE`` are plain SQL, so each statement still goes in one simple-protocol message
    with its parameters bound by psycopg; psycopg's own prepared statements speak the extended
    protocol, and cost PostgreSQL more than they saved (``benchmarks/action_cost.py``). A
    prepared statement outlives a rolled-back transaction and lives as long as its session:
    the sessions are told apart by the driver's connection (psycopg's public
    ``Cursor.connection``), which is new for every new session, pooled or not.
    """
    if not prepared_statements_enabled(connection):
        return sql
    name = _names.get(numbered)
    if name is None:
        with _names_lock:
            if len(_names) >= _MOST_PREPARED:
                return sql
            name = _names.setdefault(numbered, f"tavla_{kind}_{len(_names)}")
    session = cursor.connection
    names = _sessions.get(session)
    if names is None:
        names = _sessions[session] = set()
    if name not in names:
        cursor.execute(f"PREPARE {name} AS {numbered}")
        names.add(name)
    return f"EXECUTE {name}" + (f"({', '.join(['%s'] * count)})" if count else "")


# Each statement's name, the same in every session of the process; the statements prepared
# in each session (a psycopg connection). The locked read, and a write for each number of
# events and set of changed columns an action has: a few dozen.
_names: dict[str, str] = {}
_names_lock = threading.Lock()
_MOST_PREPARED = 200
_sessions: weakref.WeakKeyDictionary[Any, set[str]] = weakref.WeakKeyDictionary()
