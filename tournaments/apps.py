from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class TournamentsConfig(AppConfig):
    name = "tournaments"
    verbose_name = _("Tournaments")

    def ready(self) -> None:
        # When a match ends, its result flows into the tournament it belongs to.
        from matches.models import Match
        from matches.signals import match_finished
        from tournaments.services import on_match_finished

        match_finished.connect(on_match_finished, sender=Match,
                               dispatch_uid="tournaments.on_match_finished")

        # A pairing's table has no rematch: the tournament decides who plays next.
        from matches.signals import rematch_requested
        from tournaments.selectors import refuse_rematch

        rematch_requested.connect(refuse_rematch, dispatch_uid="tournaments.refuse_rematch")

        # Players learn of their pairings at once; a player sitting down shows on the bracket.
        from django.db.models.signals import post_save

        from matches.models import Table
        from tournaments.models import Pairing
        from tournaments.notices import on_pairing_saved, on_table_saved

        post_save.connect(on_pairing_saved, sender=Pairing,
                          dispatch_uid="tournaments.notices.pairing")
        post_save.connect(on_table_saved, sender=Table, dispatch_uid="tournaments.notices.table")
