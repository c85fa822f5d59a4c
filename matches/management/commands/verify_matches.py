"""``manage.py verify_matches``: check every match of the database, as after a restore.

For every match, its event log is replayed through the engine and compared with the stored
state (:func:`matches.services.match_verify`, what the referees' "verify" runs); for every
finished match, its dice are recomputed from the revealed seed and both client seeds and
compared with its ``.mat`` record (:func:`tavla.engine.dice_audit.check_audit`, what
``python -m tavla.engine verify-dice`` runs on the published audit).

Prints a line per problem and a summary; exits 0 when everything verifies and 1 when some
match or some finished match's dice do not. Matches with scripted dice (development and
tests only) cannot prove their dice fair: they are counted apart and fail only with
``--strict``. ``docs/backups.md`` runs it after every restore.
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError

from matches import services
from matches.audit import dice_audit, mat_export
from matches.models import Match, MatchStatus
from tavla.engine.dice_audit import Verdict, check_audit


class Command(BaseCommand):
    help = ("Replay every match's log against its stored state and check the dice of every "
            "finished match; exit 1 if anything does not verify.")

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--strict", action="store_true",
                            help="count dice that cannot be proved fair (scripted) as failures")

    def handle(self, *args: Any, **options: Any) -> None:
        logs_ok = logs_bad = dice_ok = dice_bad = dice_unproved = 0
        # The ids in one list, not .iterator(): no server-side cursor, so it also runs
        # through PgBouncer in transaction mode.
        for match_id in list(Match.objects.order_by("pk").values_list("pk", flat=True)):
            result = services.match_verify(match_id=match_id)
            if result.ok:
                logs_ok += 1
            else:
                logs_bad += 1
                self.stdout.write(f"match {match_id}: the log does not verify: {result.detail}")
            match = Match.objects.get(pk=match_id)
            if match.status != MatchStatus.FINISHED:
                continue
            check = check_audit(dice_audit(match), mat_text=mat_export(match))
            if check.verdict is Verdict.VERIFIED:
                dice_ok += 1
            elif check.verdict is Verdict.NOT_VERIFIABLE:
                dice_unproved += 1
                self.stdout.write(f"match {match_id}: dice not provable: "
                                  + "; ".join(check.unverifiable))
            else:
                dice_bad += 1
                self.stdout.write(f"match {match_id}: the dice do not verify: "
                                  + "; ".join(check.problems[:3]))
        self.stdout.write(
            f"{logs_ok + logs_bad} matches: {logs_ok} logs verify, {logs_bad} do not; "
            f"{dice_ok + dice_bad + dice_unproved} finished: {dice_ok} dice verify, "
            f"{dice_bad} do not, {dice_unproved} not provable (scripted)")
        if logs_bad or dice_bad or (options["strict"] and dice_unproved):
            raise CommandError("some matches do not verify", returncode=1)
