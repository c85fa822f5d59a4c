"""The Celery app: broker and schedule come from Django settings (``CELERY_*``)."""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tavla.settings")

app = Celery("tavla")
app.config_from_object("django.conf:settings", namespace="CELERY")
# Finds `<app>.tasks` in every installed app, `tavla.tasks` (the heartbeat) included.
app.autodiscover_tasks()
