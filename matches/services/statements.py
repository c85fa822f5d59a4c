"""The action path's statements, each compiled once per database thread.

Django builds a query's SQL anew every time it runs it. For the statements every action
makes, that was the largest single cost of a web process under load: in
``benchmarks/live_load.py`` (py-spy, 150 tables) the locked read with its five joins and the
match's update took a third of the process's CPU, most of it in the SQL compiler. Here each
is compiled once per thread and run again with new parameters; on PostgreSQL each is also
prepared once per database session, so its plan is kept too. The locked read's rows become
models through Django's own population code, so callers get what the queryset gives, and
the update writes only the columns the action changed.

Nothing here knows a rule; :mod:`matches.services` decides what to read and write.
"""

from __future__ import annotations

import threading
import weakref
from dataclasses import dataclass
from typing import Any

from django.db import DEFAULT_DB_ALIAS, connections
from django.db.backends.base.base import BaseDatabaseWrapper
from django.db.models import JSONField
from django.db.models.query import get_related_populators
from django.db.transaction import TransactionManagementError
from psycopg.types.json import Jsonb

from matches import jsontext
from matches.models import Event, Match

_PLACEHOLDER_PK = -1  # compiled with this, run with the real id (the statement's only param)


@dataclass(frozen=True)
class _Read:
    """A compiled ``SELECT``: its SQL and what turns its rows into models."""

    connection: BaseDatabaseWrapper
    sql: str
    init_list: list[str]
    fields: tuple[int, int]
    populators: list[Any]
    # (column, converters, expression): what Django's compiler would apply, found once.
    converters: list[tuple[int, list[Any], Any]]


_local = threading.local()


def _compile_locked_read(connection: BaseDatabaseWrapper) -> _Read:
    queryset = (Match.objects.select_for_update(of=("self",))
                .select_related("table", "player0", "player1")
                .filter(pk=_PLACEHOLDER_PK))
    compiler = queryset.query.get_compiler(connection=connection)
    sql, params = compiler.as_sql()
    assert list(params) == [_PLACEHOLDER_PK], params
    klass_info = compiler.klass_info
    assert klass_info is not None
    select = compiler.select
    start, end = klass_info["select_fields"][0], klass_info["select_fields"][-1] + 1
    columns = [column[0] for column in select[0:compiler.col_count]]
    converters = [(position, [_fast_json(converter) for converter in found], expression)
                  for position, (found, expression)
                  in compiler.get_converters(columns).items()]
    return _Read(
        connection=connection, sql=sql, converters=converters,
        init_list=[column[0].target.attname for column in select[start:end]],
        fields=(start, end),
        # (django-stubs describe Django 6's signature, with a fetch mode.)
        populators=get_related_populators(  # type: ignore[call-arg]
            klass_info, select, connection.alias),
    )


def locked_match(match_id: int) -> Match | None:
    """``Match.objects.select_for_update(of=("self",)).select_related("table",
    "table__seat0", "table__seat1", "player0", "player1").filter(pk=match_id).first()``,
    compiled once per thread: the match, row-locked until the transaction ends, or ``None``.

    The table's seats are its match's players while it is played: they are taken from the
    players read, not joined again (PostgreSQL planned the six-table join in 0.4 ms, the
    four-table one in 0.2). A seat held by someone else is read when it is first used.
    """
    connection = connections[DEFAULT_DB_ALIAS]
    if connection.features.has_select_for_update and connection.get_autocommit():
        raise TransactionManagementError("select_for_update cannot be used outside of a "
                                         "transaction.")
    read: _Read | None = getattr(_local, "locked_read", None)
    if read is None or read.connection is not connection:
        read = _local.locked_read = _compile_locked_read(connection)
    with connection.cursor() as cursor:
        cursor.execute(_prepared(connection, "read", read.sql), [match_id])
        rows = cursor.fetchall()
    start, end = read.fields
    for raw in rows:
        row = list(raw)
        for position, converters, expression in read.converters:
            value = row[position]
            for converter in converters:
                value = converter(value, expression, connection)
            row[position] = value
        values = row[start:end]
        match = Match.from_db(connection.alias, read.init_list, values)
        _loaded_values(match, dict(zip(read.init_list, values, strict=True)))
        for populator in read.populators:
            populator.populate(row, match)
        _seats_from_players(match)
        return match
    return None


