"""``manage.py embedded_redis start|stop|status``: the Redis that ``make run`` starts."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from tavla.embedded_redis import (
    embedded_redis_port,
    ensure_embedded_redis,
    ping,
    stop_embedded_redis,
)


class Command(BaseCommand):
    help = "Start, stop or check the embedded Redis (used when REDIS_URL is not set)."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("action", choices=["start", "stop", "status"])

    def handle(self, *args: Any, **options: Any) -> None:
        if not settings.REDIS_IS_EMBEDDED:
            raise CommandError(f"REDIS_URL is set ({settings.REDIS_URL}); nothing embedded.")
        port = embedded_redis_port()
        action = options["action"]
        if action == "start":
            self.stdout.write(f"embedded Redis answers at {ensure_embedded_redis(port)}")
        elif action == "stop":
            stopped = stop_embedded_redis(port)
            self.stdout.write(f"embedded Redis on port {port} "
                              f"{'stopped' if stopped else 'was not running'}")
        else:
            state = "running" if ping(port) else "not running"
            self.stdout.write(f"embedded Redis on port {port}: {state}")
            if state != "running":
                raise SystemExit(1)
