"""``make multihost``: build the hosts, play through the proxy, inject the faults, verify.

Run as root: ``python -m deploy.multihost [--short] [--tables 100]``. The outer process
builds the network (:mod:`deploy.multihost.network`) and runs the rest of itself on the client
host (``--inside``), where every host name resolves; whatever happens, the outer process then
kills every process of the run and deletes its namespaces and files (the logs are kept in
``var/multihost/<run>/`` when the run failed).

Phases, each waiting for a condition and never for a fixed time except the faults' own
lengths and the measured window:

1. Up: the data host (PostgreSQL, Redis), ``manage.py migrate`` from the worker host, two web
   hosts, the worker host (every Procfile process but ``web``) and the proxy; both web
   processes UP in HAProxy's statistics.
2. Play: ``--tables`` clocked tables, both players bots (:mod:`deploy.multihost.bots`) on the
   client host, through ``https://tavla.test``; every board greeted and every table acting,
   then ``--steady`` seconds measured (actions per second, CPU per host and per action).
3. A web host dies (its processes SIGKILLed and its cable pulled): every board it served
   must be greeted again, through the proxy by the other web host, within 10 s of the kill.
   The host then comes back.
4. The worker host stops (every process frozen) for ``--outage`` seconds while the players of
   ``--stall-tables`` tables walk away: at its return every overdue flag must fall within 5 s.
5. The data host's cable is pulled for ``--cut`` seconds; then every table must play again.
6. The bots stop; nothing acknowledged is lost (every version a board was shown, and every
   action a player saw applied, is in the database) and every match's log verifies.
7. ``/metrics`` of each web host, scraped directly with the run's token as Prometheus would
   (docs/operations.md), around the measured window, after the worker host's return and at
   the end: it must carry every figure the operator relies on (actions and their latency,
   open sockets, pushes, flag lateness, queue depths, the database pools, errors), and
   the figures are printed with the rest.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Any

from deploy.multihost.cluster import BASE_DIR, WEB_PORT, Cluster, StartError, wait_for
from deploy.multihost.network import SITE_HOST, Network
from deploy.observe import Scrape, cpu_seconds, missing_families, report, scrape, total

RECONNECT_TARGET = 10.0
FLAG_TARGET = 5.0


def build_network(run: str | None = None) -> Network:
    network = Network(run=run) if run else Network()
    network.add("proxy", 2, aliases=(SITE_HOST,))
    network.add("web1", 11)
    network.add("web2", 12)
    network.add("worker", 20)
    network.add("data", 30, aliases=("tavla-db", "tavla-redis"))
    network.add("client", 100)
    return network


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--short", action="store_true",
                        help="the CI version: 6 tables, short faults")
    parser.add_argument("--tables", type=int)
    parser.add_argument("--think", type=float, help="mean seconds before an action")
    parser.add_argument("--delay", type=float, help="the clock's delay per move (s)")
    parser.add_argument("--reserve", type=float, help="the clock's reserve (s)")
    parser.add_argument("--steady", type=float, help="seconds of play measured")
    parser.add_argument("--outage", type=float, help="seconds the worker host is stopped")
    parser.add_argument("--cut", type=float, help="seconds the data host is cut off")
    parser.add_argument("--stall-tables", type=int, help="tables whose players walk away")
    parser.add_argument("--bot-processes", type=int)
    parser.add_argument("--times-as-figures", action="store_true",
                        help="report missed time targets without failing (the test suite's "
                             "run: times on a busy CI machine are figures, not checks)")
    parser.add_argument("--inside", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--run", help=argparse.SUPPRESS)
    parser.add_argument("--workdir", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    defaults = (
        {"tables": 6, "think": 0.5, "delay": 3.0, "reserve": 1.0, "steady": 3.0,
         "outage": 6.0, "cut": 3.0, "stall_tables": 3, "bot_processes": 1}
        if args.short else
        {"tables": 100, "think": 3.0, "delay": 8.0, "reserve": 4.0, "steady": 30.0,
         "outage": 30.0, "cut": 10.0, "stall_tables": 10, "bot_processes": 2})
    for name, value in defaults.items():
        if getattr(args, name) is None:
            setattr(args, name, value)
    return args


def missing_prerequisites() -> list[str]:
    """What this machine lacks for a run (empty when it can run)."""
    missing = []
    if not sys.platform.startswith("linux"):
        missing.append("Linux (network namespaces)")
    elif os.geteuid() != 0:
        missing.append("root (ip netns)")
    for program in ("ip", "haproxy", "redis-server", "redis-cli", "openssl", "runuser"):
        if shutil.which(program) is None:
            missing.append(program)
    if not list(Path("/usr/lib/postgresql").glob("*/bin/initdb")):
        missing.append("PostgreSQL's server binaries (initdb)")
    return missing


# -- the outer process: the network, the inner run, the cleanup ----------------------------------


def inner_environment() -> dict[str, str]:
    """The inner run's environment: only what it needs, never this process's Tavla settings
    (a test worker's database, Redis or xdist number), which are not the run's."""
    keep = ("PATH", "HOME", "LANG", "LC_ALL", "TERM", "TAVLA_METRICS_TOKEN")
    return {**{name: os.environ[name] for name in keep if name in os.environ},
            "PYTHONPATH": str(BASE_DIR), "PYTHONUNBUFFERED": "1"}


def outer(args: argparse.Namespace, argv: list[str]) -> int:
    missing = missing_prerequisites()
    if missing:
        print("make multihost needs: " + ", ".join(missing))
        return 2
    workdir = Path(tempfile.mkdtemp(prefix="tavla-multihost-"))
    network = build_network()
    code = 1

    def interrupted(signum: int, frame: object) -> None:
        raise KeyboardInterrupt  # SIGTERM (a test's timeout): clean up as for Ctrl-C

    signal.signal(signal.SIGTERM, interrupted)
    try:
        network.create()
        client = network.hosts["client"]
        code = subprocess.run(client.command([
            sys.executable, "-m", "deploy.multihost", *argv, "--inside", "--run", network.run,
            "--workdir", str(workdir)]), cwd=BASE_DIR, check=False,
            env=inner_environment()).returncode
    except KeyboardInterrupt:
        code = 130
    finally:
        network.destroy()
        if code != 0 and (workdir / "logs").exists():
            kept = BASE_DIR / "var" / "multihost" / network.run
            kept.parent.mkdir(parents=True, exist_ok=True)
            shutil.copytree(workdir / "logs", kept, dirs_exist_ok=True)
            print(f"multihost: the hosts' logs are in {kept}")
        shutil.rmtree(workdir, ignore_errors=True)
    return code


# -- the inner process, on the client host ----------------------------------------------------


@dataclass
class Monitor:
    """What the bot processes report, gathered by one thread per process."""

    lock: threading.Lock = field(default_factory=threading.Lock)
    greeted: dict[tuple[int, int], list[float]] = field(default_factory=lambda: defaultdict(list))
    closed: dict[tuple[int, int], list[float]] = field(default_factory=lambda: defaultdict(list))
    acks: list[tuple[float, int, int]] = field(default_factory=list)
    last_ack_of_match: dict[int, float] = field(default_factory=dict)
    errors: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    close_reasons: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    summaries: list[dict[str, Any]] = field(default_factory=list)

    def read(self, stream: IO[bytes]) -> None:
        for raw in iter(stream.readline, b""):
            event = json.loads(raw)
            with self.lock:
                kind, when = event["ev"], event["t"]
                if kind == "greeted":
                    self.greeted[(event["table"], event["seat"])].append(when)
                elif kind == "closed":
                    self.closed[(event["table"], event["seat"])].append(when)
                    self.close_reasons[event.get("reason", "?")] += 1
                elif kind == "ack":
                    self.acks.append((when, event["match"], event["version"]))
                    self.last_ack_of_match[event["match"]] = when
                elif kind == "error":
                    self.errors[event["error"]] += 1
                elif kind == "summary":
                    self.summaries.append(event)

    def acks_since(self, since: float) -> int:
        with self.lock:
            return sum(1 for when, _m, _v in self.acks if when >= since)


class Bots:
    def __init__(self, spec: dict[str, Any], processes: int, monitor: Monitor) -> None:
        self.processes: list[subprocess.Popen[bytes]] = []
        self.threads = []
        for number in range(processes):
            process = subprocess.Popen([sys.executable, "-m", "deploy.multihost.bots"],
                                       cwd=BASE_DIR, stdin=subprocess.PIPE,
                                       stdout=subprocess.PIPE)
            share = {**spec, "tables": spec["tables"][number::processes]}
            self.processes.append(process)
            self.send(process, share)
            assert process.stdout is not None
            thread = threading.Thread(target=monitor.read, args=(process.stdout,), daemon=True)
            thread.start()
            self.threads.append(thread)

    @staticmethod
    def send(process: subprocess.Popen[bytes], message: dict[str, Any]) -> None:
        assert process.stdin is not None
        process.stdin.write(json.dumps(message).encode() + b"\n")
        process.stdin.flush()

    def command(self, message: dict[str, Any]) -> None:
        for process in self.processes:
            self.send(process, message)

    def stop(self) -> None:
        for process in self.processes:
            if process.poll() is None:
                try:
                    self.send(process, {"cmd": "stop"})
                except BrokenPipeError:
                    pass
        for process, thread in zip(self.processes, self.threads, strict=True):
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
            thread.join(timeout=10)


def haproxy_servers() -> dict[str, dict[str, str]]:
    """The web backend's servers in HAProxy's statistics: name -> its CSV row."""
    with urllib.request.urlopen("http://tavla-proxy:8404/stats;csv", timeout=2) as answer:
        lines = answer.read().decode().splitlines()
    header = lines[0].lstrip("# ").split(",")
    rows = [dict(zip(header, line.split(","), strict=False)) for line in lines[1:] if line]
    return {row["svname"]: row for row in rows if row["pxname"] == "web"
            and row["svname"] not in {"FRONTEND", "BACKEND"}}


def servers_are(states: dict[str, str]) -> bool:
    try:
        servers = haproxy_servers()
    except OSError:
        return False
    return all(servers.get(name, {}).get("status", "").startswith(state)
               for name, state in states.items())


def rss_mb(pids: list[int]) -> float:
    """The resident memory of ``pids`` together, in MB."""
    total = 0
    for pid in pids:
        try:
            status = Path(f"/proc/{pid}/status").read_text()
        except OSError:
            continue
        for line in status.splitlines():
            if line.startswith("VmRSS:"):
                total += int(line.split()[1])
    return total / 1024


def read_metrics(cluster: Cluster) -> Scrape:
    """Both web hosts' ``/metrics``, reached directly by address (never through the proxy,
    which would answer from either), as the operator's Prometheus scrapes them."""
    return scrape([f"http://tavla-{web}:{WEB_PORT}/metrics" for web in ("web1", "web2")],
                  cluster.env["TAVLA_METRICS_TOKEN"], headers={"X-Forwarded-Proto": "https"})


