"""WSGI entry point (HTTP only; live play needs ASGI: ``tavla.site.asgi``)."""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tavla.settings")

application = get_wsgi_application()
