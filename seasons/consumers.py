"""``/ws/arenas/<id>/`` and ``/ws/ladders/<id>/``: tell an open arena or ladder page that it
changed (an arena: a pairing, a result, a player joining or pausing, the end; a ladder: a
player joining, leaving or dropped, a challenge made, answered or decided); the page then
fetches it itself (:mod:`matches.live.announcing`).

Anyone may watch. The only message sent is ``{"type": "arena.changed", "arena_id": id}``
(``ladder.changed``, ``ladder_id``); a client may send ``{"type": "ping"}``.
"""

from __future__ import annotations

from matches.live.announcing import AnnouncingSocket
from seasons.models import Arena, Ladder
from seasons.services import arena_group, ladder_group


class ArenaConsumer(AnnouncingSocket):
    kind = "arena"
    model = Arena
    group_of = arena_group
    arena_changed = AnnouncingSocket.announce


class LadderConsumer(AnnouncingSocket):
    kind = "ladder"
    model = Ladder
    group_of = ladder_group
    ladder_changed = AnnouncingSocket.announce
