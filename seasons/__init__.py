"""Club seasons: what a club runs between its events — arenas, ladders and season leagues.

:mod:`seasons.formats` holds their rules as pure functions (no database, no Django), in the
manner of :mod:`tournaments.formats`: who may be paired or challenged, how results score and
move players, and the standings, each property-tested.
"""
