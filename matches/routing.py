"""WebSocket routes of live play (wired into ``tavla.asgi``)."""

from django.urls import path

from matches.consumers import LobbyConsumer, TableConsumer

websocket_urlpatterns = [
    path("ws/tables/<int:table_id>/", TableConsumer.as_asgi()),
    path("ws/lobby/", LobbyConsumer.as_asgi()),
]
