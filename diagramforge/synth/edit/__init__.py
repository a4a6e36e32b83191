"""Verified atomic edits (VCG-Bench's fourteen operations) for every diagram format.

Each format's edits live in its folder (``formats/<name>/edit.py``, the contract and what
each operation does to the structure graph in :mod:`diagramforge.formats.edits`); here
:mod:`.sampler` composes them by difficulty, verifying each step, and :mod:`.stage` is the
``edit`` DVC stage.
"""
