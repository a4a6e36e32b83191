"""Cross-format twins: the same diagram in another language, verified by its real engine.

* :mod:`.gate` — which diagrams get twins: graph-like kinds whose structure graph has edges,
  all between nodes, and explains the text of the source's own drawing;
* :mod:`.compare` — when two structure graphs are the same diagram (node texts, edge count
  and direction);
* :mod:`.writers` — a structure graph (and its layout) written as DOT, Mermaid, TikZ or
  mxGraph;
* :mod:`.methods` — how each target language is reached from each source format (the
  source engine's own SVG export, or a writer) and what each method preserves;
* :mod:`.stage` — the ``twin`` stage: every attempt becomes a verified twin or a ledger row,
  published as the ``translation`` config.
"""
