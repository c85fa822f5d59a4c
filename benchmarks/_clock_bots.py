"""Bots for ``benchmarks/flag_latency.py``: play clocked tables through the services.

Run as its own process: ``python benchmarks/_clock_bots.py SPEC.json``; the spec names the
tables (each with its two players' ids), the think times, the chance of stalling and when
to stop. On each turn the player to act thinks ``think`` seconds (uniform) and plays a random
legal play, or, with probability ``stall``, walks away and lets the flag fall: the deadline
is recorded, and the bot waits for the flag before playing on. When a match ends both
players sit down again. Prints one JSON line when done: its stalls and how many plays it made.
"""

from __future__ import annotations

import heapq
import json
import os
import random
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tavla.settings")


def main(spec: dict[str, Any]) -> dict[str, Any]:
    import django

    django.setup()
    from matches import services
    from matches.models import Match, MatchStatus, Player
    from matches.state import load_state

    rng = random.Random(spec["seed"])
    think_low, think_high = spec["think"]
    players = {p.pk: p for p in Player.objects.filter(
        pk__in=[pid for table in spec["tables"] for pid in table["players"]])}
    seats = {table["id"]: [players[pid] for pid in table["players"]] for table in spec["tables"]}
    stalls: list[dict[str, Any]] = []
    waiting: dict[int, int] = {}  # table -> version of the turn left to the flag
    plays = errors = 0
    refused: dict[str, int] = {}
    queue: list[tuple[float, int, int | None]] = [
        (time.time() + rng.uniform(0, think_high), table_id, None) for table_id in seats]
    heapq.heapify(queue)
    stop_at = float(spec["stop_at"])

    while queue and time.time() < stop_at:
        due, table_id, version = heapq.heappop(queue)
        time.sleep(max(0.0, min(due, stop_at) - time.time()))
        match = (Match.objects.filter(table_id=table_id, status=MatchStatus.PLAYING)
                 .select_related("table").order_by("-pk").first())
        if match is None:  # over: sit down again for the next match
            for player in seats[table_id]:
                try:
                    services.table_sit(table_id=table_id, player=player)
                except services.ServiceError:
                    pass
            heapq.heappush(queue, (time.time() + 0.5, table_id, None))
            continue
        if waiting.get(table_id) == match.version:  # still waiting for the flag
            heapq.heappush(queue, (time.time() + 1.0, table_id, None))
            continue
        waiting.pop(table_id, None)
        state = load_state(match)
        legal = state.legal_plays()
        if state.player_to_act is None or not legal:
            heapq.heappush(queue, (time.time() + 0.5, table_id, None))
            continue
        if version is None:  # a new turn: think, or walk away
            if rng.random() < spec["stall"] and match.deadline is not None:
                waiting[table_id] = match.version
                deadline = match.deadline.timestamp()
                stalls.append({"match": match.pk, "version": match.version, "deadline": deadline})
                heapq.heappush(queue, (deadline + 0.5, table_id, None))
            else:
                think = rng.uniform(think_low, think_high)
                heapq.heappush(queue, (time.time() + think, table_id, match.version))
            continue
        if version != match.version:  # something happened meanwhile: a new turn
            heapq.heappush(queue, (time.time(), table_id, None))
            continue
        first, second = seats[table_id]
        actor = first if match.seat_of(first) == state.player_to_act else second
        try:
            services.match_act(match_id=match.pk, player=actor, action="play",
                               play=rng.choice(legal).notation(),
                               expected_version=match.version)
            plays += 1
        except services.ServiceError as error:
            errors += 1
            refused[error.code] = refused.get(error.code, 0) + 1
        heapq.heappush(queue, (time.time(), table_id, None))
    return {"stalls": stalls, "plays": plays, "errors": errors, "refused": refused,
            "behind": round(max(0.0, time.time() - stop_at), 1)}


if __name__ == "__main__":
    result = main(json.loads(Path(sys.argv[1]).read_text()))
    print(json.dumps(result))
