"""The measured phases of ``make multihost`` (phases 2 to 7 of :mod:`deploy.multihost.run`),
each adding its figures to the :class:`Run` and what failed to its failures.

This module reads Tavla's database through Django, so the inner process imports it only once
the hosts run and Django is set up with the cluster's settings.
"""

from __future__ import annotations

import argparse
import os
import signal
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY
from django.contrib.auth.models import User
from django.contrib.sessions.backends.db import SessionStore
from django.db import connection

from deploy.multihost.cluster import Cluster, StartError, wait_for
from deploy.multihost.network import Network
from deploy.multihost.watch import (
    Bots,
    Monitor,
    fmt,
    haproxy_servers,
    log_ids,
    read_metrics,
    rss_mb,
    say,
    servers_are,
)
from deploy.observe import cpu_seconds, missing_families, report, total
from matches import services
from matches.models import Event, LogKind, Match, MatchStatus

RECONNECT_TARGET = 10.0
FLAG_TARGET = 5.0


@dataclass
class Run:
    """One run's hosts, bots and tables, and what it found so far."""

    args: argparse.Namespace
    network: Network
    cluster: Cluster
    monitor: Monitor
    bots: Bots
    tables: list[dict[str, Any]]
    figures: list[str] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)
    missed: list[str] = field(default_factory=list)  # time targets: checks, or figures

    @property
    def table_ids(self) -> list[int]:
        return [table["id"] for table in self.tables]

    def figure(self, line: str) -> None:
        self.figures.append(line)
        say(line)

    def every_table_acts_since(self, since: float) -> bool:
        with self.monitor.lock:
            acting = {m for m, when in self.monitor.last_ack_of_match.items() if when >= since}
        playing = set(Match.objects.filter(pk__in=acting).values_list("table_id", flat=True))
        return playing >= set(self.table_ids)


def seat_tables(args: argparse.Namespace) -> list[dict[str, Any]]:
    """Users with sessions, and clocked tables with both seats taken (the matches start)."""
    users = User.objects.bulk_create([User(username=f"mh-{i}", password="!")
                                      for i in range(2 * args.tables)])
    sessions = []
    for user in users:
        store = SessionStore()
        store[SESSION_KEY] = str(user.pk)
        store[BACKEND_SESSION_KEY] = "django.contrib.auth.backends.ModelBackend"
        store[HASH_SESSION_KEY] = user.get_session_auth_hash()
        store.create()
        sessions.append(store.session_key)
    tables = []
    for index in range(args.tables):
        table = services.table_create(
            name=f"multihost {index}", match_length=3, is_rated=False, clock_enabled=True,
            clock_delay=args.delay, clock_reserve_seconds=args.reserve,
            clock_reserve_per_point=0, grace_seconds=600)
        for seat in (0, 1):
            services.table_sit(table_id=table.pk,
                               player=services.player_for_user(users[2 * index + seat]))
        tables.append({"id": table.pk, "players": sessions[2 * index: 2 * index + 2]})
    return tables


def storage() -> tuple[int, int]:
    """The database's size and the WAL written so far, in bytes."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_database_size(current_database()), "
                       "pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')")
        size, wal = cursor.fetchone()
    return int(size), int(wal)


def boards_open(run: Run) -> None:
    """Phase 2's start: every board greeted through the proxy and every table acting."""
    boards = 2 * len(run.tables)
    monitor = run.monitor
    try:
        took = wait_for("every board greeted", lambda: len(monitor.greeted) == boards, 180,
                        0.2)
    except StartError as error:
        raise StartError(f"{error} ({len(monitor.greeted)} of {boards})") from None
    t0 = time.time()
    wait_for("every table playing", lambda: run.every_table_acts_since(t0), 180, 0.5)
    say(f"{boards} boards open through the proxy ({took:.1f} s); every table playing")


