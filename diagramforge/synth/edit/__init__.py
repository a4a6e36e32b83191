"""Verified atomic edits (VCG-Bench's fourteen operations) for every diagram format.

One module per format (:mod:`.mxgraph`, :mod:`.svg`, :mod:`.tikz`) applies edits and
proposes applicable ones; :mod:`.base` says what each operation does to the structure graph;
:mod:`.verify` checks a target against that; :mod:`.sampler` composes them by difficulty;
:mod:`.stage` is the ``edit`` DVC stage.
"""
