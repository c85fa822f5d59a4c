"""WebSocket routes of arena pages (wired into ``tavla.site.asgi``)."""

from django.urls import path

from seasons.consumers import ArenaConsumer

websocket_urlpatterns = [
    path("ws/arenas/<int:arena_id>/", ArenaConsumer.as_asgi()),
]
