"""ASGI entry point: HTTP through Django, WebSockets through Channels.

Served by daphne (``daphne tavla.site.asgi:application``). Live-play consumers add their routes
to ``websocket_urlpatterns``.
"""

import gc
import os

from django.core.asgi import get_asgi_application

from tavla.analysis import gnubg_guard

# Before anything else loads: this process serves requests on threads, where gnubg crashes
# the whole process, so importing the evaluator from here on fails loudly instead.
gnubg_guard.declare_web_process()

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tavla.settings")

# Set up Django before importing anything that touches models (consumers, auth middleware).
django_asgi_app = get_asgi_application()

from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from channels.security.websocket import AllowedHostsOriginValidator  # noqa: E402
from django.conf import settings  # noqa: E402
from django.contrib.staticfiles.handlers import ASGIStaticFilesHandler  # noqa: E402
from django.urls import URLPattern, URLResolver  # noqa: E402

from matches.live import routing as matches_routing  # noqa: E402
from matches.live.auth import socket_auth_stack  # noqa: E402
from tavla.site import daphne_protocol  # noqa: E402
from tavla.site.proxies import TrustedProxyMiddleware, trusted_networks  # noqa: E402
from tavla.site.request_ids import RequestIdMiddleware  # noqa: E402

websocket_urlpatterns: list[URLPattern | URLResolver] = [
    *matches_routing.websocket_urlpatterns,
]

from seasons import routing as seasons_routing  # noqa: E402
from tournaments import routing as tournaments_routing  # noqa: E402

websocket_urlpatterns += tournaments_routing.websocket_urlpatterns
websocket_urlpatterns += seasons_routing.websocket_urlpatterns

# Like `runserver`, serve static files from the app itself while developing; in production
# the proxy serves `collectstatic`'s output.
http_app = ASGIStaticFilesHandler(django_asgi_app) if settings.DEBUG else django_asgi_app

# Close codes as RFC 6455 has them, and flooders cut off where daphne reads their frames.
daphne_protocol.install()

# The client's address from X-Forwarded-For only where a trusted proxy sent it, for HTTP and
# sockets alike (tavla/site/proxies.py); outside it, each request's and socket's id for the
# logs (tavla/site/request_ids.py).
_trusted = trusted_networks(settings.TAVLA_TRUSTED_PROXIES)
application = RequestIdMiddleware(TrustedProxyMiddleware(ProtocolTypeRouter(
    {
        "http": http_app,
        "websocket": AllowedHostsOriginValidator(
            socket_auth_stack(URLRouter(websocket_urlpatterns))
        ),
    }
), _trusted), _trusted)


# The collector. What the app loaded to start (Django, the engine) lives as long as the
# process: frozen, it leaves the generations the collector walks. And the youngest
# generation is collected every 7,000 allocations, not 700: a push allocates thousands of
# small objects. Measured with benchmarks/live_load.py (300 tables, 1 s think): 5.2 -> 4.5 ms
# of web CPU per action, 219 -> 243 actions/s. TAVLA_GC_TUNING=0 keeps Python's defaults.
if os.environ.get("TAVLA_GC_TUNING", "1") == "1":
    gc.freeze()
    gc.set_threshold(7000, 20, 20)
