"""Direct challenges: one player invites a named other to a game on given terms.

The challenged player's open pages get ``challenge.received`` at once; they accept
(:func:`challenge_accept`: a public table reserved for the two opens with both seated and the
match started, and both get ``challenge.accepted`` with it) or decline
(:func:`challenge_decline`: the challenger gets ``challenge.declined``). The challenger may
withdraw (:func:`challenge_cancel`: ``challenge.cancelled``). A challenge not answered within
``TAVLA_CHALLENGE_SECONDS`` expires. Each answer locks the challenge's row, so an accept and a
cancel (or two accepts) at the same moment are taken one after the other: one wins, the other
is told ``challenge_closed``.

Refused, with nothing changed: an unknown player, oneself, a bot, a player who blocked the
challenger (or whom the challenger blocked), a second open challenge to the same player,
more than ``TAVLA_CHALLENGES_PER_HOUR`` an hour.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from matches.errors import ServiceError
from matches.models import Challenge, ChallengeStatus, ChatBlock, Player
from matches.services import broadcast
from matches.services.log import _require_player
from matches.services.seeks import (
    game_table,
    player_brief,
    retry_on_deadlock,
    table_url,
    withdraw_open_seeks,
)
from matches.validation import GameTermsInput


def challenge_seconds() -> int:
    return int(getattr(settings, "TAVLA_CHALLENGE_SECONDS", 120))


def challenge_data(challenge: Challenge) -> dict[str, Any]:
    return {
        "id": challenge.pk, "challenger": player_brief(challenge.challenger),
        "challenged": player_brief(challenge.challenged),
        "match_length": challenge.match_length, "clock_preset": challenge.clock_preset,
        "rated": challenge.rated, "status": _status(challenge, timezone.now()),
        "created_at": challenge.created_at.isoformat(),
        "expires_at": challenge.expires_at.isoformat(),
        "table_id": challenge.table_id,
        "table_url": table_url(challenge.table_id) if challenge.table_id else None,
    }


def _status(challenge: Challenge, now: datetime) -> str:
    if challenge.status == ChallengeStatus.OPEN and challenge.expires_at <= now:
        return str(ChallengeStatus.EXPIRED)
    return str(challenge.status)


def find_player(*, player_id: int | None = None, username: str | None = None) -> Player:
    """The player of that id, or of that user name (or display name, any case). Raises
    ``not_found``."""
    found = None
    if player_id is not None:
        found = Player.objects.filter(pk=player_id).first()
    elif username:
        name = username.strip()
        found = (Player.objects.filter(user__username__iexact=name).first()
                 or Player.objects.filter(display_name__iexact=name).order_by("pk").first())
    if found is None:
        raise ServiceError("not_found", _("No player of that name."))
    return found


def challenge_send(*, challenger: Player | None, challenged: Player,
                   terms: GameTermsInput) -> Challenge:
    """Challenge ``challenged`` to a game on ``terms``. Raises :class:`ServiceError`:
    ``not_authenticated``, ``invalid_option`` (oneself, a bot), ``forbidden`` (a block
    between the two), ``challenge_exists``, ``too_many_challenges``."""
    challenger = _require_player(challenger, _("Log in to challenge a player."))
    if challenged.pk == challenger.pk:
        raise ServiceError("invalid_option", _("You cannot challenge yourself."), field="player")
    if challenged.is_bot or challenger.is_bot:
        raise ServiceError("invalid_option", _("Bots take no challenges: play the bot from the "
                           "lobby."), field="player")
    if ChatBlock.objects.filter(Q(blocker=challenged, blocked=challenger)
                                | Q(blocker=challenger, blocked=challenged)).exists():
        raise ServiceError("forbidden", _("This player cannot be challenged by you."))
    now = timezone.now()
    with transaction.atomic():
        # The challenger's row first: their challenges are counted one after the other.
        Player.objects.select_for_update().filter(pk=challenger.pk).first()
        if Challenge.objects.filter(challenger=challenger, challenged=challenged,
                                    status=ChallengeStatus.OPEN, expires_at__gt=now).exists():
            raise ServiceError("challenge_exists",
                               _("You have already challenged this player: wait for the answer."))
        hourly = int(getattr(settings, "TAVLA_CHALLENGES_PER_HOUR", 30))
        recent = Challenge.objects.filter(challenger=challenger,
                                          created_at__gte=now - timedelta(hours=1)).count()
        if hourly and recent >= hourly:
            raise ServiceError("too_many_challenges",
                               ngettext("You sent %(recent)s challenge in the last hour, the most "
                                        "allowed: wait a while.",
                                        "You sent %(recent)s challenges in the last hour, the most "
                                        "allowed: wait a while.", recent) % {"recent": recent})
        challenge = Challenge.objects.create(
            challenger=challenger, challenged=challenged, match_length=terms.match_length,
            clock_preset=terms.clock_preset, rated=terms.rated,
            expires_at=now + timedelta(seconds=challenge_seconds()))
        broadcast.tell_player_on_commit(challenged.pk, {
            "type": "challenge.received", "challenge": challenge_data(challenge)})
        return challenge


def _locked(challenge_id: int, player: Player) -> Challenge:
    """The challenge, locked, if ``player`` is one of its two players (else ``not_found``)."""
    challenge = (Challenge.objects.select_for_update()
                 .filter(Q(challenger=player) | Q(challenged=player), pk=challenge_id).first())
    if challenge is None:
        raise ServiceError("not_found", _("You have no such challenge."))
    # The players, read apart: a lock on a join would lock their rows too.
    challenge.challenger = Player.objects.get(pk=challenge.challenger_id)
    challenge.challenged = Player.objects.get(pk=challenge.challenged_id)
    if _status(challenge, timezone.now()) != ChallengeStatus.OPEN:
        raise ServiceError("challenge_closed", _("This challenge is no longer open."))
    return challenge


def _close(challenge: Challenge, status: str, tell: int, kind: str) -> Challenge:
    challenge.status = status
    challenge.save(update_fields=["status", "table"])
    broadcast.tell_player_on_commit(tell, {"type": kind, "challenge": challenge_data(challenge)})
    return challenge


def challenge_accept(*, challenge_id: int, player: Player | None) -> Challenge:
    """The challenged player accepts: the table opens with both seated and the match
    started; both players' pages get ``challenge.accepted``. Raises ``not_authenticated``,
    ``not_found``, ``forbidden`` (the challenger), ``challenge_closed``."""
    player = _require_player(player, _("Log in first."))
    return retry_on_deadlock(lambda: _accept(challenge_id, player))


def _accept(challenge_id: int, player: Player) -> Challenge:
    with transaction.atomic():
        challenge = _locked(challenge_id, player)
        if challenge.challenged_id != player.pk:
            raise ServiceError("forbidden", _("Only the challenged player accepts a challenge."))
        terms = GameTermsInput(challenge.match_length, challenge.clock_preset, challenge.rated)
        challenge.table = game_table(challenge.challenger, challenge.challenged, terms)
        withdraw_open_seeks([challenge.challenger_id, challenge.challenged_id])
        _close(challenge, ChallengeStatus.ACCEPTED, challenge.challenger_id, "challenge.accepted")
        broadcast.tell_player_on_commit(challenge.challenged_id, {
            "type": "challenge.accepted", "challenge": challenge_data(challenge)})
        return challenge


def challenge_decline(*, challenge_id: int, player: Player | None) -> Challenge:
    """The challenged player declines; the challenger's pages get ``challenge.declined``."""
    player = _require_player(player, _("Log in first."))
    with transaction.atomic():
        challenge = _locked(challenge_id, player)
        if challenge.challenged_id != player.pk:
            raise ServiceError("forbidden", _("Only the challenged player declines a challenge: "
                               "withdraw your own instead."))
        return _close(challenge, ChallengeStatus.DECLINED, challenge.challenger_id,
                      "challenge.declined")


