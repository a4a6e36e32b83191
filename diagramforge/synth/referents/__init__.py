"""Referring expressions for edit targets: how an instruction names the element it acts on
so that a person looking at the picture can find it, and the resolver that checks it.

:mod:`diagramforge.formats.scenes` (what is visible) built by each format's ``scene``
capability (``formats/<name>/scene.py``), :mod:`diagramforge.formats.colours` (colour
names), :mod:`.grammar` (the description language: write and
read), :mod:`.resolve` (what a description means in a scene), :mod:`.describe` (the
cheapest unique description of an element), :mod:`.naming` (an edit's targets, named
per step, and the check of an instruction's text), :mod:`.steps` (edits as plain steps).
"""
