"""Tavla's URL map."""

from django.contrib import admin
from django.urls import include, path
from django.views.generic import TemplateView
from drf_spectacular.views import SpectacularAPIView

from tavla.health import healthz

urlpatterns = [
    path("", TemplateView.as_view(template_name="home.html"), name="home"),
    path("healthz", healthz, name="healthz"),
    path("admin/", admin.site.urls),
    path("tournaments/", include("tournaments.urls")),
    path("api/tournaments/", include("tournaments.api_urls")),
    path("", include("matches.urls")),
    path("accounts/", include("django.contrib.auth.urls")),
    path("i18n/", include("django.conf.urls.i18n")),
    path("api/schema/", SpectacularAPIView.as_view(), name="api-schema"),
    path("api/", include("matches.api_urls")),
]
