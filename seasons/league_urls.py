"""League pages, mounted at ``/leagues/``."""

from django.urls import path

from seasons import ladder_views as views

app_name = "leagues"

urlpatterns = [
    path("", views.league_list, name="list"),
    path("new/", views.league_new, name="new"),
    path("<int:pk>/", views.league_detail, name="league"),
    path("<int:pk>/enrol/", views.league_enrol, name="enrol"),
    path("<int:pk>/withdraw/", views.league_withdraw, name="withdraw"),
    path("<int:pk>/start/", views.league_start, name="start"),
]
