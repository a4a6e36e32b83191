"""Referring expressions for edit targets: how an instruction names the element it acts on
so that a person looking at the picture can find it, and the resolver that checks it.

:mod:`.scene` (what is visible), :mod:`.formats` (scenes of mxGraph, SVG and TikZ code),
:mod:`.colours` (colour names), :mod:`.grammar` (the description language: write and
read), :mod:`.resolve` (what a description means in a scene), :mod:`.describe` (the
cheapest unique description of an element), :mod:`.naming` (an edit's targets, named
per step, and the check of an instruction's text), :mod:`.steps` (edits as plain steps).
"""
