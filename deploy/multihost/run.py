"""``make multihost``: build the hosts, play through the proxy, inject the faults, verify.

Run as root: ``python -m deploy.multihost [--short] [--tables 100]``. The outer process
builds the network (:mod:`deploy.multihost.network`) and runs the rest of itself on the client
host (``--inside``), where every host name resolves; whatever happens, the outer process then
kills every process of the run and deletes its namespaces and files (the logs are kept in
``var/multihost/<run>/`` when the run failed).

Phases (2 to 7 in :mod:`deploy.multihost.phases`), each waiting for a condition and never for a
fixed time except the faults' own lengths and the measured window:

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
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import django

from deploy.multihost.cluster import BASE_DIR, Cluster, StartError, wait_for
from deploy.multihost.network import SITE_HOST, Network
from deploy.multihost.watch import Bots, Monitor, say, servers_are


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


def inner(args: argparse.Namespace) -> int:
    """Phase 1 (the hosts up), then the measured phases of :mod:`deploy.multihost.phases`."""
    network = build_network(args.run)
    hosts = network.hosts
    cluster = Cluster(Path(args.workdir), hosts["proxy"].address)
    load_before = os.getloadavg()[0]
    started = time.monotonic()
    say(f"run {network.run}: hosts " + ", ".join(
        f"{h.name} {h.address}" for h in hosts.values()) + f"; load average {load_before:.1f}")
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

    # Django's settings are the cluster's, known only now that its hosts run; the phases
    # read the database through Django, so they are imported once it is set up.
    os.environ.update(cluster.env)
    os.environ["DJANGO_SETTINGS_MODULE"] = "tavla.settings"
    django.setup()
    from deploy.multihost import phases

    tables = phases.seat_tables(args)
    storage_before = phases.storage()
    monitor = Monitor()
    bots = Bots({"url": f"https://{SITE_HOST}", "ca_file": str(cert), "think": args.think,
                 "tables": tables}, args.bot_processes, monitor)
    run = phases.Run(args, network, cluster, monitor, bots, tables)
    try:
        phases.boards_open(run)
        phases.steady_play(run)
        phases.web_host_dies(run)
        phases.worker_host_stops(run)
        phases.data_host_cut(run)
    finally:
        bots.stop()
    phases.nothing_lost(run, storage_before)
    phases.logs_carry_ids(run)
    return phases.verdict(run, load_before, started)


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
