"""The clock part of the demo club: a table where an idle player's flag falls on screen.

"Clock demo" has a short clock (5 s per move + 15 s) and a short grace (20 s), and dave sits
there and never moves. Log in as anyone else and sit down: the match starts, and when dave's
turn comes his clock runs out about 20 s later; the flag (game lost, then dave on delay only)
shows on every open board without a reload, and since dave has no board open he forfeits the
match 20 s after the flag (seven points: long enough that his flags alone do not end it
first). Each ``seed_demo`` (so each ``make run``) seats dave again if the
last demo match is over, so the demonstration can be repeated.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from django.contrib.auth import get_user_model

from matches import services
from matches.models import Table

Report = Callable[[str], None]

CLOCK_DEMO_TABLE: Final = "Clock demo: 5 s + 15 s, dave never moves"
CLOCK_DEMO_IDLER: Final = "dave"
CLOCK_DEMO_RULES: Final[dict[str, Any]] = {
    "match_length": 7, "is_rated": False, "clock_enabled": True, "clock_delay": 5.0,
    "clock_reserve_seconds": 15.0, "clock_reserve_per_point": 0.0, "grace_seconds": 20.0,
}


def seed_clock_demo(report: Report) -> None:
    """Create the clock demo table and seat its idle player (again); safe to run again."""
    table = Table.objects.filter(name=CLOCK_DEMO_TABLE).first()
    if table is None:
        table = services.table_create(name=CLOCK_DEMO_TABLE, **CLOCK_DEMO_RULES)
        report(f"created table {CLOCK_DEMO_TABLE!r}")
    idler = get_user_model().objects.filter(username=CLOCK_DEMO_IDLER).first()
    if idler is None:
        report(f"demo player {CLOCK_DEMO_IDLER} missing: nobody waits at the clock demo")
        return
    player = services.player_for_user(idler)
    if services.current_match(table) is None and player.pk not in (table.seat0_id,
                                                                     table.seat1_id):
        if table.seat0_id and table.seat1_id:
            return  # someone else is about to play there
        services.table_sit(table_id=table.pk, player=player)
        report(f"{CLOCK_DEMO_IDLER} waits at {CLOCK_DEMO_TABLE!r}")
