"""League pages, mounted at ``/leagues/``."""

from django.urls import path

from seasons import ladder_views as views

app_name = "leagues"

urlpatterns = [
    path("", views.league_list, name="list"),
]
