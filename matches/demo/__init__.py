"""The match-play part of the demo club that ``manage.py seed_demo`` builds."""
