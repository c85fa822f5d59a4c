"""The figures of a ``live_load.py`` scenario and the issue's targets, from what the bot
processes reported: latency joined across processes, per group, split at the server's
stamp; rates, bytes, CPU per action; the verdicts."""

from __future__ import annotations

import os
from collections import Counter
from dataclasses import dataclass
from typing import Any


@dataclass
class Scenario:
    tables: int
    think: float

    def __str__(self) -> str:
        return f"{self.tables} tables, think {self.think:g} s"


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def latency_line(name: str, ms: list[float]) -> str:
    if not ms:
        return f"  {name}: no samples"
    return (f"  {name}: p50 {percentile(ms, 0.5):.1f} ms, p99 {percentile(ms, 0.99):.1f} ms, "
            f"max {max(ms):.1f} ms ({len(ms)} samples)")


def joined_samples(results: list[dict[str, Any]]) -> list[tuple[float, float, str, float]]:
    """(received, ms, group, server ms) for every board that received a version an action
    was sent on, whichever bot process sent it: ms from the send to the receipt, server ms
    from the send to the server's stamp on that board's push."""
    sent: dict[str, float] = {}
    for result in results:
        sent.update(result["sent"])
    samples = []
    for result in results:
        for match_id, version, received, group, server_time in result["receipts"]:
            at = sent.get(f"{match_id}:{version - 1}")
            if at is not None:
                samples.append((received, 1000 * (received - at), group,
                                1000 * (server_time - at)))
    samples.sort()
    return samples


