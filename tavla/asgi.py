"""ASGI entry point: HTTP through Django, WebSockets through Channels.

Served by daphne (``daphne tavla.asgi:application``). Live-play consumers add their routes
to ``websocket_urlpatterns``.
"""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tavla.settings")

# Set up Django before importing anything that touches models (consumers, auth middleware).
django_asgi_app = get_asgi_application()

from channels.auth import AuthMiddlewareStack  # noqa: E402
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from channels.security.websocket import AllowedHostsOriginValidator  # noqa: E402
from django.conf import settings  # noqa: E402
from django.contrib.staticfiles.handlers import ASGIStaticFilesHandler  # noqa: E402
from django.urls import URLPattern, URLResolver  # noqa: E402

from matches import routing as matches_routing  # noqa: E402
from matches.auth import TokenAuthMiddleware  # noqa: E402
from tavla import daphne_protocol  # noqa: E402

websocket_urlpatterns: list[URLPattern | URLResolver] = [
    *matches_routing.websocket_urlpatterns,
]

from tournaments import routing as tournaments_routing  # noqa: E402

websocket_urlpatterns += tournaments_routing.websocket_urlpatterns

# Like `runserver`, serve static files from the app itself while developing; in production
# the proxy serves `collectstatic`'s output.
http_app = ASGIStaticFilesHandler(django_asgi_app) if settings.DEBUG else django_asgi_app

# Close codes as RFC 6455 has them, and flooders cut off where daphne reads their frames.
daphne_protocol.install()

application = ProtocolTypeRouter(
    {
        "http": http_app,
        "websocket": AllowedHostsOriginValidator(
            AuthMiddlewareStack(TokenAuthMiddleware(URLRouter(websocket_urlpatterns)))
        ),
    }
)
