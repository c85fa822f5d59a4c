"""Tournament pages, mounted at ``/tournaments/``."""

from django.urls import path

from tournaments import desk_views, publish_views, room_views, views

app_name = "tournaments"

urlpatterns = [
    path("", views.tournament_list, name="list"),
    path("rules/", views.rules_for_directors, name="rules"),
    path("<int:pk>/", views.tournament_detail, name="detail"),
    path("<int:pk>/live/", views.tournament_live, name="live"),
    path("<int:pk>/register/", views.register, name="register"),
    path("<int:pk>/withdraw/", views.withdraw, name="withdraw"),
    path("<int:pk>/check-in/", views.check_in, name="check_in"),
    path("<int:pk>/pairings/<int:pairing_id>/report/", views.report, name="report"),
    path("<int:pk>/pairings/<int:pairing_id>/confirm/", views.confirm, name="confirm"),
    # The director's desk
    path("desk/", desk_views.desk_list, name="desk_list"),
    path("desk/create/", desk_views.desk_create, name="desk_create"),
    path("desk/players/", desk_views.players_page, name="desk_players"),
    path("desk/players/rating/", desk_views.players_rating, name="desk_players_rating"),
    path("desk/players.csv", desk_views.players_csv, name="desk_players_csv"),
    path("<int:pk>/desk/", desk_views.desk_page, name="desk"),
    path("<int:pk>/desk/<slug:name>/", desk_views.desk_act, name="desk_act"),
    # Running the room
    path("<int:pk>/draw-sheet/", room_views.draw_sheet, name="draw_sheet"),
    path("<int:pk>/score-cards/", room_views.score_cards, name="score_cards"),
    path("<int:pk>/projector/", room_views.projector, name="projector"),
    # Publishing
    path("<int:pk>/results/", publish_views.results_page, name="results"),
    path("<int:pk>/standings.csv", publish_views.standings_csv, name="standings_csv"),
    path("<int:pk>/results.csv", publish_views.results_csv, name="results_csv"),
    path("<int:pk>/matches.zip", publish_views.match_files, name="match_files"),
    path("<int:pk>/treasurer.csv", publish_views.treasurer_csv, name="treasurer_csv"),
]
