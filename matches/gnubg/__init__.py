"""Where matches meet GNU Backgammon: the analysis of finished matches, bots at the table,
the "play the bot" page and the Celery tasks of the ``analysis`` and ``bots`` queues.

gnubg itself is reached through :mod:`tavla.analysis`; these modules run in the workers
built for it, except the pages, which only queue work."""
