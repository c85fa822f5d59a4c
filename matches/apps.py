from django.apps import AppConfig
from django.db.models.signals import pre_save
from django.utils.translation import gettext_lazy as _


class MatchesConfig(AppConfig):
    name = "matches"
    verbose_name = _("Matches")

    def ready(self) -> None:
        # The analysis and bot tasks live outside tasks.py; importing them registers them.
        from matches import analysis, analysis_tasks, bots  # noqa: F401
        from matches.models import Match
        from matches.services import change
        from matches.signals import match_changed, match_finished

        match_finished.connect(analysis.on_match_finished,
                               dispatch_uid="matches.analysis.on_match_finished")
        pre_save.connect(change.refuse_saves_outside, sender=Match,
                         dispatch_uid="matches.services.change.refuse_saves_outside")
        match_changed.connect(bots.on_match_changed, dispatch_uid="matches.bots.on_match_changed")