def challenge_cancel(*, challenge_id: int, player: Player | None) -> Challenge:
    """The challenger withdraws; the challenged player's pages get ``challenge.cancelled``."""
    player = _require_player(player, _("Log in first."))
    with transaction.atomic():
        challenge = _locked(challenge_id, player)
        if challenge.challenger_id != player.pk:
            raise ServiceError("forbidden", _("Only the challenger withdraws a challenge: "
                               "decline it instead."))
        return _close(challenge, ChallengeStatus.CANCELLED, challenge.challenged_id,
                      "challenge.cancelled")


def challenges_of(player: Player) -> dict[str, list[dict[str, Any]]]:
    """The player's open challenges: ``incoming`` and ``outgoing``, newest first."""
    now = timezone.now()
    rows = (Challenge.objects.filter(Q(challenger=player) | Q(challenged=player),
                                     status=ChallengeStatus.OPEN, expires_at__gt=now)
            .select_related("challenger", "challenged").order_by("-created_at", "-pk")[:100])
    incoming = [challenge_data(c) for c in rows if c.challenged_id == player.pk]
    outgoing = [challenge_data(c) for c in rows if c.challenger_id == player.pk]
    return {"incoming": incoming, "outgoing": outgoing}


def challenges_expire(*, now: datetime | None = None) -> int:
    """Mark the open challenges past their time expired; how many."""
    moment = timezone.now() if now is None else now
    return Challenge.objects.filter(status=ChallengeStatus.OPEN, expires_at__lte=moment).update(
        status=ChallengeStatus.EXPIRED)
