"""Takeback in casual play: a player asks to take back their last play, the opponent answers.

The model is lichess's "takeback of my last move", fitted to dice:

* **When.** A player may ask right after their own play, while the opponent has not acted
  yet: the opponent is to roll or double, or the server has already rolled for them (no
  double possible) and they have not played. Nothing else may have happened since the play
  but the server's roll for the opponent. Any action of either player (a roll, a double, a
  play, a resignation) or a flag withdraws the request; so does the asker answering
  ``decline`` themselves.
* **Where.** Unrated tables only, never a tournament's table, never against a bot (a bot
  answers at once, so there is nobody to ask): ``takeback_rated``, ``takeback_tournament``,
  ``takeback_bot``.
* **What accepting does.** The match goes back to the asker's turn with the dice they had:
  the same dice, never a new roll. The opponent's roll that the server made in between is
  undone too, and the dice counter goes back with it, so the opponent gets the very same
  roll again after the asker's new play: every roll of the match stays the one the
  committed seed gives for its place (``docs/dice.md``), and a takeback cannot fish for
  dice, the asker's or the opponent's. (The asker has seen that roll; the opponent, who has
  seen it too, decides whether to accept.)
* **The log.** ``takeback_request``, ``takeback_accept`` and ``takeback_decline`` events;
  an accept names the event it goes back to (``restore_to``) and the events it undoes
  (``undone``), so :func:`matches.state.replay_log` replays it and the dice audit leaves
  the undone rolls out. The Jellyfish export and the review show the game as replayed.

Every answer is one change through the one door (:func:`matches.services.change.match_change`).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.utils.translation import gettext as _

from matches.errors import ServiceError
from matches.models import Event, LogKind, Match, Player
from matches.services.change import match_change
from matches.services.log import _require_player
from matches.services.rematch import rematch_refusal
from matches.state import replay_events
from tavla.engine.game import Phase, other
from tavla.engine.match import MatchState

ANSWERS = ("request", "accept", "decline")


@dataclass(frozen=True)
class _Target:
    """What a takeback of the asker's last play would undo."""

    restore_to: int  # the sequence of the last event kept
    undone: list[int]  # the sequences undone: the play and the server's rolls after it
    undone_rolls: list[tuple[int, int]]  # the dice of the undone rolls, oldest first


def check_takeback_table(match: Match) -> None:
    """Raise :class:`ServiceError` when no takeback is ever possible in ``match``:
    ``takeback_rated``, ``takeback_tournament`` or ``takeback_bot``."""
    table = match.table
    if table.is_rated:
        raise ServiceError("takeback_rated",
                           _("Takebacks are for unrated play: this table is rated."))
    if rematch_refusal(table) is not None or table.reserved0_id or table.reserved1_id:
        raise ServiceError("takeback_tournament", _("A tournament match has no takebacks."))
    if match.has_bot:
        raise ServiceError("takeback_bot",
                           _("The bot does not take back: there is no takeback against it."))


def match_takeback(*, match_id: int, player: Player | None, answer: Any,
                   table_id: int | None = None, now: datetime | None = None) -> Match:
    """Ask to take back one's last play (``answer="request"``), or answer the opponent's
    request (``"accept"``, ``"decline"``; the asker's own ``"decline"`` withdraws it).
    Each is a change of the match: a new version, pushed, logged.

    Raises :class:`ServiceError`, with nothing changed: ``not_authenticated``,
    ``not_found``, ``no_match``, ``match_over``, ``not_a_player``, ``bad_request`` (an
    unknown answer), ``takeback_rated``, ``takeback_tournament``, ``takeback_bot``,
    ``takeback_pending`` (a request already waits), ``takeback_unavailable`` (there is no
    play of yours the opponent has not answered yet) and ``no_takeback`` (an answer with no
    request to answer, or to one's own request).
    """
    player = _require_player(player, _("Log in to ask for a takeback."))
    if answer not in ANSWERS:
        raise ServiceError("bad_request", _("answer is one of: %(names)s.")
                           % {"names": ", ".join(ANSWERS)})
    with match_change(match_id, table_id=table_id, now=now) as change:
        match = change.match
        seat = match.seat_of(player)
        if seat is None:
            raise ServiceError("not_a_player", _("Only the match's players take back."))
        check_takeback_table(match)
        asker = match.takeback_seat
        actor = player.user_id
        if answer == "request":
            if asker is not None:
                raise ServiceError("takeback_pending", _("A takeback request is waiting already."))
            _target(match, change.state, seat)  # refuses when there is nothing to take back
            match.takeback_seat = seat
            change.log(LogKind.TAKEBACK_REQUEST, {"player": seat}, actor)
        elif asker is None or (answer == "accept" and asker == seat):
            raise ServiceError("no_takeback", _("There is no takeback request to answer."))
        elif answer == "decline":
            match.takeback_seat = None
            change.log(LogKind.TAKEBACK_DECLINE, {"player": seat, "asked_by": asker}, actor)
        else:
            target = _target(match, change.state, asker)
            restored = replay_events(match.events.filter(sequence__lte=target.restore_to)
                                     .order_by("sequence"))
            _rewind_dice(match, target.undone_rolls)
            match.takeback_seat = None
            change.restore(restored, LogKind.TAKEBACK_ACCEPT,
                           {"player": seat, "asked_by": asker,
                            "restore_to": target.restore_to, "undone": target.undone}, actor)
    return change.match


def _target(match: Match, state: MatchState, asker: int) -> _Target:
    """What taking back ``asker``'s last play undoes; raises ``takeback_unavailable`` when
    the opponent has acted since (or there is no such play in this game)."""
    unavailable = ServiceError(
        "takeback_unavailable",
        _("There is nothing to take back: you can take back your last play only until your "
        "opponent acts."))
    if (state.resign_offer is not None or state.phase not in (Phase.TURN_START, Phase.MOVE)
            or state.player_to_act != other(asker)):
        raise unavailable
    undone: list[int] = []
    rolls: list[tuple[int, int]] = []
    # Walk back from the newest event: the server's rolls for the opponent, earlier
    # takeback requests and answers, then the asker's play.
    recent: list[Event] = list(match.events.filter(game_number=state.game_number)
                               .order_by("-sequence")[:12])
    for event in recent:
        action: dict[str, Any] = event.payload.get("action") or {}
        kind = event.kind
        if kind in (LogKind.TAKEBACK_REQUEST, LogKind.TAKEBACK_DECLINE):
            continue
        if kind == LogKind.ROLL and event.actor_id is None \
                and action.get("player") in (None, other(asker)):
            undone.append(event.sequence)
            rolls.append((int(action["dice"][0]), int(action["dice"][1])))
            continue
        if kind == LogKind.PLAY and action.get("player") == asker:
            undone.append(event.sequence)
            return _Target(event.sequence - 1, sorted(undone), list(reversed(rolls)))
        break
    raise unavailable


def _rewind_dice(match: Match, rolls: list[tuple[int, int]]) -> None:
    """Give the undone rolls back to the dice, so the same rolls come again in the same
    places: the fair source's counter goes back two dice a roll; a scripted roll (tests and
    demonstrations, which come before every fair one) goes back to the front of the script."""
    for roll in reversed(rolls):
        scripted = match.dice_were_scripted and (match.scripted_dice or match.dice_counter == 0)
        if scripted:
            match.scripted_dice = [list(roll), *match.scripted_dice]
        else:
            match.dice_counter -= 2