def report(run: dict[str, Any]) -> dict[str, Any]:
    """Print one scenario's figures; return the ones the targets are judged on."""
    results, elapsed = run["results"], run["elapsed"]
    scenario: Scenario = run["scenario"]
    samples = joined_samples(results)
    by_group: dict[str, list[float]] = {}
    server_part: dict[str, list[float]] = {}
    for _, ms, group, server_ms in samples:
        by_group.setdefault(group, []).append(ms)
        server_part.setdefault(group, []).append(server_ms)
    actions = sum(r["actions"] for r in results)
    messages = sum(r["messages"] for r in results)
    size = sum(r["bytes"] for r in results)
    errors: Counter[str] = Counter()
    for result in results:
        errors.update(result["errors"])
    active = sum(r["active_tables"] for r in results)
    finished = sum(r["matches_finished"] for r in results)
    print(f"tables: {run['tables']} seated, {active} with a match in play in the last 10 s; "
          f"{finished} matches finished while measuring")
    print(f"actions: {actions} in {elapsed:.0f} s = {actions / elapsed:.1f}/s")
    print("latency, action sent -> new state received:")
    opponents = by_group.get("player", [])
    print(latency_line("opponent (spread tables)", opponents))
    print(latency_line("spectators (spread tables)", by_group.get("spectator", [])))
    print(latency_line("opponent (crowded table)", by_group.get("crowd_player", [])))
    crowd = by_group.get("crowd_spectator", [])
    print(latency_line("spectators (crowded table)", crowd))
    # Where the time goes: until the server stamped the push (its server_time: the action,
    # the fan-out and the boards served before this one), and after (the socket, the bot's
    # own queue of messages to read).
    print("  of which until the server stamped the push: " + "; ".join(
        f"{name} p50 {percentile(part, 0.5):.1f} ms, p99 {percentile(part, 0.99):.1f} ms"
        for name, part in (("spread", server_part.get("player", [])
                            + server_part.get("spectator", [])),
                           ("crowded", server_part.get("crowd_spectator", [])))
        if part))
    windows: dict[int, list[float]] = {}
    for when, ms, group, _ in samples:
        if group == "player":
            windows.setdefault(int((when - samples[0][0]) // 10) if samples else 0, []).append(ms)
    if windows:
        print("  opponent p99 by 10 s window (ms): " + ", ".join(
            f"{percentile(values, 0.99):.0f}" for _, values in sorted(windows.items())))
    print(f"messages: {messages / elapsed:.0f}/s, {size / elapsed / 1e6:.2f} MB/s "
          f"({size / max(1, messages):.0f} bytes each); syncs after a version gap: "
          f"{sum(r['syncs'] for r in results)}; errors: {dict(errors) or 'none'}; "
          f"sockets refused and opened again: {sum(r['reconnects'] for r in results)}")
    server_cpu = run["server_cpu"]
    busy, total, stolen = run["machine"]
    bots_cpu = [r["cpu_seconds"] / r["wall_seconds"] for r in results]

    def per_action(cpu: float) -> str:
        return f"{cpu / elapsed:.0%} of a core = " + (
            f"{1000 * cpu / actions:.1f} ms per action" if actions else "no action")

    print(f"server CPU: {run['servers']} daphne processes {per_action(server_cpu)}; "
          f"PostgreSQL {per_action(run['postgres_cpu'])}; Redis {per_action(run['redis_cpu'])}; "
          "bots " + ", ".join(f"{c:.0%}" for c in bots_cpu)
          + f" of a core each (whole run); machine {busy / total:.0%} busy of "
          f"{os.cpu_count()} cores, {stolen / total:.1%} stolen by the host")
    if actions:
        # In the calibration's units (one of its 20 games' CPU), comparable across runs.
        game_ms = run["calibration"] / 20
        print(f"web CPU per action = {1000 * server_cpu / actions / game_ms:.3f} calibration "
              f"games (one game: {game_ms:.1f} ms now)")
    spread_boards = opponents + by_group.get("spectator", [])
    return {"scenario": scenario, "rate": actions / elapsed,
            "p99": percentile(opponents, 0.99) if opponents else float("inf"),
            "crowd_p99": percentile(crowd, 0.99) if crowd else float("inf"),
            "crowd_p50": percentile(crowd, 0.5) if crowd else float("inf"),
            "spread_p99": percentile(spread_boards, 0.99) if spread_boards else float("inf"),
            "spread_p50": percentile(spread_boards, 0.5) if spread_boards else float("inf")}


def judge(figures: list[dict[str, Any]]) -> None:
    """The issue's targets, for the scenarios that were run."""
    print("\n== targets")
    for figure in figures:
        scenario = figure["scenario"]
        if scenario.tables >= 500 and scenario.think >= 3.0:
            verdict = "MET" if figure["p99"] <= 100 else "NOT met"
            print(f"500 tables at 3 s think, opponent p99 <= 100 ms: {figure['p99']:.0f} ms "
                  f"{verdict}")
        # Saturation: the bots offer more than 300 actions/s (tables / think time), so the
        # server's capacity, not the bots' pace, sets the rate. 200 tables at 1 s offer at
        # most 200/s: that scenario is judged for latency only.
        if scenario.tables / scenario.think > 300:
            verdict = "MET" if figure["rate"] >= 300 else "NOT met"
            print(f"{scenario}: >= 300 actions/s at saturation: {figure['rate']:.0f}/s {verdict}")
        if figure["crowd_p99"] == float("inf"):
            continue  # no crowd ran (--crowd 0): nothing to compare
        # "No slower": the crowded table's tail within 25% of the spread tables' boards'.
        # Its p99 is that of its worst action or two (all fifty boards of one action share
        # its delay, and the table sees one action in a few hundred), so it swings from run
        # to run; the medians show the steady cost of fifty boards.
        ratio = figure["crowd_p99"] / figure["spread_p99"] if figure["spread_p99"] else 0
        verdict = "MET" if ratio <= 1.25 else "NOT met"
        print(f"{scenario}: crowded table p99 {figure['crowd_p99']:.0f} ms vs others "
              f"{figure['spread_p99']:.0f} ms (x{ratio:.2f}) {verdict}; medians "
              f"{figure['crowd_p50']:.1f} vs {figure['spread_p50']:.1f} ms")
