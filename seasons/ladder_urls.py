"""Ladder pages, mounted at ``/ladders/``."""

from django.urls import path

from seasons import ladder_views as views

app_name = "ladders"

urlpatterns = [
    path("", views.ladder_list, name="list"),
    path("new/", views.ladder_new, name="new"),
    path("<int:pk>/", views.ladder_detail, name="ladder"),
    path("<int:pk>/live/", views.ladder_live, name="live"),
    path("<int:pk>/join/", views.ladder_join, name="join"),
    path("<int:pk>/leave/", views.ladder_leave, name="leave"),
    path("<int:pk>/challenge/", views.ladder_challenge, name="challenge"),
    path("<int:pk>/bots/", views.ladder_add_bots, name="add_bots"),
    path("challenges/<int:pk>/accept/", views.challenge_answer, {"answer": "accept"},
         name="accept"),
    path("challenges/<int:pk>/decline/", views.challenge_answer, {"answer": "decline"},
         name="decline"),
]
