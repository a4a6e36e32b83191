"""Measurements of a run: statistics, timing, and the facts of the host."""
