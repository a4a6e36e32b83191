"""Structure graphs of diagrams (nodes, edges) and reference scorers against them.

Every format is reduced to one :class:`~.model.Graph` (the record's ``graph`` column), so a
single set of scorers serves them all:

* :mod:`.mxgraph` — exact, from draw.io cells (:func:`~.mxgraph.mxgraph_graph`);
* :mod:`.svg` — DiagramEval's geometric rules (:func:`~.svg.svg_graph`), on the shared
  core :mod:`.geometry`;
* :mod:`.tikz` — TikZ source (:func:`~.tikz.tikz_source_graph`), compiled-page geometry
  (:func:`~.tikz.pdf_graph`) and their merge (:func:`~.tikz.tikz_graph`);
* :mod:`.score` — SciFlow node/edge P/R/F1, DiagramEval node and path alignment, VCG-Bench
  execution success (two files of any of these formats: ``tools/graph_files.py``);
* :mod:`.record` — the record's ``graph`` and ``graph_*`` columns, filled by the render stage
  through each format handler's ``to_graph`` (raster figures: OCR text nodes,
  ``formats/raster/handler.py``), null with a counted reason when a graph cannot be built.

Tunable numbers live in :class:`~.settings.GraphParams` (extraction) and
:class:`~.settings.GraphScoreParams` (the scorers).

This ``__init__`` imports nothing: ``config`` imports :mod:`.settings` with every other
section, and loading params must not load networkx.
"""