def steady_play(run: Run) -> None:
    """Phase 2: ``--steady`` seconds of play, measured per host and from ``/metrics``."""
    hosts = run.network.hosts
    pids = {name: host.pids() for name, host in hosts.items() if name != "client"}
    cpu_before = {name: cpu_seconds(p) for name, p in pids.items()}
    metrics_before = read_metrics(run.cluster)
    window_from = time.time()
    time.sleep(run.args.steady)  # the measured window
    window = time.time() - window_from
    metrics_after = read_metrics(run.cluster)
    actions = run.monitor.acks_since(window_from)
    cpu = {name: cpu_seconds(p) - cpu_before[name] for name, p in pids.items()}
    sessions = {name: row.get("scur", "?") for name, row in haproxy_servers().items()}
    per_action = ", ".join(f"{name} {1000 * seconds / max(actions, 1):.1f} ms"
                           for name, seconds in cpu.items())
    memory = ", ".join(f"{name} {rss_mb(p):.0f} MB" for name, p in pids.items())
    run.figure(f"steady play: {len(run.tables)} tables, {actions / window:.1f} actions/s "
               f"over {window:.0f} s; boards per web host {sessions}; CPU per "
               f"action: {per_action}; resident memory: {memory}")
    for line in report(metrics_before, metrics_after, window):
        run.figure(line)
    lacking = missing_families(metrics_after)
    if metrics_after.failures or lacking:
        run.failures.append("/metrics without its figures: "
                            + "; ".join([*metrics_after.failures, *lacking]))
    if not total(metrics_after.samples, "tavla_open_sockets"):
        run.failures.append(f"/metrics counts no open socket while {2 * len(run.tables)} "
                            "boards play")


def web_host_dies(run: Run) -> None:
    """Phase 3: web1's processes killed and its cable pulled; its boards must be greeted
    again by web2 within :data:`RECONNECT_TARGET`; then web1 comes back."""
    monitor = run.monitor
    victim = run.network.hosts["web1"]
    t_kill = time.time()
    victim.signal_all(signal.SIGKILL)
    run.network.cable(victim, plugged=False)

    def moved() -> dict[tuple[int, int], float | None]:
        with monitor.lock:
            out: dict[tuple[int, int], float | None] = {}
            for board, closes in monitor.closed.items():
                if any(c >= t_kill for c in closes):
                    again = [g for g in monitor.greeted[board] if g >= t_kill]
                    out[board] = min(again) if again else None
            return out

    wait_for("web1 DOWN in HAProxy", lambda: servers_are({"web1": "DOWN"}), 30, 0.2)
    detected = time.time() - t_kill
    try:
        wait_for("every board of web1 greeted again",
                 lambda: bool(moved()) and all(v is not None for v in moved().values()),
                 60, 0.2)
    except StartError as error:
        waiting = sum(1 for v in moved().values() if v is None)
        raise StartError(f"{error}: {waiting} of {len(moved())} still away; why boards "
                         f"closed: {dict(monitor.close_reasons)}") from None
    reconnects = [when - t_kill for when in moved().values() if when is not None]
    worst = max(reconnects)
    run.figure(f"web host killed: HAProxy marked it DOWN {detected:.1f} s after the "
               f"kill; {len(reconnects)} boards back through the proxy on web2, "
               f"{fmt(reconnects)} after the kill (target {RECONNECT_TARGET:.0f} s: "
               f"{'met' if worst <= RECONNECT_TARGET else 'MISSED'})")
    if worst > RECONNECT_TARGET:
        run.missed.append("boards reconnected too late")
    run.network.cable(victim, plugged=True)
    run.cluster.start_web(victim)
    wait_for("web1 back UP", lambda: servers_are({"web1": "UP"}), 120, 0.2)


def worker_host_stops(run: Run) -> None:
    """Phase 4: the worker host frozen for ``--outage`` seconds while the players of
    ``--stall-tables`` tables walk away; every overdue flag must fall within
    :data:`FLAG_TARGET` of its return, and be counted in ``/metrics``."""
    stall = run.table_ids[: run.args.stall_tables]
    run.bots.command({"cmd": "stall", "tables": stall})
    worker = run.network.hosts["worker"]
    frozen = worker.signal_all(signal.SIGSTOP)
    t_stop = time.time()
    say(f"worker host stopped ({frozen} processes frozen); the players of {len(stall)} "
        "tables walk away")
    time.sleep(max(0.0, t_stop + run.args.outage - time.time()))  # the fault's length
    now = datetime.now(tz=UTC)
    overdue = dict(Match.objects.filter(status=MatchStatus.PLAYING, deadline__lt=now,
                                        table_id__in=run.table_ids)
                   .values_list("pk", "deadline"))
    flags_counted = total(read_metrics(run.cluster).samples,
                          "tavla_flag_lateness_seconds_count")
    worker.signal_all(signal.SIGCONT)
    t_back = time.time()

    def flags() -> dict[int, float]:
        return {match_id: created.timestamp() for match_id, created in
                Event.objects.filter(match_id__in=overdue, kind=LogKind.TIMEOUT,
                                     created_at__gte=now).values_list("match_id", "created_at")}

    wait_for("every overdue flag", lambda: len(flags()) == len(overdue), 60, 0.2)
    late = [when - t_back for when in flags().values()]
    run.bots.command({"cmd": "resume"})
    met = bool(late) and max(late) <= FLAG_TARGET
    run.figure(f"worker host stopped {t_back - t_stop:.0f} s: {len(overdue)} flags "
               f"overdue at its return fell {fmt(late)} after it (target "
               f"{FLAG_TARGET:.0f} s: {'met' if met else 'MISSED'})")
    counted = total(read_metrics(run.cluster).samples,
                    "tavla_flag_lateness_seconds_count") - flags_counted
    run.figure(f"/metrics: {counted:.0f} flags counted in tavla_flag_lateness_seconds "
               f"since the worker host's return ({len(overdue)} overdue)")
    if counted < len(overdue):
        run.failures.append("/metrics missed flags that fell")
    if not late:
        run.failures.append("no overdue flag")
    elif not met:
        run.missed.append("flags fell too late")


