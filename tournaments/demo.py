"""The tournament part of the demo club (``manage.py seed_demo``).

:func:`seed_demo_tournament` creates "Demo Club Cup", a single-elimination tournament with
registration open and the demo players entered, directed by the demo admin. Log in to the
admin as ``admin``, select it under Tournaments and run the "Start" action; the demo players
(password ``tavla-demo``) find their tables on the tournament page, and the bracket follows
every result live. Running it again changes nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from django.contrib.auth import get_user_model

from matches.services import player_for_user
from tournaments import services
from tournaments.models import Entry, SeedingMethod, Tournament, TournamentStatus

Report = Callable[[str], None]

DEMO_TOURNAMENT = "Demo Club Cup"


def seed_demo_tournament(report: Report, *, players: Sequence[str] = ("alice", "bob", "carol",
                                                                      "dave"),
                         director: str = "admin") -> Tournament:
    """Create the demo tournament (once) and enter every demo player that exists."""
    users = get_user_model().objects
    tournament = Tournament.objects.filter(name=DEMO_TOURNAMENT).first()
    if tournament is None:
        tournament = Tournament.objects.create(
            name=DEMO_TOURNAMENT,
            description="A knockout for the demo club: 1-point semi-finals, a 3-point final.",
            director=users.filter(username=director).first(),
            format="single_elimination",
            seeding=SeedingMethod.RANDOM,
            match_lengths=[1, 3],
            no_show_minutes=30,
            is_rated=False,
        )
        services.tournament_open_registration(tournament_id=tournament.pk)
        tournament.refresh_from_db()  # the service changed the status on its own copy
        report(f"created tournament {DEMO_TOURNAMENT}")
    if tournament.status != TournamentStatus.REGISTRATION:
        return tournament
    for user in users.filter(username__in=players).order_by("username"):
        player = player_for_user(user)
        if not Entry.objects.filter(tournament=tournament, player=player).exists():
            services.entry_register(tournament_id=tournament.pk, player=player)
            report(f"entered {user.get_username()} in {DEMO_TOURNAMENT}")
    return tournament
