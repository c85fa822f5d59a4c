"""The REST API of match play, mounted at ``/api/`` (:mod:`matches.rest.urls`): views,
serializers, the one error shape, and a finished match's analysis."""
