"""diagramforge: build and curate datasets of diagrams as code (TikZ, mxGraph, SVG)."""

__version__ = "0.1.0"
