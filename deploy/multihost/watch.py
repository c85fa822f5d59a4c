"""What the inner run (on the client host) watches with: the bots' reports, HAProxy's view of
the web hosts, each web host's ``/metrics`` and the hosts' JSON logs. No Django here: the
inner process sets Django up only once the hosts are running (:mod:`deploy.multihost.phases`).
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import threading
import time
import urllib.request
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from deploy.multihost.cluster import BASE_DIR, WEB_PORT, Cluster
from deploy.observe import Scrape, scrape


def say(line: str) -> None:
    print(f"multihost {time.strftime('%H:%M:%S')}  {line}", flush=True)


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
