"""The referees' tools inside the admin: replay, adjudicate, void and verify
(:mod:`matches.referee.views`), the adjudication figures, stored analyses and the fair-play
review. The model admins themselves stay in ``matches/admin.py``, where Django finds them."""
