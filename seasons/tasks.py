"""Celery tasks of club seasons (the beat's schedule is in tavla/settings.py)."""

from __future__ import annotations

from celery import shared_task

from seasons import services


@shared_task(name="seasons.arena_sweep", ignore_result=True)
def arena_sweep() -> dict[str, int]:
    return services.arena_sweep()


@shared_task(name="seasons.ladder_sweep", ignore_result=True)
def ladder_sweep() -> dict[str, int]:
    return services.ladder_sweep()
