"""Players and their standing: FIBS ratings (pure arithmetic), the rating graph and what a
player's page shows."""
