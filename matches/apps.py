from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class MatchesConfig(AppConfig):
    name = "matches"
    verbose_name = _("Matches")

    def ready(self) -> None:
        # The analysis and bot tasks live outside tasks.py; importing them registers them.
        from matches.gnubg import analysis  # noqa: F401
        from matches.gnubg import tasks as analysis_tasks  # noqa: F401
        from matches.signals import match_finished

        match_finished.connect(analysis.on_match_finished,
                               dispatch_uid="matches.gnubg.analysis.on_match_finished")
