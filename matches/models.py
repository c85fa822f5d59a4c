"""Players, tables, matches, games and their event log (to come)."""
