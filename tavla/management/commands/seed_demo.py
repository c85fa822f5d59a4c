"""``manage.py seed_demo``: the demo club that ``make run`` opens with.

Idempotent: running it again creates only what is missing and never changes an existing
user's password. Each part of the club is one small function in ``SEED_STEPS``; later parts
(tables, a tournament) add theirs to the list. Refuses to run with DEBUG off unless forced,
since it creates accounts with published passwords.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractUser, Group
from django.core.management.base import BaseCommand, CommandError
from django.db import transaction

from matches.demo.clock import seed_clock_demo
from matches.demo.tables import seed_match_demo
from tavla.embedded_redis import embedded_redis_port, ensure_embedded_redis
from tournaments.demo import seed_demo_tournament

DEMO_PLAYERS = ("alice", "bob", "carol", "dave")
DEMO_PLAYER_PASSWORD = "tavla-demo"
DEMO_REFEREE = "referee"
DEMO_REFEREE_PASSWORD = "tavla-referee"
DEMO_ADMIN = "admin"
DEMO_ADMIN_PASSWORD = "tavla-admin"
REFEREES_GROUP = "Referees"

# (username, password, role) for everything seed_demo creates; runall prints these.
DEMO_LOGINS: list[tuple[str, str, str]] = [
    *((name, DEMO_PLAYER_PASSWORD, "player") for name in DEMO_PLAYERS),
    (DEMO_REFEREE, DEMO_REFEREE_PASSWORD, "referee (staff)"),
    (DEMO_ADMIN, DEMO_ADMIN_PASSWORD, "administrator"),
]

Report = Callable[[str], None]


def ensure_user(username: str, password: str, *, report: Report, is_staff: bool = False,
                is_superuser: bool = False) -> AbstractUser:
    """Return the user ``username``, creating it with ``password`` if it does not exist."""
    user_model = get_user_model()
    user, created = user_model.objects.get_or_create(
        username=username,
        defaults={"is_staff": is_staff or is_superuser, "is_superuser": is_superuser,
                  "email": f"{username}@tavla.invalid"},
    )
    if created:
        user.set_password(password)
        user.save(update_fields=["password"])
        report(f"created {username}")
    return user


def seed_players(report: Report) -> None:
    for name in DEMO_PLAYERS:
        ensure_user(name, DEMO_PLAYER_PASSWORD, report=report)


def seed_referee(report: Report) -> None:
    referees, _ = Group.objects.get_or_create(name=REFEREES_GROUP)
    referee = ensure_user(DEMO_REFEREE, DEMO_REFEREE_PASSWORD, report=report, is_staff=True)
    referee.groups.add(referees)


def seed_admin(report: Report) -> None:
    ensure_user(DEMO_ADMIN, DEMO_ADMIN_PASSWORD, report=report, is_superuser=True)


SEED_STEPS: list[Callable[[Report], None]] = [seed_players, seed_referee, seed_admin]


def seed_tournament(report: Report) -> None:
    seed_demo_tournament(report)


SEED_STEPS.append(seed_tournament)


def seed_match_play(report: Report) -> None:
    seed_match_demo(report)


SEED_STEPS.append(seed_match_play)


def seed_clock(report: Report) -> None:
    seed_clock_demo(report)


SEED_STEPS.append(seed_clock)


def print_logins(report: Report) -> None:
    report("Demo logins (username / password):")
    for username, password, role in DEMO_LOGINS:
        report(f"  {username:<8} / {password:<14} {role}")


class Command(BaseCommand):
    help = "Create the demo club (players, a referee, an admin). Safe to run again."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--force", action="store_true",
                            help="seed even with DEBUG off (creates known passwords!)")

    def handle(self, *args: Any, **options: Any) -> None:
        if not settings.DEBUG and not options["force"]:
            raise CommandError("seed_demo creates accounts with published passwords; "
                               "it runs only with DEBUG on (or --force).")
        if settings.REDIS_IS_EMBEDDED:
            # Seeding plays the demo's finished match through the services, which broadcast
            # each change after commit: on a first `make run` the embedded Redis must be up
            # before that, or every broadcast prints a connection-refused traceback.
            ensure_embedded_redis(embedded_redis_port())
        with transaction.atomic():
            for step in SEED_STEPS:
                step(self.stdout.write)
        print_logins(self.stdout.write)
