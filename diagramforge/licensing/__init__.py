"""Licence reading: what a repository declares, what its files say, SPDX vocabulary and the
allow-list."""
