"""The top of the site: the ASGI and WSGI entry points, the URL map, ``/healthz`` and the
daphne glue. These are the only ``tavla`` modules that import the apps (matches,
tournaments); everything else in ``tavla`` (the engine, the analysis layer, settings,
queues, the Celery app, Redis) sits below the apps and never imports them."""
