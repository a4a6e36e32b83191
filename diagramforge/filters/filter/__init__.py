"""Filters: each module is one filter, a function of one record → keep or (reject, reason)."""
