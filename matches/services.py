"""Every change to a table or a match goes through these functions.

Views, API endpoints, WebSocket consumers, Celery tasks and admin actions are thin callers.
Each match change locks the match row, checks the version the caller saw, lets the engine
judge, writes snapshot and events in one transaction and broadcasts after commit.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, Final

from django.db import transaction
from django.utils import timezone

from matches import access, broadcast, presence, selectors
from matches.errors import ServiceError
from matches.late_penalty import late_start_score
from matches.models import (
    Event,
    Game,
    GameEnding,
    LogKind,
    Match,
    MatchStatus,
    Player,
    RatingRecord,
    Table,
)
from matches.ratings import fibs_rating_change
from matches.rules import rule_names
from matches.signals import match_finished
from matches.state import (
    MatchDice,
    awaiting_client_seeds,
    load_state,
    open_client_seeds,
    replay_events,
    rules_for_table,
)
from tavla.engine import EngineError
from tavla.engine.actions import (
    AcceptResign,
    Action,
    Adjudicate,
    AdjudicationScope,
    Double,
    Drop,
    EndSession,
    Forfeit,
    NewGame,
    OpeningRoll,
    PlayMove,
    RejectResign,
    Resign,
    Roll,
    Take,
    Timeout,
)
from tavla.engine.clock import PRESETS, Clock
from tavla.engine.dice import FairDice
from tavla.engine.game import EndReason, EventKind, Phase
from tavla.engine.match import MatchState

PLAYER_ACTIONS: Final = ("roll", "double", "take", "drop", "play", "resign", "accept_resign",
                         "reject_resign")


# -- players and tables --------------------------------------------------------------------


def player_for_user(user: Any) -> Player:
    """The player of ``user``, created on first use (display name: the username)."""
    if user is None or not getattr(user, "is_authenticated", False):
        raise ServiceError("not_authenticated", "Log in to play.")
    player, _created = Player.objects.get_or_create(
        user=user, defaults={"display_name": user.get_username()[:40]}
    )
    return player


# The keyword arguments of table_create: every option of matches.rules.
TABLE_RULE_FIELDS: Final = rule_names()


def clock_preset_fields(preset: str) -> dict[str, Any]:
    """The table fields of a clock preset (``tavla.engine.clock.PRESETS``: fast, normal,
    casual, usbgf, none). Raises :class:`ServiceError` ``invalid_option`` for another name."""
    if preset not in PRESETS:
        names = ", ".join(PRESETS)
        raise ServiceError("invalid_option", f"Unknown clock preset {preset!r}; one of {names}.")
    control = PRESETS[preset]
    if control is None:
        return {"clock_enabled": False}
    return {"clock_enabled": True, "clock_delay": control.delay,
            "clock_reserve_seconds": control.reserve_seconds,
            "clock_reserve_per_point": control.reserve_per_point,
            "grace_seconds": control.grace}


def table_create(*, name: str, creator: Player | None = None, clock_preset: str | None = None,
                 reserve_for: Player | None = None, **rules: Any) -> Table:
    """Create a table with the given rules (any of ``TABLE_RULE_FIELDS``).

    ``clock_preset`` (a name in ``PRESETS``) fills the clock fields; a clock field given
    explicitly as well wins over the preset's value. ``reserve_for`` keeps the two seats for
    the creator and that player. A private table gets an invitation token (``matches.access``).
    """
    unknown = set(rules) - set(TABLE_RULE_FIELDS)
    if unknown:
        names = ", ".join(sorted(unknown))
        raise ServiceError("invalid_option", f"Unknown table options: {names}.")
    if clock_preset is not None:
        rules = {**clock_preset_fields(clock_preset), **rules}
    name = (name or "").strip()
    if not name:
        raise ServiceError("invalid_option", "A table needs a name.")
    length = rules.get("match_length")
    if length is not None and not (isinstance(length, int) and 1 <= length <= 99):
        raise ServiceError("invalid_option", "A match is played to 1 to 99 points.")
    table = Table(name=name[:80], created_by=creator, **rules)
    if reserve_for is not None:
        if creator is None or reserve_for.pk == creator.pk:
            raise ServiceError("invalid_option",
                               "A seat can be reserved only for another player than its creator.")
        table.reserved0, table.reserved1 = creator, reserve_for
    if not table.is_public:
        table.invite_token = access.new_invite_token()
    table.full_clean()
    table.save()
    broadcast.broadcast_on_commit(broadcast.LOBBY_GROUP, {"type": "lobby.changed"})
    return table


def current_match(table: Table) -> Match | None:
    """The match being played at ``table``, if any."""
    return table.matches.filter(status=MatchStatus.PLAYING).order_by("-pk").first()


@transaction.atomic
def table_sit(*, table_id: int, player: Player | None, seat: int | None = None,
              invite: str | None = None) -> Table:
    """Sit ``player`` at the table (the first free seat, or ``seat``); when both seats are
    taken the match starts at once. A private table needs ``invite`` unless the player is
    its creator or a seat is reserved for them. ``None`` (anonymous) is refused:
    ``not_authenticated``."""
    player = _require_player(player, "Log in to take a seat.")
    table = Table.objects.select_for_update().get(pk=table_id)
    if player.pk in (table.seat0_id, table.seat1_id):
        raise ServiceError("already_seated", "You already sit at this table.")
    access.check_may_sit(table, player, invite)
    reserved = {table.reserved0_id, table.reserved1_id} - {None}
    if reserved and player.pk not in reserved:
        raise ServiceError("seat_reserved",
                           "The seats at this table are reserved for other players.")
    free = [index for index, taken in enumerate((table.seat0_id, table.seat1_id)) if not taken]
    if seat is not None:
        if seat not in (0, 1):
            raise ServiceError("invalid_seat", "A table has seats 0 and 1.")
        if seat not in free:
            raise ServiceError("seat_taken", "That seat is taken.")
        free = [seat]
    if not free:
        raise ServiceError("table_full", "Both seats at this table are taken.")
    setattr(table, f"seat{free[0]}", player)
    setattr(table, f"seat{free[0]}_since", timezone.now())
    table.save(update_fields=[f"seat{free[0]}", f"seat{free[0]}_since"])
    if table.seat0_id and table.seat1_id and current_match(table) is None:
        match_start(table=table)  # its first state reaches every board of the table
    else:
        _broadcast_table_state(table.pk)
    broadcast.broadcast_on_commit(broadcast.LOBBY_GROUP, {"type": "lobby.changed"})
    return table


@transaction.atomic
def table_new_invite(*, table_id: int, player: Player) -> Table:
    """A new invitation token for a private table (the old link stops working); creator only."""
    table = Table.objects.select_for_update().get(pk=table_id)
    if table.created_by_id != player.pk:
        raise ServiceError("forbidden", "Only the table's creator can renew its invitation.")
    if table.is_public:
        raise ServiceError("invalid_option", "A public table needs no invitation.")
    table.invite_token = access.new_invite_token()
    table.save(update_fields=["invite_token"])
    return table


@transaction.atomic
def table_stand(*, table_id: int, player: Player | None) -> Table:
    """Leave a seat; refused while a match is being played there (resign instead)."""
    player = _require_player(player, "Log in first.")
    table = Table.objects.select_for_update().get(pk=table_id)
    if player.pk not in (table.seat0_id, table.seat1_id):
        raise ServiceError("not_seated", "You do not sit at this table.")
    if current_match(table) is not None:
        raise ServiceError("match_in_progress", "A match is in progress: resign it first.")
    field = "seat0" if table.seat0_id == player.pk else "seat1"
    setattr(table, field, None)
    table.save(update_fields=[field])
    broadcast.broadcast_on_commit(broadcast.LOBBY_GROUP, {"type": "lobby.changed"})
    _broadcast_table_state(table.pk)
    return table


def _require_player(player: Player | None, detail: str) -> Player:
    if player is None:
        raise ServiceError("not_authenticated", detail)
    return player


def _broadcast_table_state(table_id: int) -> None:
    """After commit, push the table's state (its seats changed) to every board of it: read
    once here, not once per board."""

    def send() -> None:
        public, plays = selectors.table_public_state(table_id)
        broadcast.broadcast_now(broadcast.table_group(table_id),
                                {"type": "table.state", "state": public, "plays": plays})

    transaction.on_commit(send, robust=True)


# -- starting a match ----------------------------------------------------------------------


def match_start(*, table: Table, scripted_dice: list[list[int]] | None = None) -> Match:
    """Start a match between the two seated players. Caller holds the table row lock.

    The dice commitment is published now. The first opening roll waits for both players'
    client seeds (:mod:`matches.dice_seeds`) for up to ``TAVLA_CLIENT_SEED_SECONDS``; with
    no wait configured both seeds are recorded empty and it is made at once.
    """
    if not (table.seat0_id and table.seat1_id):
        raise ServiceError("table_not_full", "A match needs two seated players.")
    rules = rules_for_table(table)
    dice = FairDice.new()
    start_score, late = late_start_score(table, rules.match_length)
    state = MatchState.new(rules, score=start_score)
    match = Match.objects.create(
        table=table,
        player0=table.seat0,  # type: ignore[misc]  # both seated: checked above
        player1=table.seat1,  # type: ignore[misc]
        snapshot=state.to_dict(),
        dice_commitment=dice.commitment,
        dice_seed=dice.seed_hex,
        scripted_dice=list(table.scripted_dice if scripted_dice is None else scripted_dice),
        has_bot=Player.objects.filter(pk__in=(table.seat0_id, table.seat1_id),
                                      is_bot=True).exists(),
    )
    now = timezone.now()
    bots = set(Player.objects.filter(pk__in=(table.seat0_id, table.seat1_id), is_bot=True)
               .values_list("pk", flat=True)) if match.has_bot else set()
    open_client_seeds(match, now, bot_seats=[seat for seat, pk in
                                             enumerate((table.seat0_id, table.seat1_id))
                                             if pk in bots])
    control = table.time_control()
    if control is not None:
        match.clock = Clock.for_match(control, table.match_length).to_dict()
    start: dict[str, Any] = {"rules": rules.to_dict(), "commitment": match.dice_commitment}
    if late is not None:  # the starting score a late-arrival penalty gave, and why
        start.update(start_score=list(start_score), late_penalty=late)
    events = [_event(match, LogKind.START, start, 0)]
    _advance(match, state, events, now)
    return match


# -- acting on a match ---------------------------------------------------------------------


@dataclass(frozen=True)
class ActResult:
    """What an action did: the match as saved, the events logged, the new engine state."""

    match: Match
    events: list[Event]
    state: MatchState


def match_act(
    *,
    match_id: int,
    player: Player | None,
    action: str,
    expected_version: int,
    play: str | None = None,
    actor: Any = None,
    now: datetime | None = None,
    table_id: int | None = None,
    level: int | None = None,
) -> ActResult:
    """Apply a player's action: ``roll``, ``double``, ``take``, ``drop``, ``play`` (with the
    play's notation), ``resign`` (with an optional ``level``: 1 single, 2 gammon, 3
    backgammon, on a table whose resignation style is ``offer``), ``accept_resign`` or
    ``reject_resign``, made against ``expected_version``.

    Raises :class:`ServiceError` with codes ``unknown_action``, ``not_found``,
    ``match_over``, ``not_a_player``, ``stale_version``, ``not_your_turn`` and
    ``illegal_action`` (the engine's message as detail), ``not_authenticated`` for no
    player, and ``no_match`` when ``table_id`` is given and the match is not played at that
    table. Nothing changes on an error,
    except ``flag_fell``: the acting player's deadline had passed when this request got the
    lock, so the flag is recorded (and committed) instead of the action. ``now`` is for
    tests; it defaults to the time the lock is held.

    Queries: the locked read, one insert of the events (a game's end adds its ``Game`` row)
    and the match's update; a match's end also rates it and frees the table.
    """
    player = _require_player(player, "Log in to play.")
    if action not in PLAYER_ACTIONS:
        raise ServiceError("unknown_action", f"Unknown action {action!r}; "
                           f"expected one of {', '.join(PLAYER_ACTIONS)}.")
    if action == "play" and not isinstance(play, str):
        raise ServiceError("invalid_play", "A play needs its notation, such as '24/18 13/10'.")
    if level is not None and (action != "resign" or isinstance(level, bool)
                              or not isinstance(level, int) or level not in (1, 2, 3)):
        raise ServiceError("invalid_level", "A resignation level is 1 (single game), 2 (gammon) "
                           "or 3 (backgammon), and only a resignation has one.")
    with transaction.atomic():
        match = _locked_match(match_id)
        if table_id is not None and match.table_id != table_id:
            raise ServiceError("no_match", f"Match {match_id} is not played at this table.")
        now = now or timezone.now()
        # A move and a flag that race resolve to one outcome: whoever holds the lock first
        # decides, and a move that gets it after the deadline is too late.
        if not deadline_passed(match, now):
            seat = match.seat_of(player)
            if seat is None:
                raise ServiceError("not_a_player", "Only the two players of this match may act.")
            _check_version(match, expected_version)
            state = load_state(match)
            if action != "resign" and state.player_to_act != seat:
                raise ServiceError("not_your_turn", "It is not your turn to act.")
            engine_action = _engine_action(action, seat, state, play, MatchDice(match), level)
            events, new_state = _apply_and_advance(match, state, engine_action,
                                                   _actor_id(actor) or player.user_id, now)
            return ActResult(match, events, new_state)
        flag_locked(match, load_state(match), now)
    raise ServiceError("flag_fell", "Time ran out before this action arrived: the flag fell.")


def _engine_action(action: str, seat: int, state: MatchState, play: str | None,
                   dice: MatchDice, level: int | None = None) -> Action:
    if action == "roll":
        if state.phase is not Phase.TURN_START:
            raise ServiceError("illegal_action", "You can roll only at the start of your turn.")
        return Roll(*dice.roll(), player=seat)
    if action == "double":
        return Double(player=seat)
    if action == "take":
        return Take(player=seat)
    if action == "drop":
        return Drop(player=seat)
    if action == "play":
        assert play is not None
        return PlayMove(play, player=seat)
    if action == "accept_resign":
        return AcceptResign(player=seat)
    if action == "reject_resign":
        return RejectResign(player=seat)
    return Resign(seat, level)


def _locked_match(match_id: int) -> Match:
    """The match, locked, with what its state needs (table, seats, players) in one query."""
    try:
        match = (Match.objects.select_for_update(of=("self",))
                 .select_related("table", "table__seat0", "table__seat1", "player0", "player1")
                 .get(pk=match_id))
    except Match.DoesNotExist:
        raise ServiceError("not_found", f"There is no match {match_id}.") from None
    if match.is_finished:
        raise ServiceError("match_over", "This match is over.")
    return match


def _check_version(match: Match, expected_version: int) -> None:
    if expected_version != match.version:
        raise ServiceError(
            "stale_version",
            f"The match has moved on (version {match.version}, you acted on "
            f"{expected_version}); reload the state and try again.",
        )


def _apply_and_advance(match: Match, state: MatchState, action: Action, actor_id: int | None,
                       now: datetime, *, logged: dict[str, Any] | None = None,
                       earlier: list[Event] | None = None) -> tuple[list[Event], MatchState]:
    """Apply ``action`` then everything the server does by itself, save and broadcast; return
    the events and the final state. Caller holds the lock.

    ``logged`` adds to the action's event payload what the engine does not know (why, when):
    each event is written once, with its final payload. ``earlier`` are events already logged
    in this transaction, still to be written (before this action's)."""
    try:
        new_state = state.apply(action)
    except EngineError as error:
        raise ServiceError("illegal_action", str(error)) from error
    events = [*(earlier or []), *_log_action(match, state, new_state, action, actor_id, logged)]
    # A player's own roll after their cube decision is the same turn: same clock, same delay.
    same_turn = isinstance(action, Roll) and new_state.phase is Phase.MOVE
    final = _advance(match, new_state, events, now, same_turn=same_turn)
    return events, final


def _log_action(match: Match, before: MatchState, after: MatchState, action: Action,
                actor_id: int | None, logged: dict[str, Any] | None = None) -> list[Event]:
    payload: dict[str, Any] = {"action": action.to_dict(), **(logged or {})}
    if isinstance(action, PlayMove):
        # Store the canonical notation the engine matched, whatever the client typed.
        game = after.games[len(before.games) - 1]
        played = [e for e in game.events if e.kind is EventKind.PLAY]
        if played and played[-1].play is not None:
            payload["action"]["play"] = played[-1].play
    kind = LogKind(payload["action"]["type"])
    events = [_event(match, kind, payload, before.game_number, actor_id)]
    events += _game_end_events(match, before, after)
    return events


def _actor_id(actor: Any) -> int | None:
    """The user id to log for ``actor`` (a user, or ``None``; anonymous users log none)."""
    if actor is None or not getattr(actor, "is_authenticated", False):
        return None
    return int(actor.pk)


def _event(match: Match, kind: str, payload: dict[str, Any], game_number: int,
           actor_id: int | None = None) -> Event:
    """The next event of ``match``'s log, numbered from the match's own counter (no query);
    written by :func:`_save` with the match, in the same transaction."""
    event = Event(match=match, sequence=match.next_sequence, game_number=game_number,
                  kind=kind, actor_id=actor_id, payload=payload)
    match.next_sequence += 1
    return event


def _save(match: Match, events: list[Event]) -> None:
    """Write the new events (one insert) and the match (one update). Caller holds the lock."""
    Event.objects.bulk_create(events)
    match.save()


_ENDING: Final = {
    EndReason.DROP: GameEnding.DROP,
    EndReason.RESIGN: GameEnding.RESIGN,
    EndReason.TIMEOUT: GameEnding.TIMEOUT,
    EndReason.FORFEIT: GameEnding.FORFEIT,
    EndReason.ADJUDICATION: GameEnding.ADJUDICATED,
}


def _game_end_events(match: Match, before: MatchState, after: MatchState) -> list[Event]:
    """Record the game that ``before → after`` finished, if any (its Game row and event)."""
    index = len(before.games) - 1
    if index >= len(after.games):
        return []
    was, now = before.games[index], after.games[index]
    if was.result is not None or now.result is None:
        return []
    result = now.result
    if result.reason is EndReason.BEAR_OFF:
        ending = GameEnding(result.kind.value)
    else:
        ending = _ENDING.get(result.reason, GameEnding.ADJUDICATED)
    winner = match.player0 if result.winner == 0 else match.player1
    # A game ends once: a plain insert (one query) where update_or_create would read first.
    Game.objects.create(
        match=match, number=now.number, winner=winner, points=result.points,
        cube_value=result.cube_value, ending=ending, finished_at=timezone.now(),
    )
    return [_event(match, LogKind.GAME_END, result.to_dict(), now.number)]


def match_advance_locked(match: Match, now: datetime) -> None:
    """Let the server do what it does by itself now (the first roll, once the client seeds
    are in: :mod:`matches.dice_seeds`), then save and broadcast. Caller holds the lock."""
    _advance(match, load_state(match), [], now)


def _advance(match: Match, state: MatchState, events: list[Event], now: datetime, *,
             same_turn: bool = False) -> MatchState:
    """Do what the server does by itself, then save and broadcast; return the final state.
    Caller holds the lock.

    The broadcast carries the new public state, computed here once for every board of the
    table (see :func:`matches.selectors.live_update`).

    Opening rolls, a roll when the player on roll has no cube decision (cube off, owned by
    the opponent, Crawford, at its limit), and the next game after a game ends. A roll with
    no legal play passes inside the engine.
    """
    dice = MatchDice(match)
    while True:
        if state.resign_offer is not None:
            break  # the resigning player's opponent answers first
        if state.phase is Phase.OPENING_ROLL:
            if awaiting_client_seeds(match):
                break  # the first roll waits for the players' client seeds
            action: Action = OpeningRoll(*dice.roll_opening())
        elif state.phase is Phase.TURN_START and not state.may_double():
            action = Roll(*dice.roll())
        elif state.phase is Phase.GAME_OVER:
            action = NewGame()
        else:
            break
        before = state
        state = state.apply(action)
        events += _log_action(match, before, state, action, None)
    match.snapshot = state.to_dict()
    match.score0, match.score1 = state.score
    match.version += 1
    _restart_clock(match, state, now, same_turn=same_turn)
    finished = state.is_over
    if finished:
        _finish_match(match, state, events, now)
    _save(match, events)
    if finished:
        match_finished.send(sender=Match, match=match)
    broadcast.broadcast_on_commit(broadcast.table_group(match.table_id),
                                  selectors.live_update(match, state))
    if match.has_bot and not state.is_over:
        from matches.bots import schedule_bot_turn

        schedule_bot_turn(match)
    return state


def _restart_clock(match: Match, state: MatchState, now: datetime, *,
                   same_turn: bool = False) -> None:
    """Run the clock of the player who must act (roll or cube decision, take or drop, play)
    and store their deadline; stop it when nobody must act.

    One delay per turn: with ``same_turn`` (the player rolled after deciding not to double)
    their clock keeps running from the start of the turn. Every hand-over charges the time
    the last player used beyond the delay and gives the next player a fresh delay, at
    ``now``: what the server does by itself in between (rolls, passes, a new game's opening
    roll) costs nobody anything.
    """
    if match.clock is None:
        match.deadline = None
        return
    clock = Clock.from_dict(match.clock)
    acting = state.player_to_act
    stamp = now.timestamp()
    if acting is None or state.is_over:
        clock = clock.stop(stamp)
    elif not (same_turn and clock.running == acting):
        clock = clock.start(acting, stamp)
    match.clock = clock.to_dict()
    deadline = clock.deadline()
    match.deadline = None if deadline is None else datetime.fromtimestamp(deadline, tz=now.tzinfo)


# -- ending a match: the one place every end goes through ------------------------------------


def _finish_match(match: Match, state: MatchState, events: list[Event], now: datetime, *,
                  voided: bool = False) -> None:
    """Score and close a match whose engine state is over. Caller holds the lock and saves.

    Sets status and winner, reveals the dice seed, updates ratings and frees the table; the
    caller tells listeners (tournaments) through :data:`matches.signals.match_finished` once
    the match is saved. A ``voided`` match ends here too, mid-game: no winner, no rating
    change, its clock stopped.
    """
    reason = state.end_reason
    if voided:
        match.status = MatchStatus.VOIDED
        if match.clock is not None:
            match.clock = Clock.from_dict(match.clock).stop(now.timestamp()).to_dict()
    elif reason is EndReason.FORFEIT:
        match.status = MatchStatus.FORFEITED
    elif reason is EndReason.ADJUDICATION:
        match.status = MatchStatus.ADJUDICATED
    else:
        match.status = MatchStatus.FINISHED
    if state.winner is not None and not voided:
        match.winner = match.player0 if state.winner == 0 else match.player1
    match.finished_at = now
    match.seed_revealed = True
    match.deadline = None
    events.append(_event(match, LogKind.MATCH_END, {
        "winner": None if voided else state.winner, "score": list(state.score),
        "reason": "void" if voided else None if reason is None else reason.value,
    }, state.game_number))
    # A bot's match changes ratings only where its table says so (Table.bots_rated).
    rated = match.table.is_rated and (not match.has_bot or match.table.bots_rated)
    if rated and match.winner is not None and state.rules.match_length:
        _update_ratings(match, state.rules.match_length)
    _free_table(match)
    broadcast.broadcast_on_commit(broadcast.LOBBY_GROUP, {"type": "lobby.changed"})


def _free_table(match: Match) -> None:
    """Free both seats of the match's table (in the database and in the loaded table, which
    the broadcast state shows)."""
    Table.objects.filter(pk=match.table_id).update(seat0=None, seat1=None)
    match.table.seat0 = match.table.seat1 = None


def _update_ratings(match: Match, length: int) -> None:
    """Rate a finished match (FIBS formula). Locks both players' rows, in id order so two
    matches finishing at once cannot deadlock; one insert of both records."""
    assert match.winner_id is not None
    locked = {p.pk: p for p in Player.objects.select_for_update().filter(
        pk__in=(match.player0_id, match.player1_id)).order_by("pk")}
    winner = locked[match.winner_id]
    loser = locked[match.player1_id if match.winner_id == match.player0_id else match.player0_id]
    change = fibs_rating_change(
        winner_rating=winner.rating, loser_rating=loser.rating,
        winner_experience=winner.experience, loser_experience=loser.experience,
        match_length=length,
    )
    records = []
    for player, delta in ((winner, change.winner_delta), (loser, change.loser_delta)):
        records.append(RatingRecord(player=player, match=match, before=player.rating,
                                    after=player.rating + delta))
        player.rating += delta
        player.experience += length
        player.save(update_fields=["rating", "experience"])
        shown = match.player0 if player.pk == match.player0_id else match.player1
        shown.rating, shown.experience = player.rating, player.experience
    RatingRecord.objects.bulk_create(records)


# -- server and referee decisions ------------------------------------------------------------


def deadline_passed(match: Match, now: datetime) -> bool:
    return (not match.is_finished and match.clock is not None and match.deadline is not None
            and match.deadline <= now)


def flag_locked(match: Match, state: MatchState, now: datetime) -> bool:
    """Flag the player who must act, whose deadline has passed. Caller holds the lock
    (:func:`matches.clocks.flag_if_expired` and a late :func:`match_act` call it).

    The timeout event records when the flag fell and whether the player had a board open
    (``absent``; ``None`` when presence could not tell), for the grace period.
    """
    loser = state.player_to_act
    if loser is None or match.clock is None:
        return False
    # After a flag the match goes on with that player on delay only.
    match.clock = Clock.from_dict(match.clock).stop(now.timestamp()).flag(loser).to_dict()
    player_id = match.player0_id if loser == 0 else match.player1_id
    absent = presence.absent_at_flag(table_id=match.table_id, player_id=player_id)
    _apply_and_advance(match, state, Timeout(loser), None, now,
                       logged={"flagged_at": now.timestamp(), "absent": absent})
    return True


def match_forfeit(*, match_id: int, loser: Player, reason: str, actor: Any = None) -> Match:
    """``loser`` forfeits the match (no-show, disconnection past grace, disqualification)."""
    with transaction.atomic():
        match = _locked_match(match_id)
        seat = match.seat_of(loser)
        if seat is None:
            raise ServiceError("not_a_player", "Only a player of this match can forfeit it.")
        state = load_state(match)
        _apply_and_advance(match, state, Forfeit(seat), _actor_id(actor), timezone.now(),
                           logged={"reason": reason})
        return match


def match_adjudicate(*, match_id: int, referee: Any, winner: Player, scope: str,
                     reason: str, points: int | None = None) -> Match:
    """A referee awards the current game or the whole match to ``winner``, with a reason.

    The decision is itself an event carrying the referee and the reason.
    """
    reason = (reason or "").strip()
    if not reason:
        raise ServiceError("reason_required", "An adjudication needs a written reason.")
    try:
        scope_value = AdjudicationScope(scope)
    except ValueError:
        raise ServiceError("invalid_scope", "Adjudicate the 'game' or the 'match'.") from None
    with transaction.atomic():
        match = _locked_match(match_id)
        seat = match.seat_of(winner)
        if seat is None:
            raise ServiceError("not_a_player", "The winner must be a player of this match.")
        state = load_state(match)
        action = Adjudicate(winner=seat, scope=scope_value, points=points, reason=reason)
        _apply_and_advance(match, state, action, _actor_id(referee), timezone.now())
        return match


def match_void(*, match_id: int, referee: Any, reason: str) -> Match:
    """Cancel a match without a result (no score, no rating change), through the one
    finisher: listeners hear ``match_finished`` with a voided match."""
    reason = (reason or "").strip()
    if not reason:
        raise ServiceError("reason_required", "Voiding a match needs a written reason.")
    with transaction.atomic():
        match = _locked_match(match_id)
        state = load_state(match)
        events = [_event(match, LogKind.VOID, {"reason": reason}, state.game_number,
                         _actor_id(referee))]
        match.version += 1
        _finish_match(match, state, events, timezone.now(), voided=True)
        _save(match, events)
        match_finished.send(sender=Match, match=match)
        broadcast.broadcast_on_commit(broadcast.table_group(match.table_id),
                                      selectors.live_update(match, state))
        return match


@dataclass(frozen=True)
class Verification:
    ok: bool
    events: int
    detail: str


def match_verify(*, match_id: int) -> Verification:
    """Replay the event log through the engine and compare with the stored snapshot."""
    match = Match.objects.get(pk=match_id)
    events = list(match.events.order_by("sequence"))
    gaps = [e.sequence for i, e in enumerate(events) if e.sequence != i]
    if gaps:
        return Verification(False, len(events), f"the log has a gap or duplicate at {gaps[0]}")
    try:
        replayed = replay_events(events)
    except (EngineError, ValueError, KeyError) as error:
        return Verification(False, len(events), f"the log does not replay: {error}")
    if replayed.to_dict() != match.snapshot:
        return Verification(False, len(events), "replaying the log gives a different state")
    return Verification(True, len(events), f"{len(events)} events replay to the stored state")


def match_end_session(*, match_id: int, player: Player | None,
                      expected_version: int | None = None, table_id: int | None = None) -> Match:
    """End a money session (either player may close it), made against ``expected_version``
    when given.

    The next game starts as soon as one ends, so a session is never between games: the
    player who ends it resigns the game in progress first (single × cube to the opponent).
    """
    player = _require_player(player, "Log in to end the session.")
    with transaction.atomic():
        match = _locked_match(match_id)
        if table_id is not None and match.table_id != table_id:
            raise ServiceError("no_match", f"Match {match_id} is not played at this table.")
        seat = match.seat_of(player)
        if seat is None:
            raise ServiceError("not_a_player", "Only a player may end the session.")
        if expected_version is not None:
            _check_version(match, expected_version)
        state = load_state(match)
        if not state.rules.is_money:
            raise ServiceError("illegal_action", "Only a money session can be ended; "
                               "a match ends when a player reaches the match length.")
        if state.resign_offer is not None:
            raise ServiceError("illegal_action", "A resignation waits for its answer: the "
                               "session can end once it is accepted or refused.")
        earlier: list[Event] = []
        if state.phase.in_game:
            # At an "offer" table the session's end resigns a single game: offered, accepted.
            steps: list[Action] = [Resign(seat)]
            if state.rules.resignation == "offer":
                steps.append(AcceptResign())
            for step in steps:
                resigned = state.apply(step)
                earlier += _log_action(match, state, resigned, step, player.user_id)
                state = resigned
        _apply_and_advance(match, state, EndSession(), player.user_id, timezone.now(),
                           earlier=earlier)
        return match