def log_ids(logs: Path) -> tuple[int, int, int]:
    """The web and worker hosts' log lines in JSON (``TAVLA_LOG_FORMAT=json`` of
    deploy/tavla.env): how many, how many carry a ``request_id``, how many a ``match_id``."""
    lines = with_request = with_match = 0
    for path in logs.glob("*.log"):
        if not path.name.startswith(("web", "worker")):
            continue
        for raw in path.read_text(errors="replace").splitlines():
            try:
                record = json.loads(raw)
            except ValueError:
                continue  # a program's own output (daphne's start, a crash's trace)
            if not isinstance(record, dict) or "logger" not in record:
                continue
            lines += 1
            with_request += record.get("request_id") is not None
            with_match += record.get("match_id") is not None
    return lines, with_request, with_match


def fmt(values: list[float]) -> str:
    if not values:
        return "none"
    return (f"n={len(values)} p50 {statistics.median(values):.2f} s, "
            f"max {max(values):.2f} s")


def storage() -> tuple[int, int]:
    """The database's size and the WAL written so far, in bytes."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_database_size(current_database()), "
                       "pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')")
        size, wal = cursor.fetchone()
    return int(size), int(wal)


def seat_tables(args: argparse.Namespace) -> list[dict[str, Any]]:
    """Users with sessions, and clocked tables with both seats taken (the matches start)."""
    from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY
    from django.contrib.auth.models import User
    from django.contrib.sessions.backends.db import SessionStore

    from matches import services

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


def inner(args: argparse.Namespace) -> int:
    network = build_network(args.run)
    hosts = network.hosts
    workdir = Path(args.workdir)
    cluster = Cluster(workdir, hosts["proxy"].address)
    figures: list[str] = []
    failures: list[str] = []
    missed: list[str] = []  # time targets: checks, or figures with --times-as-figures

    def say(line: str) -> None:
        print(f"multihost {time.strftime('%H:%M:%S')}  {line}", flush=True)

    load_before = os.getloadavg()
    started = time.monotonic()
    say(f"run {network.run}: hosts " + ", ".join(
        f"{h.name} {h.address}" for h in hosts.values()) + f"; load average {load_before[0]:.1f}")
    cluster.start_data(hosts["data"])
    say("data host: PostgreSQL and Redis up")
    cluster.migrate(hosts["worker"])
    pem, cert = cluster.make_certificate()
    for web in ("web1", "web2"):
        cluster.start_web(hosts[web])
    cluster.start_workers(hosts["worker"])
    cluster.start_proxy(hosts["proxy"], pem)
    wait_for("both web hosts UP behind the proxy",
             lambda: servers_are({"web1": "UP", "web2": "UP"}), 120, 0.2)
    say(f"every host up {time.monotonic() - started:.1f} s after the start")

    os.environ.update(cluster.env)
    os.environ["DJANGO_SETTINGS_MODULE"] = "tavla.settings"
    import django

    django.setup()
    from matches import services
    from matches.models import Event, LogKind, Match, MatchStatus

    tables = seat_tables(args)
    storage_before = storage()
    table_ids = [table["id"] for table in tables]
    monitor = Monitor()
    bots = Bots({"url": f"https://{SITE_HOST}", "ca_file": str(cert), "think": args.think,
                 "tables": tables}, args.bot_processes, monitor)
    try:
        boards = 2 * len(tables)

        def matches_of_tables() -> list[int]:
            return list(Match.objects.filter(table_id__in=table_ids).values_list("pk", flat=True))

        def every_table_acts_since(since: float) -> bool:
            with monitor.lock:
                acting = {m for m, when in monitor.last_ack_of_match.items() if when >= since}
            playing = set(Match.objects.filter(pk__in=acting).values_list("table_id", flat=True))
            return playing >= set(table_ids)

        try:
            took = wait_for("every board greeted", lambda: len(monitor.greeted) == boards, 180,
                            0.2)
        except StartError as error:
            raise StartError(f"{error} ({len(monitor.greeted)} of {boards})") from None
        t0 = time.time()
        wait_for("every table playing", lambda: every_table_acts_since(t0), 180, 0.5)
        say(f"{boards} boards open through the proxy ({took:.1f} s); every table playing")

        # -- steady play, measured -------------------------------------------------------
        pids = {name: host.pids() for name, host in hosts.items() if name != "client"}
        cpu_before = {name: cpu_seconds(p) for name, p in pids.items()}
        metrics_before = read_metrics(cluster)
        window_from = time.time()
        time.sleep(args.steady)  # the measured window
        window = time.time() - window_from
        metrics_after = read_metrics(cluster)
        actions = monitor.acks_since(window_from)
        cpu = {name: cpu_seconds(p) - cpu_before[name] for name, p in pids.items()}
        sessions = {name: row.get("scur", "?") for name, row in haproxy_servers().items()}
        per_action = ", ".join(f"{name} {1000 * seconds / max(actions, 1):.1f} ms"
                               for name, seconds in cpu.items())
        memory = ", ".join(f"{name} {rss_mb(p):.0f} MB" for name, p in pids.items())
        figures.append(f"steady play: {len(tables)} tables, {actions / window:.1f} actions/s "
                       f"over {window:.0f} s; boards per web host {sessions}; CPU per "
                       f"action: {per_action}; resident memory: {memory}")
        say(figures[-1])
        figures.extend(report(metrics_before, metrics_after, window))
        for line in figures[-2:]:
            say(line)
        lacking = missing_families(metrics_after)
        if metrics_after.failures or lacking:
            failures.append("/metrics without its figures: "
                            + "; ".join([*metrics_after.failures, *lacking]))
        if not total(metrics_after.samples, "tavla_open_sockets"):
            failures.append(f"/metrics counts no open socket while {boards} boards play")

        # -- a web host dies ----------------------------------------------------------------
        victim = hosts["web1"]
        t_kill = time.time()
        victim.signal_all(signal.SIGKILL)
        network.cable(victim, plugged=False)

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
        figures.append(f"web host killed: HAProxy marked it DOWN {detected:.1f} s after the "
                       f"kill; {len(reconnects)} boards back through the proxy on web2, "
                       f"{fmt(reconnects)} after the kill (target {RECONNECT_TARGET:.0f} s: "
                       f"{'met' if worst <= RECONNECT_TARGET else 'MISSED'})")
        say(figures[-1])
        if worst > RECONNECT_TARGET:
            missed.append("boards reconnected too late")
        network.cable(victim, plugged=True)
        cluster.start_web(victim)
        wait_for("web1 back UP", lambda: servers_are({"web1": "UP"}), 120, 0.2)

        # -- the worker host stops -------------------------------------------------------
        stall = table_ids[: args.stall_tables]
        bots.command({"cmd": "stall", "tables": stall})
        worker = hosts["worker"]
        frozen = worker.signal_all(signal.SIGSTOP)
        t_stop = time.time()
        say(f"worker host stopped ({frozen} processes frozen); the players of {len(stall)} "
            "tables walk away")
        time.sleep(max(0.0, t_stop + args.outage - time.time()))  # the fault's length
        now = datetime.now(tz=UTC)
        overdue = dict(Match.objects.filter(status=MatchStatus.PLAYING, deadline__lt=now,
                                            table_id__in=table_ids)
                       .values_list("pk", "deadline"))
        flags_counted = total(read_metrics(cluster).samples,
                              "tavla_flag_lateness_seconds_count")
        worker.signal_all(signal.SIGCONT)
        t_back = time.time()

        def flags() -> dict[int, float]:
            return {match_id: created.timestamp() for match_id, created in
                    Event.objects.filter(match_id__in=overdue, kind=LogKind.TIMEOUT,
                                         created_at__gte=now).values_list("match_id",
                                                                         "created_at")}

        wait_for("every overdue flag", lambda: len(flags()) == len(overdue), 60, 0.2)
        late = [when - t_back for when in flags().values()]
        bots.command({"cmd": "resume"})
        met = bool(late) and max(late) <= FLAG_TARGET
        figures.append(f"worker host stopped {t_back - t_stop:.0f} s: {len(overdue)} flags "
                       f"overdue at its return fell {fmt(late)} after it (target "
                       f"{FLAG_TARGET:.0f} s: {'met' if met else 'MISSED'})")
        say(figures[-1])
        counted = total(read_metrics(cluster).samples,
                        "tavla_flag_lateness_seconds_count") - flags_counted
        figures.append(f"/metrics: {counted:.0f} flags counted in tavla_flag_lateness_seconds "
                       f"since the worker host's return ({len(overdue)} overdue)")
        say(figures[-1])
        if counted < len(overdue):
            failures.append("/metrics missed flags that fell")
        if not late:
            failures.append("no overdue flag")
        elif not met:
            missed.append("flags fell too late")

        # -- the data host is cut off ------------------------------------------------------
        data = hosts["data"]
        acks_before = monitor.acks_since(0)
        network.cable(data, plugged=False)
        t_cut = time.time()
        time.sleep(args.cut)  # the fault's length
        network.cable(data, plugged=True)
        t_plug = time.time()
        during = monitor.acks_since(t_cut) - monitor.acks_since(t_plug)
        resumed = wait_for("every table playing again", lambda: every_table_acts_since(t_plug),
                           120, 0.5)
        figures.append(f"data host cut off {t_plug - t_cut:.0f} s: {during} actions "
                       f"acknowledged during the cut; every table played again {resumed:.1f} s "
                       f"after the cable was back ({acks_before} acknowledged before)")
        say(figures[-1])
    finally:
        bots.stop()

    # -- nothing acknowledged lost, every match verifies -------------------------------------
    versions = dict(Match.objects.filter(table_id__in=table_ids).values_list("pk", "version"))
    with monitor.lock:
        acks = list(monitor.acks)
    lost = [(m, v) for _t, m, v in acks if versions.get(m, -1) < v]
    seen: dict[int, int] = {}
    for summary in monitor.summaries:
        for match, version in summary["seen"].items():
            seen[int(match)] = max(seen.get(int(match), 0), version)
    unseen = [m for m, v in seen.items() if versions.get(m, -1) < v]
    results = [services.match_verify(match_id=match_id) for match_id in matches_of_tables()]
    bad = [r for r in results if not r.ok]
    finished = Match.objects.filter(table_id__in=table_ids, status=MatchStatus.FINISHED).count()
    grown = [after - before for after, before in zip(storage(), storage_before, strict=True)]
    figures.append(f"PostgreSQL per acknowledged action: {grown[0] / max(len(acks), 1):.0f} "
                   f"bytes of database, {grown[1] / max(len(acks), 1):.0f} bytes of WAL "
                   "(everything included: sessions, analyses, finished games)")
    figures.append(f"{len(acks)} actions acknowledged, {len(lost)} lost; {len(seen)} matches "
                   f"shown, {len(unseen)} behind what a board was shown; {len(results)} "
                   f"matches ({finished} finished) verify: {len(results) - len(bad)}, "
                   f"errors answered: {dict(monitor.errors)}")
    say(figures[-1])
    if lost or unseen:
        failures.append("acknowledged actions lost")
    if bad:
        failures.append(f"{len(bad)} matches do not verify: {bad[0].detail}")
    logged, with_request, with_match = log_ids(cluster.logs)
    figures.append(f"JSON logs of the web and worker hosts: {logged} lines, {with_request} "
                   f"with a request_id, {with_match} with a match_id")
    say(figures[-1])
    if not with_request or not with_match:
        failures.append("the JSON logs do not carry the request and match ids")
    load_after = os.getloadavg()
    print("\n== make multihost figures")
    for line in figures:
        print(f"  - {line}")
    print(f"  - load average {load_before[0]:.1f} before, {load_after[0]:.1f} after; "
          f"{time.monotonic() - started:.0f} s in all")
    if not args.times_as_figures:
        failures += missed
    if failures:
        print("multihost: FAILED: " + "; ".join(failures))
        return 1
    if missed:
        print("multihost: every check met; time targets missed (figures only): "
              + "; ".join(missed))
        return 0
    print("multihost: every target met")
    return 0


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    args = parse_args(argv)
    if args.inside:
        try:
            return inner(args)
        except StartError as error:
            print(f"multihost: {error}", flush=True)
            return 1
    return outer(args, argv)
