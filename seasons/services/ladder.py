"""Ladder services: create, join, leave, challenge, accept, decline, the result of a ladder
match, and the beat's sweep of deadlines and inactivity.

Every change of the order is a :mod:`seasons.formats.ladder` event: the service asks the
formats for the new order (:func:`~seasons.formats.ladder.apply`), stores the event as the
next :class:`~seasons.models.LadderEvent` and writes the places, all under the ladder's row
lock. So the stored order is always the replay of the history (:func:`ladder_check`).

Rules the site adds to the formats' (docs/seasons.md):

- A player takes part in at most one challenge still to be decided (open or accepted), as
  challenger or defender; while it lasts they may not leave and are not dropped for
  inactivity. (So the defender always stands above the challenger when it is decided: the
  other changes of the ladder never swap two players who are not themselves moving.)
- Declining, or not accepting within ``accept_days``, is a forfeit by the defender.
- A match not finished within ``play_days`` is forfeited by the player on turn (to roll,
  move, double or answer), or by the defender if the first roll has not been made.
- A player with no ladder match decided for ``inactivity_days`` (counted from joining, from
  their last decided challenge, or from their last drop) drops ``drop_places`` places.

Bots (:func:`ladder_add_bots`): a director puts gnubg bots on the ladder; they then play it
on their own, by two rules:

- A bot accepts every challenge at once, inside :func:`ladder_challenge`'s own transaction:
  it has nobody to press *Accept*, and answering at once (rather than at the next sweep)
  means a bot's challenge is never open, so it can never expire into a forfeit, and the
  match starts at once (the bot worker plays the bot's turns).
- In :func:`ladder_sweep`, after the deadlines and the drops, every bot with no pending
  challenge, top of the ladder first, challenges the highest-placed player within its reach
  who has no pending challenge either (the challenge is then like anyone's: a bot defender
  accepts at once, a person has the ladder's days to answer). Top first, so a bot higher up
  chooses before the bots below it.

Inactivity applies to bots as to anyone.

Lock order: match → ladder (the match-play finisher holds the match when it tells us through
``match_finished``); the sweep ends a late match through :mod:`matches.services` before it
locks the ladder.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any, cast

from django.db import transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext as _

from matches import services as match_services
from matches.errors import ServiceError
from matches.gnubg.bots import bot_player
from matches.models import Match, MatchStatus, Player
from matches.rules import rule_names
from matches.services.broadcast import broadcast_on_commit
from matches.state import load_state
from seasons.formats import ladder as rules
from seasons.models import (
    PENDING,
    ChallengeStatus,
    Ladder,
    LadderChallenge,
    LadderEntry,
    LadderEvent,
    LadderEventKind,
)
from seasons.services.tables import correspondence_refusal, start_match
from tavla.analysis.levels import STRENGTHS

#: The limits of a ladder's settings (days, places).
LIMITS = {"reach": (1, 20), "accept_days": (1, 30), "play_days": (1, 60),
          "inactivity_days": (1, 365), "drop_places": (0, 50), "match_length": (1, 25)}
#: The most bots one request adds.
MAX_BOTS_AT_ONCE = 20


class LadderError(ServiceError):
    """A ladder change the rules refuse (``code`` says which); nothing changed."""


def ladder_create(*, name: str, creator: Player | None = None, scope: str = "",
                  reach: int = 3, accept_days: int = 3, play_days: int = 7,
                  inactivity_days: int = 14, drop_places: int = 2, match_length: int = 5,
                  **table_rules: Any) -> Ladder:
    """A new, empty ladder with the table rules ``table_rules`` (a tournament template's)."""
    unknown = set(table_rules) - set(rule_names(template=True))
    if unknown:
        raise LadderError("invalid_option",
                          _("Unknown ladder options: %(names)s.")
                          % {"names": ', '.join(sorted(unknown))})
    refusal = correspondence_refusal(table_rules)
    if refusal is not None:
        raise LadderError("invalid_option", refusal)
    name = (name or "").strip()
    if not name:
        raise LadderError("invalid_option", _("A ladder needs a name."))
    settings = {"reach": reach, "accept_days": accept_days, "play_days": play_days,
                "inactivity_days": inactivity_days, "drop_places": drop_places,
                "match_length": match_length}
    for field, value in settings.items():
        low, high = LIMITS[field]
        if not (isinstance(value, int) and not isinstance(value, bool) and low <= value <= high):
            raise LadderError("invalid_option",
                              _("%(field)s must be from %(low)s to %(high)s.")
                              % {"field": field, "low": low, "high": high})
    ladder = Ladder(name=name[:80], scope=(scope or "").strip()[:80], created_by=creator,
                    **settings, **table_rules)
    ladder.full_clean()
    ladder.save()
    return ladder


def ladder_join(*, ladder_id: int, player: Player | None,
                now: datetime | None = None) -> LadderEntry:
    """``player`` joins at the bottom."""
    player = _require_player(player)
    now = now or timezone.now()
    with transaction.atomic():
        ladder = _locked(ladder_id)
        _record(ladder, rules.Joined(player.pk), now)
        entry = LadderEntry.objects.get(ladder=ladder, player=player)
    return entry


def ladder_leave(*, ladder_id: int, player: Player | None, now: datetime | None = None) -> None:
    """``player`` leaves; those below move up. Refused while a challenge of theirs is
    pending (``challenge_pending``)."""
    player = _require_player(player)
    now = now or timezone.now()
    with transaction.atomic():
        ladder = _locked(ladder_id)
        if _pending_of(ladder, player.pk) is not None:
            raise LadderError("challenge_pending",
                              _("Finish your pending challenge before leaving the ladder."))
        _record(ladder, rules.Left(player.pk), now)


def ladder_challenge(*, ladder_id: int, challenger: Player | None, defender_id: int,
                     now: datetime | None = None) -> LadderChallenge:
    """``challenger`` challenges the player ``defender_id``, at most ``reach`` places above.
    Refused: ``not_on_ladder``, ``challenge_self``, ``challenge_below``,
    ``challenge_out_of_reach`` (the formats' codes), ``challenge_pending`` (the challenger
    already has one), ``defender_busy`` (the defender already has one)."""
    challenger = _require_player(challenger)
    now = now or timezone.now()
    with transaction.atomic():
        ladder = _locked(ladder_id)
        refusal = rules.challenge_refusal(order_of(ladder), challenger.pk, defender_id,
                                          ladder.reach)
        if refusal is not None:
            raise LadderError(refusal.code, _format_words(refusal))
        if _pending_of(ladder, challenger.pk) is not None:
            raise LadderError("challenge_pending",
                              _("You already have a challenge to finish on this ladder."))
        if _pending_of(ladder, defender_id) is not None:
            raise LadderError("defender_busy",
                              _("That player already has a challenge to finish; try later."))
        challenge = _challenge(ladder, challenger, defender_id, now)
    return challenge


def ladder_accept(*, challenge_id: int, player: Player | None,
                  now: datetime | None = None) -> LadderChallenge:
    """The defender accepts: a table with the ladder's rules, both seated; the match is to be
    finished within ``play_days``."""
    player = _require_player(player)
    now = now or timezone.now()
    with transaction.atomic():
        challenge, ladder = _locked_challenge(challenge_id)
        _require_open_for(challenge, player, now)
        _accept(ladder, challenge, now)
    return challenge


def ladder_add_bots(*, ladder_id: int, strength: str, count: int, actor: Player | None,
                    now: datetime | None = None) -> list[LadderEntry]:
    """The director ``actor`` puts ``count`` gnubg bots of ``strength`` on the ladder, at the
    bottom one after the other: the lowest-numbered bots of that strength not on it yet
    (:func:`matches.gnubg.bots.bot_player`). Only the ladder's creator or whoever may create
    ladders (``seasons.add_ladder``) may. Refused, nothing changed: ``not_allowed``,
    ``invalid_option`` (an unknown strength, a count not from 1 to
    :data:`MAX_BOTS_AT_ONCE`), ``not_found``."""
    now = now or timezone.now()
    if not isinstance(strength, str) or strength not in STRENGTHS:
        raise LadderError("invalid_option", _("A bot's strength is one of: %(strengths)s.")
                          % {"strengths": ", ".join(STRENGTHS)})
    if isinstance(count, bool) or not isinstance(count, int) or not (
            1 <= count <= MAX_BOTS_AT_ONCE):
        raise LadderError("invalid_option", _("Add from 1 to %(most)s bots at a time.")
                          % {"most": MAX_BOTS_AT_ONCE})
    with transaction.atomic():
        ladder = _locked(ladder_id)
        if not may_direct(ladder, actor):
            raise LadderError("not_allowed", _("Only the ladder's director may add bots."))
        taken = set(ladder.entries.values_list("player_id", flat=True))
        added: list[LadderEntry] = []
        number = 0
        while len(added) < count:
            number += 1
            bot = bot_player(strength, number)
            if bot.pk in taken or not bot.is_bot:
                continue  # already on it (or the name is a person's: never put them on)
            _record(ladder, rules.Joined(bot.pk), now)
            added.append(LadderEntry.objects.get(ladder=ladder, player=bot))
    return added


def may_direct(ladder: Ladder, player: Player | None) -> bool:
    """Whether ``player`` directs the ladder: its creator, or whoever may create ladders."""
    if player is None or player.is_bot:
        return False
    if ladder.created_by_id is not None and ladder.created_by_id == player.pk:
        return True
    return bool(player.user.is_active and player.user.has_perm("seasons.add_ladder"))


def ladder_decline(*, challenge_id: int, player: Player | None,
                   now: datetime | None = None) -> LadderChallenge:
    """The defender declines: a forfeit, the challenger takes the defender's place."""
    player = _require_player(player)
    now = now or timezone.now()
    with transaction.atomic():
        challenge, ladder = _locked_challenge(challenge_id)
        _require_open_for(challenge, player, now)
        _decide(ladder, challenge, winner_id=challenge.challenger_id, forfeit=True, now=now,
                status=ChallengeStatus.DECLINED)
    return challenge


def ladder_sweep(*, now: datetime | None = None) -> dict[str, int]:
    """The beat's round over every ladder: challenges not accepted in time are forfeited by
    the defender; matches not finished in time are forfeited (see the module); inactive
    players drop."""
    now = now or timezone.now()
    expired = late = dropped = 0
    for challenge_id in LadderChallenge.objects.filter(
            status=ChallengeStatus.OPEN, accept_by__lte=now).values_list("pk", flat=True):
        with transaction.atomic():
            challenge, ladder = _locked_challenge(challenge_id)
            if challenge.status == ChallengeStatus.OPEN and challenge.accept_by <= now:
                _decide(ladder, challenge, winner_id=challenge.challenger_id, forfeit=True,
                        now=now, status=ChallengeStatus.EXPIRED)
                expired += 1
    for challenge in LadderChallenge.objects.filter(
            status=ChallengeStatus.ACCEPTED, play_by__lte=now).select_related("match"):
        match = challenge.match
        if match is None or match.is_finished:
            continue
        # Ending the match tells :func:`on_match_finished`, which decides the challenge.
        try:
            match_services.match_forfeit(match_id=match.pk,
                                         loser=_late_player(challenge, match),
                                         reason="ladder match not finished in time")
        except ServiceError:
            continue  # it ended meanwhile (another sweep, or the last move): decided already
        late += 1
    bots = 0
    for ladder_id in Ladder.objects.values_list("pk", flat=True):
        dropped += _drop_inactive(ladder_id, now)
        bots += _bots_challenge(ladder_id, now)
    return {"expired": expired, "late": late, "dropped": dropped, "bot_challenges": bots}


def on_match_finished(sender: Any, match: Match, **kwargs: Any) -> None:
    """The ``match_finished`` receiver: a ladder match decides its challenge (a forfeited
    match by forfeit; a voided one moves nobody)."""
    challenge_id = LadderChallenge.objects.filter(
        match=match, status=ChallengeStatus.ACCEPTED).values_list("pk", flat=True).first()
    if challenge_id is None:
        return
    with transaction.atomic():
        challenge, ladder = _locked_challenge(challenge_id)
        if challenge.status != ChallengeStatus.ACCEPTED:
            return
        now = timezone.now()
        if match.winner_id is None:
            challenge.status, challenge.decided_at = ChallengeStatus.VOIDED, now
            challenge.save(update_fields=["status", "decided_at"])
            _changed(ladder.pk)
            return
        _decide(ladder, challenge, winner_id=match.winner_id,
                forfeit=match.status == MatchStatus.FORFEITED, now=now,
                status=ChallengeStatus.DECIDED)


# -- reads ---------------------------------------------------------------------------------


def order_of(ladder: Ladder) -> tuple[int, ...]:
    """The stored order: player ids, the top first."""
    return tuple(ladder.entries.order_by("place").values_list("player_id", flat=True))


def history_of(ladder: Ladder) -> list[rules.Event]:
    """The ladder's events, in order, as the formats name them."""
    return [event_of(row) for row in ladder.events.order_by("sequence")]


def event_of(row: LadderEvent) -> rules.Event:
    if row.kind == LadderEventKind.JOINED:
        return rules.Joined(row.player_id)
    if row.kind == LadderEventKind.LEFT:
        return rules.Left(row.player_id)
    if row.kind == LadderEventKind.DROPPED:
        return rules.Dropped(row.player_id, row.places)
    return rules.Decided(row.player_id, row.defender_id, row.winner_id, row.forfeit)


def ladder_check(ladder: Ladder) -> list[str]:
    """What is wrong with the stored ladder (nothing: ``[]``): the places are 1..n and the
    order they give is the replay of the history; events are numbered 1, 2, 3…"""
    problems = []
    places = list(ladder.entries.order_by("place").values_list("place", flat=True))
    if places != list(range(1, len(places) + 1)):
        problems.append(f"places are not 1..{len(places)}: {places}")
    numbers = list(ladder.events.order_by("sequence").values_list("sequence", flat=True))
    if numbers != list(range(1, len(numbers) + 1)):
        problems.append("the events are not numbered 1, 2, 3…")
    try:
        replayed = rules.replay(history_of(ladder))
    except rules.LadderError as error:
        problems.append(f"the history does not replay: {error}")
    else:
        if replayed != order_of(ladder):
            problems.append(f"order {order_of(ladder)} is not the replay {replayed}")
    return problems


def ladder_group(ladder_id: int) -> str:
    """The channel-layer group of every page showing one ladder."""
    return f"ladder.{ladder_id}"


# -- inside --------------------------------------------------------------------------------

def _format_words(error: rules.LadderError) -> str:
    """The formats' refusal in the reader's words (the pure formats speak only English, and a
    code this table lacks keeps the formats' sentence)."""
    words = {
        "not_on_ladder": _("Both players must be on the ladder."),
        "challenge_self": _("You cannot challenge yourself."),
        "challenge_below": _("You may challenge only players above you."),
        "challenge_out_of_reach": _("That player is out of your reach."),
        "already_on_ladder": _("You are already on this ladder."),
    }
    return words.get(error.code) or _(error.template) % error.params


def _record(ladder: Ladder, event: rules.Event, now: datetime,
            challenge: LadderChallenge | None = None) -> tuple[int, ...]:
    """Apply ``event`` by the formats' rules, store it as the next event and write the new
    places (the ladder's row is locked)."""
    before = order_of(ladder)
    try:
        # The ladder's players are player ids: the formats hand back what they were given.
        after = tuple(cast(int, player) for player in rules.apply(before, event))
    except rules.LadderError as error:
        raise LadderError(error.code, _format_words(error)) from None
    sequence = ladder.events.count() + 1
    row = LadderEvent(ladder=ladder, sequence=sequence, at=now, challenge=challenge)
    if isinstance(event, rules.Decided):
        row.kind, row.player_id = LadderEventKind.DECIDED, cast(int, event.challenger)
        row.defender_id, row.winner_id = cast(int, event.defender), cast(int, event.winner)
        row.forfeit = event.forfeit
    else:
        player = cast(int, event.player)
        row.player_id = player
        if isinstance(event, rules.Joined):
            row.kind = LadderEventKind.JOINED
            LadderEntry.objects.create(ladder=ladder, player_id=player, place=len(after),
                                       joined_at=now, active_at=now)
        elif isinstance(event, rules.Left):
            row.kind = LadderEventKind.LEFT
            LadderEntry.objects.filter(ladder=ladder, player_id=player).delete()
        else:
            row.kind, row.places = LadderEventKind.DROPPED, event.places
    row.save()
    old = {player: place for place, player in enumerate(before, start=1)}
    for place, player in enumerate(after, start=1):
        if old.get(player) != place:
            LadderEntry.objects.filter(ladder=ladder, player_id=player).update(place=place)
    _changed(ladder.pk)
    return after


def _decide(ladder: Ladder, challenge: LadderChallenge, *, winner_id: int, forfeit: bool,
            now: datetime, status: str) -> None:
    _record(ladder, rules.Decided(challenge.challenger_id, challenge.defender_id, winner_id,
                                  forfeit), now, challenge)
    challenge.status, challenge.decided_at = status, now
    challenge.winner_id, challenge.forfeit = winner_id, forfeit
    challenge.save(update_fields=["status", "decided_at", "winner", "forfeit"])
    LadderEntry.objects.filter(
        ladder=ladder, player__in=(challenge.challenger_id, challenge.defender_id)).update(
        active_at=now)


def _drop_inactive(ladder_id: int, now: datetime) -> int:
    """Drop the ladder's inactive players (one drop per inactivity period each)."""
    dropped = 0
    with transaction.atomic():
        ladder = _locked(ladder_id)
        period = timedelta(days=ladder.inactivity_days)
        busy: set[int] = set()
        for a, b in ladder.challenges.filter(status__in=PENDING).values_list("challenger",
                                                                             "defender"):
            busy.update((a, b))
        # Top first, so that each drop is applied to the order the previous ones left.
        for entry in list(ladder.entries.order_by("place")):
            since = max(entry.active_at, entry.dropped_at or entry.active_at)
            if entry.player_id in busy or now - since < period:
                continue
            order = order_of(ladder)
            places = min(ladder.drop_places, len(order) - order.index(entry.player_id) - 1)
            if places > 0:
                _record(ladder, rules.Dropped(entry.player_id, places), now)
                dropped += 1
            # The period is counted even at the bottom: the next drop is a period later.
            LadderEntry.objects.filter(pk=entry.pk).update(dropped_at=now)
    return dropped


def _challenge(ladder: Ladder, challenger: Player, defender_id: int,
               now: datetime) -> LadderChallenge:
    """A new challenge (the rules checked by the caller, the ladder's row locked); a bot
    defender accepts it at once (see the module)."""
    challenge = LadderChallenge.objects.create(
        ladder=ladder, challenger=challenger, defender_id=defender_id, created_at=now,
        accept_by=now + timedelta(days=ladder.accept_days))
    challenge = LadderChallenge.objects.select_related("challenger", "defender").get(
        pk=challenge.pk)
    if challenge.defender.is_bot:
        _accept(ladder, challenge, now)
    _changed(ladder.pk)
    return challenge


def _accept(ladder: Ladder, challenge: LadderChallenge, now: datetime) -> None:
    """The challenge is accepted: a table with the ladder's rules, both seated; the match is
    to be finished within ``play_days``."""
    challenge.match = start_match(
        name=f"{ladder.name} · {challenge.challenger} – {challenge.defender}",
        match_length=ladder.match_length, rules=ladder.rule_values(),
        a=challenge.challenger, b=challenge.defender)
    challenge.status, challenge.accepted_at = ChallengeStatus.ACCEPTED, now
    challenge.play_by = now + timedelta(days=ladder.play_days)
    challenge.save(update_fields=["match", "status", "accepted_at", "play_by"])
    _changed(ladder.pk)


def _bots_challenge(ladder_id: int, now: datetime) -> int:
    """Every free bot, top first, challenges the highest free player within its reach (the
    rule of the module's docstring); how many challenged."""
    if not LadderEntry.objects.filter(ladder_id=ladder_id, player__is_bot=True).exists():
        return 0  # most ladders: no lock taken
    made = 0
    with transaction.atomic():
        ladder = _locked(ladder_id)
        entries = list(ladder.entries.select_related("player").order_by("place"))
        busy: set[int] = set()
        for a, b in ladder.challenges.filter(status__in=PENDING).values_list("challenger",
                                                                             "defender"):
            busy.update((a, b))
        order = tuple(entry.player_id for entry in entries)
        for index, entry in enumerate(entries):
            if not entry.player.is_bot or entry.player_id in busy:
                continue
            defender = next((other for other in order[max(0, index - ladder.reach):index]
                             if other not in busy), None)
            if defender is None:
                continue
            _challenge(ladder, entry.player, defender, now)
            busy.update((entry.player_id, defender))
            made += 1
    return made


def _late_player(challenge: LadderChallenge, match: Match) -> Player:
    """Who forfeits a match not finished in time: the player on turn, or the defender if
    the first roll has not been made."""
    seat = load_state(match).player_to_act
    if seat is None:
        return challenge.defender
    return match.player0 if seat == 0 else match.player1


def _pending_of(ladder: Ladder, player_id: int) -> LadderChallenge | None:
    return ladder.challenges.filter(status__in=PENDING).filter(
        Q(challenger_id=player_id) | Q(defender_id=player_id)).first()


def _require_open_for(challenge: LadderChallenge, player: Player, now: datetime) -> None:
    if challenge.defender_id != player.pk:
        raise LadderError("not_defender", _("Only the challenged player may answer a challenge."))
    if challenge.status != ChallengeStatus.OPEN or challenge.accept_by <= now:
        raise LadderError("challenge_closed", _("This challenge is no longer open."))


def _require_player(player: Player | None) -> Player:
    if player is None:
        raise LadderError("not_authenticated", _("Log in to play on the ladder."))
    return player


def _locked(ladder_id: int) -> Ladder:
    ladder = Ladder.objects.select_for_update().filter(pk=ladder_id).first()
    if ladder is None:
        raise LadderError("not_found", _("No such ladder."))
    return ladder


def _locked_challenge(challenge_id: int) -> tuple[LadderChallenge, Ladder]:
    """The challenge, read again under its ladder's lock."""
    ladder_id = LadderChallenge.objects.filter(pk=challenge_id).values_list(
        "ladder_id", flat=True).first()
    if ladder_id is None:
        raise LadderError("not_found", _("No such challenge."))
    ladder = _locked(ladder_id)
    challenge = LadderChallenge.objects.select_related("challenger", "defender").get(
        pk=challenge_id)
    return challenge, ladder


def _changed(ladder_id: int) -> None:
    """Tell the ladder's pages, once this transaction commits, that it changed."""
    broadcast_on_commit(ladder_group(ladder_id), {"type": "ladder.changed",
                                                  "ladder_id": ladder_id})
