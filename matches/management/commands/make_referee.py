"""``manage.py make_referee USER``: let a user review and adjudicate matches in the admin.

Makes the user staff (the admin lets only staff in) and a member of the "Referees" group
(created by a migration: view every match, table, player and event; adjudicate; edit
nothing). ``--remove`` takes both away again, unless the user is a superuser, whose staff
flag stays. Idempotent.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.core.management.base import BaseCommand, CommandError
from django.db import transaction

REFEREES_GROUP = "Referees"  # created by matches/migrations/0003_referees_group.py


class Command(BaseCommand):
    help = "Make USER a referee (staff, in the Referees group); --remove undoes it."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("username")
        parser.add_argument("--remove", action="store_true",
                            help="stop USER being a referee")

    @transaction.atomic
    def handle(self, *args: Any, **options: Any) -> None:
        username: str = options["username"]
        user_model = get_user_model()
        try:
            user = user_model.objects.select_for_update().get(username=username)
        except user_model.DoesNotExist:
            raise CommandError(f"There is no user {username!r}; create it first "
                               "(manage.py createsuperuser, or sign-up).") from None
        try:
            referees = Group.objects.get(name=REFEREES_GROUP)
        except Group.DoesNotExist:
            raise CommandError(f"The {REFEREES_GROUP!r} group is missing; run "
                               "manage.py migrate.") from None
        if options["remove"]:
            user.groups.remove(referees)
            if not user.is_superuser:
                user.is_staff = False
                user.save(update_fields=["is_staff"])
            self.stdout.write(f"{username} is no longer a referee.")
            return
        user.groups.add(referees)
        if not user.is_staff:
            user.is_staff = True
            user.save(update_fields=["is_staff"])
        self.stdout.write(f"{username} is a referee: they can log in at /admin/ to review "
                          "and adjudicate matches.")
