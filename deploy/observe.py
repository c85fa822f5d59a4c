"""What an operator's tools read of a running Tavla, shared by ``make multihost`` and the
benchmarks: the CPU the processes used, and each web instance's ``/metrics`` scraped before
and after a window (docs/operations.md) with what changed in between."""

from __future__ import annotations

import os
import ssl
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

from prometheus_client.parser import text_string_to_metric_families


def cpu_seconds(pids: list[int]) -> float:
    """CPU seconds (user + system) used so far by the processes ``pids`` (gone ones: 0)."""
    ticks = os.sysconf("SC_CLK_TCK")
    total = 0.0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += (int(fields[11]) + int(fields[12])) / ticks
    return total


# (name, labels as sorted pairs) -> value
Samples = dict[tuple[str, tuple[tuple[str, str], ...]], float]


@dataclass
class Scrape:
    """One scrape of every instance, summed (cluster-wide figures, the same on every
    instance, are taken once: their maximum)."""

    samples: Samples = field(default_factory=dict)
    failures: list[str] = field(default_factory=list)


CLUSTER_WIDE = ("tavla_queue_depth", "tavla_flag_lateness_seconds")


def scrape(urls: list[str], token: str | None, insecure: bool = False,
           headers: dict[str, str] | None = None) -> Scrape:
    """Every instance of ``urls`` scraped once (``headers``: e.g. the Host a web process
    expects when it is reached by its own address)."""
    result = Scrape()
    context = None
    if insecure:  # a proxy with a throwaway certificate (make multihost)
        context = ssl.create_default_context()
        context.check_hostname, context.verify_mode = False, ssl.CERT_NONE
    for url in urls:
        request = urllib.request.Request(url, headers={
            **(headers or {}), **({"Authorization": f"Bearer {token}"} if token else {})})
        try:
            with urllib.request.urlopen(request, timeout=10, context=context) as response:
                text = response.read().decode()
        except OSError as error:
            result.failures.append(f"{url}: {error}")
            continue
        for family in text_string_to_metric_families(text):
            for sample in family.samples:
                key = (sample.name, tuple(sorted(sample.labels.items())))
                if sample.name.startswith(CLUSTER_WIDE):
                    result.samples[key] = max(result.samples.get(key, 0.0), sample.value)
                else:
                    result.samples[key] = result.samples.get(key, 0.0) + sample.value
    return result


def total(samples: Samples, name: str, **labels: str) -> float:
    """The sum of ``name``'s samples whose labels include ``labels``."""
    wanted = set(labels.items())
    return sum(value for (sample, sample_labels), value in samples.items()
               if sample == name and wanted <= set(sample_labels))


def histogram_quantile(samples: Samples, name: str, quantile: float, **labels: str) -> float:
    """The ``quantile`` of a histogram's observations (the upper bound of the bucket it falls
    in, as Prometheus' histogram_quantile without interpolation); nan when empty."""
    buckets: dict[float, float] = {}
    for (sample, sample_labels), value in samples.items():
        label_map = dict(sample_labels)
        if sample != f"{name}_bucket" or any(label_map.get(k) != v for k, v in labels.items()):
            continue
        bound = float(label_map["le"])
        buckets[bound] = buckets.get(bound, 0.0) + value
    if not buckets or max(buckets.values()) == 0:
        return float("nan")
    count = buckets[max(buckets)]
    for bound in sorted(buckets):
        if buckets[bound] >= quantile * count:
            return bound
    return float("inf")


def delta(before: Scrape, after: Scrape) -> Samples:
    return {key: value - before.samples.get(key, 0.0) for key, value in after.samples.items()}


def report(before: Scrape, after: Scrape, elapsed: float) -> list[str]:
    """What the servers counted in the window, as lines for a report."""
    if after.failures or not after.samples:
        return [f"server metrics: not read ({'; '.join(after.failures) or 'no samples'})"]
    changed = delta(before, after)
    actions = total(changed, "tavla_action_seconds_count")
    ok = total(changed, "tavla_action_seconds_count", outcome="ok")
    seconds = total(changed, "tavla_action_seconds_sum")
    flags = total(changed, "tavla_flag_lateness_seconds_count")
    late = histogram_quantile(changed, "tavla_flag_lateness_seconds", 0.99)
    depths = {dict(labels)["queue"]: value for (name, labels), value in after.samples.items()
              if name == "tavla_queue_depth"}
    pool = {dict(labels)["state"]: value for (name, labels), value in after.samples.items()
            if name == "tavla_db_pool_connections"}
    return [
        f"server metrics (/metrics, {elapsed:.0f} s window): actions {actions:.0f} "
        f"({actions / elapsed:.1f}/s, {actions - ok:.0f} refused or failed), mean "
        f"{1000 * seconds / max(actions, 1):.1f} ms in the services, p99 <= "
        f"{1000 * histogram_quantile(changed, 'tavla_action_seconds', 0.99):.0f} ms; "
        f"pushes {total(changed, 'tavla_pushes_total') / elapsed:.0f}/s; open sockets "
        f"{total(before.samples, 'tavla_open_sockets'):.0f} (window's start); sockets refused "
        f"{total(changed, 'tavla_sockets_refused_total'):.0f}; errors "
        f"{total(changed, 'tavla_errors_total'):.0f}",
        f"  flags {flags:.0f} (p99 lateness <= {late:g} s); queues {depths}; "
        f"database pools {pool or 'none (SQLite)'}, waiting "
        f"{total(after.samples, 'tavla_db_pool_waiting'):.0f}",
    ]


# The families ``make multihost`` requires of every web instance (docs/operations.md).
REQUIRED = ("tavla_action_seconds", "tavla_open_sockets", "tavla_pushes_total",
            "tavla_flag_lateness_seconds", "tavla_queue_depth", "tavla_db_pool_connections",
            "tavla_errors_total")


def missing_families(result: Scrape) -> list[str]:
    """Which of :data:`REQUIRED` a scrape has no sample of."""
    return [family for family in REQUIRED
            if not any(name == family or name.startswith(f"{family}_")
                       for name, _labels in result.samples)]
