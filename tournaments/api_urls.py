"""The tournaments REST API, mounted at ``/api/tournaments/`` by ``tavla.site.urls``."""

from rest_framework.routers import SimpleRouter

from tournaments.api import TournamentViewSet
from tournaments.desk_api import DeskViewSet

router = SimpleRouter()
# The desk first: its ``templates/`` and ``from-template/`` come before ``<id>/``.
router.register("", DeskViewSet, basename="api-tournament-desk")
router.register("", TournamentViewSet, basename="api-tournament")

urlpatterns = router.urls
