"""A player's preferences for faster turns: automatic roll, and "never double" in one match.

The server rolls at the start of a turn by itself (:func:`matches.services.change.rolls_for`):

* always, for everybody, when the player on roll cannot double (no cube, the cube is the
  opponent's, the Crawford game, the cube at its limit): there is nothing to decide;
* with the player's ``auto_roll`` preference (kept on their :class:`Player`, for every
  match), also when a double cannot help them: a single win at the current cube value
  already wins them the match (the rule is exact and needs no evaluator: doubling then
  only hands the opponent the cube);
* with "never double" for one match (kept on the :class:`Match`, per seat): every turn of
  that match, until they turn it off.

The roll is made server-side, in the same change that hands the turn over, so it is as
fair and as fast as any server roll and works for every client. A change of preference that
applies to a turn waiting for its roll rolls at once.
"""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.db.models import Q
from django.utils.translation import gettext as _

from matches.errors import ServiceError
from matches.models import Match, MatchStatus, Player
from matches.services.change import match_change, rolls_for
from matches.services.log import _require_player
from tavla.engine.game import Phase


def _flag(value: Any, name: str) -> bool:
    if not isinstance(value, bool):
        raise ServiceError("bad_request", _("%(name)s is true or false.") % {"name": name})
    return value


def player_set_auto_roll(*, player: Player | None, auto_roll: Any) -> Player:
    """Set ``player``'s automatic-roll preference; a turn of theirs waiting for its roll
    where it now applies is rolled at once. Raises ``not_authenticated``, ``bad_request``."""
    player = _require_player(player, _("Log in to keep preferences."))
    wanted = _flag(auto_roll, "auto_roll")
    with transaction.atomic():
        Player.objects.filter(pk=player.pk).update(auto_roll=wanted)
    player.auto_roll = wanted
    playing = (Match.objects.filter(status=MatchStatus.PLAYING)
               .filter(Q(player0=player) | Q(player1=player)).values_list("pk", flat=True))
    for match_id in playing:
        _roll_if_waiting(match_id, player)
    return player


def match_never_double(*, match_id: int, player: Player | None, on: Any,
                       table_id: int | None = None) -> Match:
    """Turn "never double" on or off for ``player`` in ``match_id``: a change of the match
    (new version, pushed); turned on while their turn waits for its roll, the roll is made.
    Raises ``not_authenticated``, ``bad_request``, ``not_found``, ``no_match``,
    ``match_over``, ``not_a_player``; nothing changes on an error."""
    player = _require_player(player, _("Log in to keep preferences."))
    wanted = _flag(on, "on")
    with match_change(match_id, table_id=table_id) as change:
        match = change.match
        seat = match.seat_of(player)
        if seat is None:
            raise ServiceError("not_a_player", _("Only the match's players choose this."))
        seats = sorted({*match.never_double, seat} if wanted
                       else set(match.never_double) - {seat})
        if seats != sorted(match.never_double):
            match.never_double = seats
            if _waits_for_roll(change.match, change.state, seat):
                change.advance()
            else:
                change.touch()
    return change.match


def _waits_for_roll(match: Match, state: Any, seat: int) -> bool:
    return (state.phase is Phase.TURN_START and state.player_on_roll == seat
            and state.resign_offer is None and rolls_for(match, state))


def _roll_if_waiting(match_id: int, player: Player) -> None:
    try:
        with match_change(match_id) as change:
            seat = change.match.seat_of(player)
            if seat is not None and _waits_for_roll(change.match, change.state, seat):
                change.advance()
    except ServiceError:
        pass  # finished meanwhile: nothing waits
