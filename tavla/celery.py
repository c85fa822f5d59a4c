"""The Celery app: broker and schedule come from Django settings (``CELERY_*``). Its workers
leave a heartbeat for /healthz (``tavla.worker_heartbeats``, connected on import here)."""

import os

from celery import Celery

import tavla.worker_heartbeats  # noqa: F401  (connects the workers' signal handlers)

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tavla.settings")

app = Celery("tavla")
app.config_from_object("django.conf:settings", namespace="CELERY")
# Finds `<app>.tasks` in every installed app, `tavla.tasks` (the heartbeat) included.
app.autodiscover_tasks()
