"""Filters: type every diagram, keep what passes the filters, split without leakage."""
