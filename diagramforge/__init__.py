"""diagramforge: build and curate datasets of diagrams as code (TikZ, draw.io/mxGraph, SVG,
Graphviz DOT, Mermaid)."""

import warnings

# ScanCode's typecode warns, whenever it first loads libmagic, that it uses the system's —
# Debian's libmagic1, which ./dev installs on purpose: a warning a user can do nothing about.
warnings.filterwarnings("ignore", message="System libmagic found", category=UserWarning)

__version__ = "0.1.0"
