from django.apps import AppConfig
from django.db.models.signals import pre_save
from django.utils.translation import gettext_lazy as _


class MatchesConfig(AppConfig):
    name = "matches"
    verbose_name = _("Matches")

    def ready(self) -> None:
        # Django's hook for what needs the app registry: the models are loaded only now.
        # The analysis and bot tasks live outside tasks.py; importing them registers them.
        # The receivers connect the layers above the services (analysis, bots) to the
        # signals the services send; the one door refuses a Match saved anywhere else.
        from matches.gnubg import (
            analysis,
            bots,
            tasks,  # noqa: F401
        )
        from matches.models import Match
        from matches.services import change
        from matches.signals import match_changed, match_finished

        match_finished.connect(analysis.on_match_finished,
                               dispatch_uid="matches.gnubg.analysis.on_match_finished")
        match_changed.connect(bots.on_match_changed,
                              dispatch_uid="matches.gnubg.bots.on_match_changed")
        pre_save.connect(change.refuse_saves_outside, sender=Match,
                         dispatch_uid="matches.services.change.refuse_saves_outside")
