"""Tournaments, entries, rounds and pairings (to come)."""
