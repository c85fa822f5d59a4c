"""Creating a tournament from a template: the shapes clubs run, ready for registration.

A template fixes the format, its options and the match lengths by round; the director gives
the name and may change the few things that vary from one evening to the next (match
lengths, the number of Swiss rounds, over the board, a field limit, the entry fee and how
the pool is paid). A division is created the same way, naming its event and who is eligible,
so a director sets up a rating-divided event without the admin. The new tournament is a draft
directed by its creator; the rest of its money, its side pools and a division's limits are
changed afterwards from the desk (:mod:`tournaments.services.configuration`); the table
template stays the model's default, configurable in the admin.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from django.db import transaction
from django.utils.functional import Promise
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from tournaments.models import (
    Eligibility,
    FormatName,
    SeedingMethod,
    Tournament,
    TournamentStatus,
)
from tournaments.money import MoneyError, parse_payout_table
from tournaments.services.common import (
    TournamentError,
    check_configuration,
    log_action,
    require_director,
)

CREATE_PERMISSION = "tournaments.add_tournament"


@dataclass(frozen=True)
class Template:
    key: str
    label: str | Promise
    format: str
    options: dict[str, Any] = field(default_factory=dict)
    match_lengths: tuple[int, ...] = (5,)


TEMPLATES: dict[str, Template] = {t.key: t for t in (
    Template("swiss_5", _("Swiss, 5 rounds"), FormatName.SWISS, {"rounds": 5}, (5,)),
    Template("swiss_cut_8", _("Swiss, 5 rounds, then a top-8 knockout"), FormatName.SWISS_CUT,
             {"rounds": 5, "cut": 8}, (5,)),
    Template("swiss_cut_8_consolation",
             _("Swiss, 5 rounds, then a top-8 knockout with a consolation"),
             FormatName.SWISS_CUT, {"rounds": 5, "cut": 8, "consolation_rounds": 1}, (5,)),
    Template("single_elimination", _("Single elimination"), FormatName.SINGLE_ELIMINATION,
             {}, (5, 5, 7)),
    Template("single_elimination_consolation", _("Single elimination with consolation"),
             FormatName.SINGLE_ELIMINATION, {"consolation": True, "third_place": True},
             (5, 5, 7)),
    Template("double_elimination", _("Double elimination"), FormatName.DOUBLE_ELIMINATION,
             {"bracket_reset": True}, (5, 5, 7)),
    Template("round_robin", _("Round robin"), FormatName.ROUND_ROBIN, {}, (5,)),
    Template("progressive_consolation", _("Progressive consolation"),
             FormatName.PROGRESSIVE_CONSOLATION, {"entry_rounds": 2}, (5, 5, 7)),
)}


def can_create(user: Any) -> bool:
    """Who may create tournaments: a user with ``tournaments.add_tournament`` (a superuser,
    or a staff member given it)."""
    return bool(user is not None and getattr(user, "is_authenticated", False)
                and user.is_active and user.has_perm(CREATE_PERMISSION))


@transaction.atomic
def tournament_create_from_template(
    *, template: str, name: str, actor: Any, description: str = "",
    match_lengths: list[int] | None = None, rounds: int | None = None,
    over_the_board: bool = False, max_entries: int | None = None,
    entry_fee: Decimal | None = None, seeding: str = SeedingMethod.RATING,
    auto_pair: bool = True, payout_table: str | None = None,
    consolation_percent: Decimal | None = None, event: int | None = None,
    eligibility: str = Eligibility.OPEN, min_rating: float | None = None,
    max_rating: float | None = None, division_order: int = 0,
    min_experience: int | None = None, max_experience: int | None = None,
    correspondence_days: int | None = None,
) -> Tournament:
    """A draft tournament shaped by ``template`` (:data:`TEMPLATES`), directed by ``actor``.

    Raises :class:`TournamentError`: ``forbidden`` (not allowed to create), ``bad_request``
    (no name, no such template, seeding, a negative fee, a bad payout table or share, an
    event that is not a draft, registration or check-in event of one's own, eligibility
    without an event, rating limits out of order), ``bad_option`` (``rounds`` for a format
    without rounds, or out of range) or ``bad_match_lengths``; nothing is created then.
    ``event`` makes the new tournament a division of that event. ``correspondence_days``
    (1 to 7) plays its tables by correspondence, that many days per move, instead of the
    live clock (``bad_option`` otherwise).
    """
    if not can_create(actor):
        raise TournamentError("forbidden", gettext("Only a director may create tournaments."))
    chosen = TEMPLATES.get(template)
    if chosen is None:
        raise TournamentError("bad_request",
                              gettext("There is no template %(template)r.")
                              % {"template": template},
                              field="template")
    name = (name or "").strip()
    if not name or len(name) > 120:
        raise TournamentError("bad_request",
                              gettext("A tournament needs a name of 1 to 120 characters."),
                              field="name")
    if seeding not in SeedingMethod.values or seeding == SeedingMethod.MANUAL:
        raise TournamentError("bad_request", gettext("Seeding is by rating or by a random draw."),
                              field="seeding")
    if entry_fee is not None and entry_fee < 0:
        raise TournamentError("bad_request",
                              gettext("An entry fee is not negative."), field="entry_fee")
    if max_entries is not None and max_entries < 2:
        raise TournamentError("bad_request", gettext("A field limit is at least two players."),
                              field="max_entries")
    parent = division_parent(actor, event, eligibility, min_rating, max_rating,
                             min_experience, max_experience)
    if payout_table is not None:
        try:
            parse_payout_table(payout_table)
        except MoneyError as error:
            raise TournamentError("bad_request", gettext(error.template) % error.params,
                                  field="payout_table") from None
    if consolation_percent is not None and not 0 <= consolation_percent <= 100:
        raise TournamentError("bad_request", gettext("A flight's share is 0 to 100 %."),
                              field="consolation_percent")
    options = dict(chosen.options)
    if rounds is not None:
        if "rounds" not in options:
            raise TournamentError("bad_option", gettext("Only a Swiss has a number of rounds."),
                                  field="rounds")
        if not 1 <= rounds <= 30:
            raise TournamentError("bad_option",
                                  gettext("A Swiss has 1 to 30 rounds."), field="rounds")
        options["rounds"] = rounds
    tournament = Tournament(
        name=name, description=description or "", director=actor, format=chosen.format,
        format_options=options, seeding=seeding, over_the_board=over_the_board,
        max_entries=max_entries, auto_pair=auto_pair,
        match_lengths=list(match_lengths) if match_lengths else list(chosen.match_lengths),
    )
    if correspondence_days is not None:
        tournament.correspondence_days = correspondence_days
        tournament.clock_enabled = True  # the days are the clock's
    if entry_fee is not None:
        tournament.entry_fee = entry_fee
    if payout_table is not None:
        tournament.payout_table = payout_table
    if consolation_percent is not None:
        tournament.consolation_percent = consolation_percent
    if parent is not None:
        tournament.event = parent
        tournament.eligibility = eligibility
        tournament.min_rating, tournament.max_rating = min_rating, max_rating
        tournament.min_experience, tournament.max_experience = min_experience, max_experience
        tournament.division_order = division_order
    check_configuration(tournament)
    tournament.save()
    log_action(tournament, "created", actor=actor, template=template, format=chosen.format,
               options=options, match_lengths=tournament.match_lengths,
               event=event, eligibility=tournament.eligibility)
    return tournament


def division_parent(actor: Any, event: int | None, eligibility: str,
                    min_rating: float | None, max_rating: float | None,
                    min_experience: int | None = None,
                    max_experience: int | None = None) -> Tournament | None:
    """The event a new division belongs to: one the actor directs, itself no division, not
    started yet (a division joins before the start, as players are placed at registration)."""
    limits = (min_rating, max_rating, min_experience, max_experience)
    if event is None:
        if eligibility != Eligibility.OPEN or any(limit is not None for limit in limits):
            raise TournamentError("bad_request",
                                  gettext("Eligibility is for a division: name its event."),
                                  field="event")
        return None
    parent = Tournament.objects.filter(pk=event).first()
    if parent is None:
        raise TournamentError("bad_request", gettext("There is no such event."), field="event")
    require_director(actor, parent)
    if parent.event_id is not None:
        raise TournamentError("bad_request", gettext("A division has no divisions of its own."),
                              field="event")
    if parent.status not in (TournamentStatus.DRAFT, TournamentStatus.REGISTRATION,
                             TournamentStatus.CHECK_IN):
        raise TournamentError("bad_status",
                              gettext("The event has started: its divisions are fixed."))
    if eligibility not in Eligibility.values:
        raise TournamentError("bad_request", gettext("No such eligibility."), field="eligibility")
    if min_rating is not None and max_rating is not None and min_rating >= max_rating:
        raise TournamentError("bad_request", gettext("The minimum rating is below the maximum."),
                              field="max_rating")
    if min_experience is not None and max_experience is not None and (
            min_experience >= max_experience):
        raise TournamentError("bad_request",
                              gettext("The minimum experience is below the maximum."),
                              field="max_experience")
    return parent
