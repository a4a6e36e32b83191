"""Cross-format twins: the same diagram in another language, verified by its real engine.

* :mod:`.gate` — which diagrams get twins: graph-like kinds whose structure graph has edges,
  all between nodes, and explains the text of the source's own drawing;
* :mod:`.compare` — when two structure graphs are the same diagram (node texts, edge count
  and direction);
* :mod:`.make` — each diagram's attempts, one per target format with a twin capability
  (``formats/<name>/twin.py``: a writer from the structure graph, or — SVG — the source
  engine's own drawing; what each keeps), rendered by the target's engine and verified;
* :mod:`.readable` — whether a verified twin can be read at its published size;
* :mod:`.stage` — the ``twin`` stage: every attempt becomes a verified twin or a ledger row,
  published as the ``translation`` config.
"""