def _prepared(connection: BaseDatabaseWrapper, kind: str, sql: str) -> str:
    """On PostgreSQL, ``sql`` prepared once per database session (named for its ``kind`` and
    a number), and the ``EXECUTE`` that runs it with the same parameters; elsewhere, or past
    :data:`_MOST_PREPARED` distinct statements, ``sql`` itself.

    PostgreSQL planned the locked read's four-table join on every action: 0.5 ms of its CPU
    for the read, 0.2 ms once the plan is kept (the write: 0.35 against 0.2 ms). ``PREPARE``
    and ``EXECUTE`` are plain SQL, so each statement still goes in one simple-protocol message
    with its parameters bound by psycopg; psycopg's own prepared statements speak the extended
    protocol, and cost PostgreSQL more than they saved (measured, 1 Dec 2026). A prepared
    statement outlives a rolled-back transaction; a new session (Django reconnecting) has a
    new connection object, and prepares again. A pooler that resets sessions under Django
    (PgBouncer in transaction mode) is not supported.
    """
    if connection.vendor != "postgresql":
        return sql
    name = _names.get(sql)
    if name is None:
        with _names_lock:
            if len(_names) >= _MOST_PREPARED:
                return sql
            name = _names.setdefault(sql, f"tavla_{kind}_{len(_names)}")
    connection.ensure_connection()
    raw = connection.connection
    names: set[str] | None = _sessions.get(raw)
    if names is None:
        names = _sessions[raw] = set()
    if name not in names:
        first, *rest = sql.split("%s")
        numbered = first + "".join(f"${number}{part}" for number, part in enumerate(rest, 1))
        with connection.cursor() as cursor:
            cursor.execute(f"PREPARE {name} AS {numbered}")
        names.add(name)
    count = sql.count("%s")
    return f"EXECUTE {name}" + (f"({', '.join(['%s'] * count)})" if count else "")


# Each statement's name, the same in every session of the process; the statements prepared
# in each session (a psycopg connection). The locked read, and a write for each number of
# events and set of changed columns an action has: a few dozen.
_names: dict[str, str] = {}
_names_lock = threading.Lock()
_MOST_PREPARED = 200
_sessions: weakref.WeakKeyDictionary[Any, set[str]] = weakref.WeakKeyDictionary()


def _seats_from_players(match: Match) -> None:
    table = match.table
    players = {match.player0_id: match.player0, match.player1_id: match.player1}
    for seat in ("seat0", "seat1"):
        seat_id = getattr(table, f"{seat}_id")
        if seat_id is None or seat_id in players:
            setattr(table, seat, None if seat_id is None else players[seat_id])


def _fast_json(converter: Any) -> Any:
    """``converter``, or for a plain JSON field's (no custom decoder) the same through
    :mod:`matches.jsontext`: the stored state is decoded on every action."""
    field = getattr(converter, "__self__", None)
    if (getattr(converter, "__func__", None) is not JSONField.from_db_value
            or field is None or field.decoder is not None):
        return converter

    def from_db_value(value: Any, expression: Any, connection: BaseDatabaseWrapper) -> Any:
        if not isinstance(value, str | bytes):
            return value  # None, or a value the backend already decoded
        try:
            return jsontext.loads(value)
        except ValueError:
            return value  # as Django's: text that is not JSON is returned as it is

    return from_db_value


def _db_value(field: Any, value: Any, connection: BaseDatabaseWrapper) -> Any:
    """``field.get_db_prep_save(value, connection)``; a plain JSON field's value encoded
    through :mod:`matches.jsontext`."""
    if (not isinstance(field, JSONField) or field.encoder is not None or value is None
            or hasattr(value, "as_sql")):
        return field.get_db_prep_save(value, connection)
    if connection.vendor == "postgresql":
        return Jsonb(value, dumps=jsontext.dumps)
    return jsontext.dumps(value)


# The match's columns an update may write.
_UPDATABLE: list[Any] = []