def data_host_cut(run: Run) -> None:
    """Phase 5: the data host's cable pulled for ``--cut`` seconds; then every table must
    play again."""
    monitor = run.monitor
    data = run.network.hosts["data"]
    acks_before = monitor.acks_since(0)
    run.network.cable(data, plugged=False)
    t_cut = time.time()
    time.sleep(run.args.cut)  # the fault's length
    run.network.cable(data, plugged=True)
    t_plug = time.time()
    during = monitor.acks_since(t_cut) - monitor.acks_since(t_plug)
    resumed = wait_for("every table playing again",
                       lambda: run.every_table_acts_since(t_plug), 120, 0.5)
    run.figure(f"data host cut off {t_plug - t_cut:.0f} s: {during} actions "
               f"acknowledged during the cut; every table played again {resumed:.1f} s "
               f"after the cable was back ({acks_before} acknowledged before)")


def nothing_lost(run: Run, storage_before: tuple[int, int]) -> None:
    """Phase 6, once the bots stopped: every version a board was shown and every action a
    player saw applied is in the database, and every match's log verifies."""
    monitor = run.monitor
    versions = dict(Match.objects.filter(table_id__in=run.table_ids)
                    .values_list("pk", "version"))
    with monitor.lock:
        acks = list(monitor.acks)
    lost = [(m, v) for _t, m, v in acks if versions.get(m, -1) < v]
    seen: dict[int, int] = {}
    for summary in monitor.summaries:
        for match, version in summary["seen"].items():
            seen[int(match)] = max(seen.get(int(match), 0), version)
    unseen = [m for m, v in seen.items() if versions.get(m, -1) < v]
    results = [services.match_verify(match_id=match_id) for match_id in versions]
    bad = [r for r in results if not r.ok]
    finished = Match.objects.filter(table_id__in=run.table_ids,
                                    status=MatchStatus.FINISHED).count()
    grown = [after - before for after, before in zip(storage(), storage_before, strict=True)]
    run.figures.append(f"PostgreSQL per acknowledged action: {grown[0] / max(len(acks), 1):.0f} "
                       f"bytes of database, {grown[1] / max(len(acks), 1):.0f} bytes of WAL "
                       "(everything included: sessions, analyses, finished games)")
    run.figure(f"{len(acks)} actions acknowledged, {len(lost)} lost; {len(seen)} matches "
               f"shown, {len(unseen)} behind what a board was shown; {len(results)} "
               f"matches ({finished} finished) verify: {len(results) - len(bad)}, "
               f"errors answered: {dict(monitor.errors)}")
    if lost or unseen:
        run.failures.append("acknowledged actions lost")
    if bad:
        run.failures.append(f"{len(bad)} matches do not verify: {bad[0].detail}")


def logs_carry_ids(run: Run) -> None:
    """Phase 7's logs: the web and worker hosts' JSON lines carry request and match ids."""
    logged, with_request, with_match = log_ids(run.cluster.logs)
    run.figure(f"JSON logs of the web and worker hosts: {logged} lines, {with_request} "
               f"with a request_id, {with_match} with a match_id")
    if not with_request or not with_match:
        run.failures.append("the JSON logs do not carry the request and match ids")


def verdict(run: Run, load_before: float, started: float) -> int:
    """Print the figures and say whether the run passed (0) or failed (1)."""
    print("\n== make multihost figures")
    for line in run.figures:
        print(f"  - {line}")
    print(f"  - load average {load_before:.1f} before, {os.getloadavg()[0]:.1f} "
          f"after; {time.monotonic() - started:.0f} s in all")
    failures = run.failures + ([] if run.args.times_as_figures else run.missed)
    if failures:
        print("multihost: FAILED: " + "; ".join(failures))
        return 1
    if run.missed:
        print("multihost: every check met; time targets missed (figures only): "
              + "; ".join(run.missed))
        return 0
    print("multihost: every target met")
    return 0
