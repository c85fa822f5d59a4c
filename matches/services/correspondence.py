"""Correspondence play: what the one door asks when a turn begins, and the turn's e-mail.

A correspondence table (rule ``correspondence_days``, docs/correspondence.md) plays on the
live clock's machinery: its time control is N days of delay and no reserve, so each time the
game waits for a player (their turn: roll or double, then move; or an answer to a double or
a resignation offer) they have N days, and the deadline sweep flags them exactly once as it
flags a live player. Two things differ, both decided here when the one door
(:func:`matches.services.change.match_change`) hands a correspondence turn to a player:

* a player on vacation (:mod:`matches.services.vacation`) has their new turn's deadline
  moved to the vacation's latest end (:func:`vacation_extension`); coming back earlier gives
  the unused part back;
* the player gets one e-mail for the turn (:func:`notify_on_commit`), sent by a Celery task
  after the change commits, never in the request. The task (:func:`send_turn_mail`) sends
  nothing when the turn is over by then, the player turned the mails off or has no address,
  or a mail for that turn already went (a key in Redis: at most one mail per turn), or the
  player has the table's board open when the task runs (they are looking at it).

This module imports nothing of the door, which imports it.
"""

from __future__ import annotations

import logging
from datetime import datetime
from typing import Final
from urllib.parse import urljoin

from django.conf import settings
from django.core import signing
from django.core.mail import EmailMultiAlternatives
from django.db import transaction
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import translation
from django.utils.translation import gettext as _

from matches.errors import ServiceError
from matches.models import Match, MatchStatus, Player, Vacation
from matches.services import presence
from tavla.celery import app
from tavla.redis_client import redis_client

logger = logging.getLogger(__name__)

NOTIFY_TASK: Final = "matches.notify_turn"
UNSUBSCRIBE_SALT: Final = "tavla.turn-mail.unsubscribe"
# A turn's mail is sent once: the key lives longer than any turn (7 days, a vacation).
SENT_KEY: Final = "tavla:turn-mail:{match}:{player}:{since}"
SENT_KEY_SECONDS: Final = 60 * 86400


def active_vacation(player_id: int, now: datetime) -> Vacation | None:
    """The vacation ``player_id`` is on at ``now``, if any."""
    return (Vacation.objects.filter(player_id=player_id, ended_at__isnull=True,
                                    started_at__lte=now, ends_by__gt=now)
            .order_by("-started_at").first())


def vacation_extension(player_id: int, now: datetime) -> float:
    """Seconds by which a correspondence turn that ``player_id`` begins at ``now`` is
    extended: up to their vacation's latest end (0 when they are not on vacation)."""
    vacation = active_vacation(player_id, now)
    if vacation is None:
        return 0.0
    return max(0.0, (vacation.ends_by - now).total_seconds())


def notify_on_commit(match_id: int, player_id: int, turn_since: datetime) -> None:
    """Queue the turn's e-mail once the current transaction commits (a rolled-back change
    mails nobody). A broker outage loses the mail, never the move."""
    since = turn_since.isoformat()

    def enqueue() -> None:
        try:
            app.signature(NOTIFY_TASK, args=(match_id, player_id, since)).apply_async()
        except Exception:  # noqa: BLE001 - the move stands without its mail
            logger.exception("could not queue the turn mail of match %s", match_id)

    transaction.on_commit(enqueue)


def site_url(path: str) -> str:
    """``path`` as an absolute URL of the site (``TAVLA_SITE_URL``), for mails."""
    return urljoin(str(settings.TAVLA_SITE_URL).rstrip("/") + "/", path.lstrip("/"))


def unsubscribe_token(player: Player) -> str:
    """The signed token of a player's one-click link that turns their turn mails off."""
    return signing.dumps({"player": player.pk}, salt=UNSUBSCRIBE_SALT, compress=True)


def unsubscribe_url(player: Player) -> str:
    return site_url(reverse("turn-mail-unsubscribe", args=[unsubscribe_token(player)]))


def player_for_unsubscribe(token: str) -> Player:
    """The player a one-click link names. Raises :class:`ServiceError` ``bad_token`` for a
    link that was not signed here (or was altered), or names nobody."""
    try:
        data = signing.loads(token, salt=UNSUBSCRIBE_SALT)
    except signing.BadSignature as error:
        raise ServiceError("bad_token", _("This link is not valid.")) from error
    player_id = data.get("player") if isinstance(data, dict) else None
    player = Player.objects.filter(pk=player_id).first() if isinstance(player_id, int) else None
    if player is None:
        raise ServiceError("bad_token", _("This link is not valid."))
    return player


def unsubscribe(token: str) -> Player:
    """Turn off the turn mails of the player the signed ``token`` names (idempotent)."""
    player = player_for_unsubscribe(token)
    Player.objects.filter(pk=player.pk).update(turn_emails=False)
    player.turn_emails = False
    return player


def player_set_turn_emails(*, player: Player | None, on: object) -> Player:
    """Turn ``player``'s turn mails on or off (their page's preference)."""
    if player is None:
        raise ServiceError("not_authenticated", _("Log in first."))
    if not isinstance(on, bool):
        raise ServiceError("bad_request", _("turn_emails is true or false."))
    Player.objects.filter(pk=player.pk).update(turn_emails=on)
    player.turn_emails = on
    return player


def send_turn_mail(*, match_id: int, player_id: int, turn_since: str) -> bool:
    """Mail ``player_id`` that it is their turn in correspondence match ``match_id`` (the
    turn that began at ``turn_since``). Returns True when a mail went. Nothing is sent when
    that turn is over (they already acted: no stale mail), the player opted out, has no
    address, has the table's board open now, or the turn's mail already went."""
    match = (Match.objects.select_related("table", "player0", "player1", "to_act__user")
             .filter(pk=match_id).first())
    if (match is None or match.status != MatchStatus.PLAYING or match.to_act_id != player_id
            or match.turn_since is None or match.turn_since.isoformat() != turn_since
            or not match.table.correspondence_days):
        return False
    player = match.to_act
    assert player is not None
    address = player.user.email
    if not player.turn_emails or not address or player.is_bot:
        return False
    if presence.is_connected(table_id=match.table_id, player_id=player_id):
        return False  # on the page already: the board tells them
    key = SENT_KEY.format(match=match_id, player=player_id, since=turn_since)
    if not redis_client().set(key, "1", nx=True, ex=SENT_KEY_SECONDS):
        return False  # a retried or duplicated task: this turn's mail went
    opponent = match.player1 if match.player0_id == player_id else match.player0
    context = {
        "player": player, "opponent": opponent, "match": match, "deadline": match.deadline,
        "table_url": site_url(reverse("table", args=[match.table_id])),
        "turn_url": site_url(reverse("your-turn")),
        "unsubscribe_url": unsubscribe_url(player),
    }
    with translation.override(settings.LANGUAGE_CODE):
        subject = _("Your turn against %(opponent)s") % {"opponent": opponent.display_name}
        body = render_to_string("matches/mail/your_turn.txt", context)
    message = EmailMultiAlternatives(
        subject=subject, body=body, to=[address],
        headers={  # RFC 8058: mail clients offer the one-click unsubscribe themselves
            "List-Unsubscribe": f"<{context['unsubscribe_url']}>",
            "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
        })
    try:
        message.send()
    except Exception:
        redis_client().delete(key)  # not sent: a retry may send it
        raise
    return True
