"""The REST API's URLs, mounted at ``/api/`` by ``tavla.site.urls``.

``/api/schema/`` (OpenAPI 3) is served by ``tavla.site.urls``; the browsable docs are here.
"""

from csp.decorators import csp_update
from django.urls import path
from drf_spectacular.views import SpectacularRedocView, SpectacularSwaggerSplitView
from rest_framework.routers import SimpleRouter

from matches.rest.analysis import MatchAnalysisView
from matches.rest.analysis_board import (
    AnalysisBoardView,
    AnalysisRequestView,
    DrillAnswerView,
    HintView,
    PracticeView,
)
from matches.rest.bots import BotMatchView
from matches.rest.social import (
    ChallengeAcceptView,
    ChallengeDeclineView,
    ChallengeDetailView,
    ChallengeListView,
    FollowDetailView,
    FollowListView,
    OnlineView,
    SeekDetailView,
    SeekListView,
)
from matches.rest.views import MatchViewSet, PlayerViewSet, TableViewSet, TokenView

router = SimpleRouter()
router.register("players", PlayerViewSet, basename="api-player")
router.register("tables", TableViewSet, basename="api-table")
router.register("matches", MatchViewSet, basename="api-match")

urlpatterns = [
    path("token/", TokenView.as_view(), name="api-token"),
    path("bot-matches/", BotMatchView.as_view(), name="api-bot-matches"),
    path("matches/<int:pk>/analysis/", MatchAnalysisView.as_view(), name="api-match-analysis"),
    path("matches/<int:pk>/hint/", HintView.as_view(), name="api-match-hint"),
    path("analysis/board/", AnalysisBoardView.as_view(), name="api-analysis-board"),
    path("analysis/requests/<int:pk>/", AnalysisRequestView.as_view(),
         name="api-analysis-request"),
    path("seeks/", SeekListView.as_view(), name="api-seeks"),
    path("seeks/<int:pk>/", SeekDetailView.as_view(), name="api-seek"),
    path("challenges/", ChallengeListView.as_view(), name="api-challenges"),
    path("challenges/<int:pk>/", ChallengeDetailView.as_view(), name="api-challenge"),
    path("challenges/<int:pk>/accept/", ChallengeAcceptView.as_view(),
         name="api-challenge-accept"),
    path("challenges/<int:pk>/decline/", ChallengeDeclineView.as_view(),
         name="api-challenge-decline"),
    path("follows/", FollowListView.as_view(), name="api-follows"),
    path("follows/<int:pk>/", FollowDetailView.as_view(), name="api-follow"),
    path("online/", OnlineView.as_view(), name="api-online"),
    path("practice/", PracticeView.as_view(), name="api-practice"),
    path("practice/<int:pk>/answer/", DrillAnswerView.as_view(), name="api-practice-answer"),
    # The split view serves its start-up script as a file of its own: no inline script.
    path(
        "docs/", SpectacularSwaggerSplitView.as_view(url_name="api-schema"), name="api-docs"
    ),
    # ReDoc styles itself with inline styles and a worker from a blob: this page only.
    path("redoc/", csp_update({"style-src": ["'unsafe-inline'"], "worker-src": ["blob:"]})(
        SpectacularRedocView.as_view(url_name="api-schema")), name="api-redoc"),
    *router.urls,
]
