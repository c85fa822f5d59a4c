"""Tavla: a backgammon club server.

Importing ``tavla`` (or the pure rules engine ``tavla.engine``) loads neither Django nor
Celery. The Celery app lives in ``tavla.celery``; Django loads it when it starts
(``tavla.apps.TavlaConfig.ready``) so ``@shared_task`` binds to it, and ``celery -A tavla``
finds it by module name.
"""
