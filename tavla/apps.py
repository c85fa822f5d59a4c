from django.apps import AppConfig


class TavlaConfig(AppConfig):
    """The project itself as an app: its management commands, tasks and templates."""

    name = "tavla"
    verbose_name = "Tavla"

    def ready(self) -> None:
        # Bind @shared_task to Tavla's Celery app in every process that runs Django
        # (web, worker, beat, management commands), not to Celery's default app.
        from tavla.celery import app  # noqa: F401
