"""Tournament pages, mounted at ``/tournaments/``."""

from django.urls import path

from tournaments import views

app_name = "tournaments"

urlpatterns = [
    path("", views.tournament_list, name="list"),
    path("<int:pk>/", views.tournament_detail, name="detail"),
    path("<int:pk>/live/", views.tournament_live, name="live"),
    path("<int:pk>/register/", views.register, name="register"),
    path("<int:pk>/withdraw/", views.withdraw, name="withdraw"),
    path("<int:pk>/check-in/", views.check_in, name="check_in"),
    path("<int:pk>/pairings/<int:pairing_id>/report/", views.report, name="report"),
    path("<int:pk>/pairings/<int:pairing_id>/confirm/", views.confirm, name="confirm"),
]
