from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class SeasonsConfig(AppConfig):
    name = "seasons"
    verbose_name = _("Club seasons")

    def ready(self) -> None:
        # An arena's finished match scores at once, and its players are free for the next;
        # a ladder's decides its challenge.
        from matches.models import Match
        from matches.signals import match_finished
        from seasons.services import on_ladder_match_finished, on_match_finished

        match_finished.connect(on_match_finished, sender=Match,
                               dispatch_uid="seasons.on_match_finished")
        match_finished.connect(on_ladder_match_finished, sender=Match,
                               dispatch_uid="seasons.on_ladder_match_finished")
