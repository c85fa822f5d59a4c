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
