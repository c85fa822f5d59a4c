"""The rules of arenas, ladders and season leagues as pure functions (no database, no Django).

- :mod:`seasons.formats.arena`: free players paired at once, nearest in score and never with
  their last opponent while another is free; points with a streak bonus; the leaderboard.
- :mod:`seasons.formats.ladder`: challenges up the ladder, the winner takes the place,
  inactivity drops, and a history that replays to the order.
- :mod:`seasons.formats.league`: the standings of a division's round robin and the promotion
  and relegation between seasons.
"""
