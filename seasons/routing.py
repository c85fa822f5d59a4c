"""WebSocket routes of arena and ladder pages (wired into ``tavla.site.asgi``)."""

from django.urls import path

from seasons.consumers import ArenaConsumer, LadderConsumer

websocket_urlpatterns = [
    path("ws/arenas/<int:arena_id>/", ArenaConsumer.as_asgi()),
    path("ws/ladders/<int:ladder_id>/", LadderConsumer.as_asgi()),
]
