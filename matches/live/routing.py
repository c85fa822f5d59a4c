"""WebSocket routes of live play (wired into ``tavla.site.asgi``)."""

from django.urls import path

from matches.live.consumers import LobbyConsumer, TableConsumer

websocket_urlpatterns = [
    path("ws/tables/<int:table_id>/", TableConsumer.as_asgi()),
    path("ws/lobby/", LobbyConsumer.as_asgi()),
]
