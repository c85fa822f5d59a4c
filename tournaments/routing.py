"""WebSocket routes of tournament pages (wired into ``tavla.site.asgi``)."""

from django.urls import path

from tournaments.consumers import NoticeConsumer, TournamentConsumer

websocket_urlpatterns = [
    path("ws/notices/", NoticeConsumer.as_asgi()),
    path("ws/tournaments/<int:tournament_id>/", TournamentConsumer.as_asgi()),
]
