"""The tournaments REST API, mounted at ``/api/tournaments/`` by ``tavla.site.urls``."""

from rest_framework.routers import SimpleRouter

from tournaments.api import TournamentViewSet

router = SimpleRouter()
router.register("", TournamentViewSet, basename="api-tournament")

urlpatterns = router.urls
