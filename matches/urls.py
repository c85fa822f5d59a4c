"""Pages of live play (included at the site root by ``tavla.site.urls``)."""

from django.urls import path

from matches import views
from matches.gnubg import board_views, bot_views

urlpatterns = [
    path("lobby/", views.lobby, name="lobby"),
    path("lobby/bot/", bot_views.play_bot, name="play-bot"),
    path("tables/new/", views.table_new, name="table-new"),
    path("tables/<int:table_id>/", views.table_page, name="table"),
    path("tables/<int:table_id>/sit/", views.table_sit, name="table-sit"),
    path("tables/<int:table_id>/stand/", views.table_stand, name="table-stand"),
    path("tables/<int:table_id>/invite/", views.table_invite, name="table-invite"),
    path("matches/<int:match_id>/", views.match_review, name="match-review"),
    path("analysis/board/", board_views.analysis_board, name="analysis-board"),
    path("practice/", board_views.practice, name="practice"),
    path("accounts/signup/", views.signup, name="signup"),
    path("players/me/", views.my_page, name="player-me"),
    path("turn/", views.your_turn, name="your-turn"),
    path("vacation/", views.vacation_page, name="vacation"),
    path("mail/unsubscribe/<str:token>/", views.turn_mail_unsubscribe,
         name="turn-mail-unsubscribe"),
    path("players/<int:player_id>/", views.player_page, name="player"),
    path("players/<int:player_id>/matches/", views.player_matches, name="player-matches"),
    path("players/<int:player_id>/follow/", views.player_follow, name="player-follow"),
]
