"""Readers of a diagram notation's text, below every layer that reads diagrams.

They parse, check and normalise source text and nothing else — no engine runs, no file or
address is touched — and import only :mod:`diagramforge.store.records`: :mod:`.latex` (TeX
comments, balanced groups, root detection, flattening), :mod:`.declarations` (markup
declarations every format refuses), :mod:`.mxgraph` (draw.io containers: decode, validate,
normalise).  The structure-graph layer (``graphs/``) reads diagrams through them, and the
format handlers (``formats/``) build on both, so the layers only look down.
"""