def _updatable() -> list[Any]:
    if not _UPDATABLE:
        _UPDATABLE.extend(field for field in Match._meta.concrete_fields
                          if not field.primary_key)
    return _UPDATABLE


def _loaded_values(match: Match, values: dict[str, Any]) -> None:
    """Remember the values ``match`` was read with (by attribute name), so that its update
    writes only the columns the action changed."""
    match._tavla_loaded = values  # type: ignore[attr-defined]  # ours, on our instance


def _update_statement(match: Match, connection: BaseDatabaseWrapper) -> tuple[str, list[Any]]:
    """``match.save()`` as one ``UPDATE``: of the columns whose value changed since the locked
    read, or of every column for a match read otherwise. A JSON column is always written (its
    value may have been changed in place, where no comparison sees it). Each set of columns
    has its SQL built once per thread. An action changes about eight of the 26: fewer values to
    convert, quote and send (the full update cost 90 µs of Python before its quoting)."""
    fields = _updatable()
    loaded: dict[str, Any] | None = getattr(match, "_tavla_loaded", None)
    if loaded is None:
        written = fields
    else:
        written = [field for field in fields if isinstance(field, JSONField)
                   or getattr(match, field.attname) != loaded[field.attname]]
    shape = tuple(field.attname for field in written)
    cache: dict[tuple[str, ...], str] | None = getattr(_local, "updates", None)
    if cache is None or getattr(_local, "updates_connection", None) is not connection:
        cache = _local.updates = {}
        _local.updates_connection = connection
    sql = cache.get(shape)
    if sql is None:
        quote = connection.ops.quote_name
        meta = Match._meta
        assignments = ", ".join(f"{quote(str(field.column))} = %s" for field in written)
        sql = cache[shape] = (f"UPDATE {quote(meta.db_table)} SET {assignments} "
                              f"WHERE {quote(str(meta.pk.column))} = %s")
    params = [_db_value(field, field.pre_save(match, False), connection) for field in written]
    return sql, [*params, match.pk]


def _insert_statement(events: list[Event],
                      connection: BaseDatabaseWrapper) -> tuple[str, list[Any]]:
    """``Event.objects.bulk_create(events)`` as one ``INSERT`` that reads no id back (nothing
    on the action path uses them)."""
    quote = connection.ops.quote_name
    meta = Event._meta
    fields = [field for field in meta.concrete_fields if not field.primary_key]
    row = "(" + ", ".join(["%s"] * len(fields)) + ")"
    sql = (f"INSERT INTO {quote(meta.db_table)} "
           f"({', '.join(quote(str(field.column)) for field in fields)}) "
           f"VALUES {', '.join([row] * len(events))}")
    return sql, [_db_value(field, field.pre_save(event, True), connection)
                 for event in events for field in fields]


def write_action(match: Match, events: list[Event]) -> None:
    """Write an action's new ``events`` and the ``match`` they leave (the caller holds the
    match's row lock). On PostgreSQL both go in one statement (the insert as a data-modifying
    ``WITH``, run to completion whatever the update does): one statement fewer per action
    for both ends to parse, plan and answer. Elsewhere, the insert then the update. No
    ``pre_save``/``post_save`` signal is sent: nothing listens for these, and the action path
    is where that cost would be paid."""
    connection = connections[DEFAULT_DB_ALIAS]
    update, update_params = _update_statement(match, connection)
    with connection.cursor() as cursor:
        if events and connection.vendor == "postgresql":
            insert, insert_params = _insert_statement(events, connection)
            sql = _prepared(connection, "write", f"WITH logged AS ({insert}) {update}")
            cursor.execute(sql, [*insert_params, *update_params])
        else:
            if events:
                cursor.execute(*_insert_statement(events, connection))
            cursor.execute(update, update_params)
        if cursor.rowcount != 1:
            raise Match.DoesNotExist(f"Match {match.pk} is gone.")
    loaded: dict[str, Any] | None = getattr(match, "_tavla_loaded", None)
    if loaded is not None:  # what the row holds now, for a second write in this transaction
        loaded.update((field.attname, getattr(match, field.attname)) for field in _updatable())
