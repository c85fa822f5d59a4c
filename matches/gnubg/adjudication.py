"""Help for a referee adjudicating an unfinished match: each player's match-winning chances
at the current position (gnubg, cubeful, its match equity table), shown on the form and
recorded with the decision (appended to the reason in the log).

gnubg never runs here: a web process serves requests on threads, where gnubg crashes the
process. Opening the form asks a worker of the analysis queue (the task
``matches.adjudication_chances``, :func:`matches.gnubg.evaluation.adjudication_chances`) for the
figures of the match *at the version the referee sees*; the worker stores its answer in the
cache under the match and that version, and the page polls :func:`figures_status` until it
is there, or says that the worker did not answer in :func:`help_timeout` seconds. Figures
are never shown for another version than the match's current one, and never to a referee
who plays in the match.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from typing import Any, Final

from celery import current_app
from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.core.cache import cache
from django.utils.translation import gettext as _

from matches.models import Match

logger = logging.getLogger(__name__)

#: The Celery task that evaluates (routed to the analysis queue by ``tavla.queues``).
ADJUDICATION_TASK: Final = "matches.adjudication_chances"

#: How long an answer is kept: a match's position at one version never changes, so this
#: only bounds the cache.
ANSWER_SECONDS: Final = 3600

# What the page shows; every status but EVALUATING is final for that version.
READY: Final = "ready"  # the figures are there
EVALUATING: Final = "evaluating"  # asked, no answer yet
TIMED_OUT: Final = "timed_out"  # asked, no answer within the timeout
MOVED_ON: Final = "moved_on"  # the match is at another version than the one asked about
NO_FIGURES: Final = "no_figures"  # the worker answered without figures (money, an error)
WITHHELD: Final = "withheld"  # the referee plays in this match
UNAVAILABLE: Final = "unavailable"  # the match is over, or the queue could not be reached


def help_timeout() -> float:
    """Seconds the page waits for the worker (``TAVLA_ADJUDICATION_HELP_SECONDS``, 20)."""
    return float(getattr(settings, "TAVLA_ADJUDICATION_HELP_SECONDS", 20))


@dataclass(frozen=True)
class Figures:
    """What the page shows for one match at one version."""

    status: str
    version: int
    chances: tuple[float, float] | None = None
    detail: str = ""

    def as_json(self) -> dict[str, Any]:
        return {
            "status": self.status,
            "version": self.version,
            "chances": None if self.chances is None else
            [round(100 * chance, 1) for chance in self.chances],
            "detail": self.detail,
        }

    @property
    def percentages(self) -> list[str] | None:
        return None if self.chances is None else [f"{100 * c:.1f}" for c in self.chances]


def _key(kind: str, match: Match, version: int) -> str:
    # The dice commitment is unique to the match: ids repeat after a database is reset or
    # replaced under the same Redis, and another match's figures must never show.
    return f"tavla:adjudication:{kind}:{match.pk}:{match.dice_commitment[:16]}:{version}"


def plays_in(match: Match, user: AbstractBaseUser | AnonymousUser) -> bool:
    """True when ``user`` is one of the match's two players."""
    user_id = getattr(user, "pk", None)
    return user_id is not None and user_id in (match.player0.user_id, match.player1.user_id)


def store_answer(*, match: Match, version: int, chances: tuple[float, float] | None,
                 detail: str = "") -> None:
    """Record the worker's answer for ``match`` at ``version`` (the worker calls this;
    ``detail`` says why there are no figures, for the log)."""
    cache.set(_key("answer", match, version),
              {"chances": None if chances is None else list(chances), "detail": detail},
              ANSWER_SECONDS)


def _ask(match: Match, version: int) -> bool:
    """Queue the evaluation; False if the broker could not be reached."""
    try:
        current_app.send_task(ADJUDICATION_TASK, args=(match.pk, version),
                              expires=help_timeout())
    except Exception:  # noqa: BLE001 - without figures the referee can still adjudicate
        logger.exception("could not ask for the adjudication figures of match %s", match.pk)
        cache.delete(_key("asked", match, version))
        return False
    return True


def figures_status(match: Match, user: AbstractBaseUser | AnonymousUser, version: int,
                   *, ask: bool) -> Figures:
    """What the referee ``user`` sees of the figures of ``match`` at ``version``.

    With ``ask`` (the form is opened), the worker is asked unless it already answered or was
    asked less than :func:`help_timeout` seconds ago; without it (the page polling), nothing
    is queued. Never evaluates here.
    """
    if plays_in(match, user):
        return Figures(WITHHELD, version, detail=_(
            "You play in this match: no evaluation of it is shown to you."))
    if match.is_finished:
        return Figures(UNAVAILABLE, version, detail=_("The match is over"))
    if match.version != version:
        return Figures(MOVED_ON, version, detail=_(
            "The match has moved on (version %(now)s, this page shows %(seen)s): reload the "
            "page for the figures of the current position.")
            % {"now": match.version, "seen": version})
    answer: dict[str, Any] | None = cache.get(_key("answer", match, version))
    if answer is not None:
        chances = answer["chances"]
        if chances is None:
            return Figures(NO_FIGURES, version, detail=_(
                "GNU Backgammon gives no figures for this position (a money session has no "
                "match to win, or the evaluation failed)."))
        return Figures(READY, version, (float(chances[0]), float(chances[1])))
    now = time.time()
    asked_key = _key("asked", match, version)
    asked_at = cache.get(asked_key)
    timed_out = asked_at is not None and now - float(asked_at) >= help_timeout()
    if ask and (asked_at is None or timed_out):
        # add() is atomic: of several pages opened at once, one queues the evaluation.
        fresh = cache.add(asked_key, now, ANSWER_SECONDS)
        if timed_out:
            cache.set(asked_key, now, ANSWER_SECONDS)
        if (fresh or timed_out) and not _ask(match, version):
            return Figures(UNAVAILABLE, version, detail=_(
                "The analysis queue could not be reached: adjudicate without the figures."))
        return Figures(EVALUATING, version)
    if asked_at is None:
        return Figures(UNAVAILABLE, version, detail=_(
            "These figures were not asked for: reload the page to ask."))
    if timed_out:
        return Figures(TIMED_OUT, version, detail=_(
            "No analysis worker answered within %(seconds)s s: adjudicate without the "
            "figures, or reload the page to ask again.") % {"seconds": f"{help_timeout():g}"})
    return Figures(EVALUATING, version)


def figures_for_decision(match: Match, user: AbstractBaseUser | AnonymousUser,
                         version: int) -> tuple[float, float] | None:
    """The figures the worker gave for ``match`` at ``version``, to be recorded with the
    decision; None if it has not answered, the referee plays in the match, or the match is at
    another version."""
    figures = figures_status(match, user, version, ask=False)
    return figures.chances if figures.status == READY else None


def chances_text(match: Match, chances: tuple[float, float]) -> str:
    return (f"gnubg match-winning chances: {match.player0.display_name} "
            f"{100 * chances[0]:.1f}%, {match.player1.display_name} {100 * chances[1]:.1f}%")


def with_chances(reason: str, match: Match, chances: tuple[float, float] | None) -> str:
    """The referee's reason with the chances they saw, as the log records it."""
    if chances is None:
        return reason
    return f"{reason} [{chances_text(match, chances)}]"
