from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class SeasonsConfig(AppConfig):
    name = "seasons"
    verbose_name = _("Club seasons")

    def ready(self) -> None:
        # An arena's finished match scores at once, and its players are free for the next.
        from matches.models import Match
        from matches.signals import match_finished
        from seasons.services import on_match_finished

        match_finished.connect(on_match_finished, sender=Match,
                               dispatch_uid="seasons.on_match_finished")
