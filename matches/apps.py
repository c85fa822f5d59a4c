from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class MatchesConfig(AppConfig):
    name = "matches"
    verbose_name = _("Matches")

    def ready(self) -> None:
        # Django's hook for what needs the app registry: the models are loaded only now.
        # The analysis and bot tasks live outside tasks.py; importing them registers them.
        # The receivers connect the layers above the services (analysis, bots) to the
        # signals the services send.
        from matches.gnubg import (
            analysis,
            bots,
            tasks,  # noqa: F401
        )
        from matches.signals import bot_to_act, match_finished

        match_finished.connect(analysis.on_match_finished,
                               dispatch_uid="matches.gnubg.analysis.on_match_finished")
        bot_to_act.connect(bots.on_bot_to_act, dispatch_uid="matches.gnubg.bots.on_bot_to_act")
