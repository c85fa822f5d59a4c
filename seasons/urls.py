"""Arena pages, mounted at ``/arenas/``."""

from django.urls import path

from seasons import views

app_name = "seasons"

urlpatterns = [
    path("", views.arena_list, name="arena_list"),
    path("new/", views.arena_new, name="arena_new"),
    path("<int:pk>/", views.arena_detail, name="arena"),
    path("<int:pk>/live/", views.arena_live, name="arena_live"),
    path("<int:pk>/join/", views.arena_join, name="arena_join"),
    path("<int:pk>/pause/", views.arena_pause, name="arena_pause"),
    path("<int:pk>/bots/", views.arena_add_bots, name="arena_add_bots"),
]
