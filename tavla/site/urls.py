"""Tavla's URL map."""

from django.contrib import admin
from django.templatetags.static import static
from django.urls import include, path, re_path
from django.views.generic import RedirectView
from drf_spectacular.views import SpectacularAPIView

from seasons import views as seasons_views
from tavla.api_http import api_not_found
from tavla.site.health import healthz, livez
from tavla.site.metrics_view import metrics


class FaviconView(RedirectView):
    """``/favicon.ico`` → the site's icon among the static files (resolved per request)."""

    def get_redirect_url(self, *args: object, **kwargs: object) -> str:
        return static("favicon.svg")


urlpatterns = [
    path("", seasons_views.home, name="home"),
    path("healthz", healthz, name="healthz"),
    path("livez", livez, name="livez"),
    path("metrics", metrics, name="metrics"),
    # Browsers ask for /favicon.ico on pages that name no icon (the admin, plain responses).
    path("favicon.ico", FaviconView.as_view(), name="favicon"),
    path("admin/", admin.site.urls),
    path("tournaments/", include("tournaments.urls")),
    path("arenas/", include("seasons.urls")),
    path("ladders/", include("seasons.ladder_urls")),
    path("leagues/", include("seasons.league_urls")),
    path("api/tournaments/", include("tournaments.api_urls")),
    path("", include("matches.urls")),
    path("accounts/", include("django.contrib.auth.urls")),
    path("i18n/", include("django.conf.urls.i18n")),
    path("api/schema/", SpectacularAPIView.as_view(), name="api-schema"),
    path("api/", include("matches.rest.urls")),
    # Anything else under /api/ is the API's JSON 404, not a web page.
    re_path(r"^api/", api_not_found),
]
