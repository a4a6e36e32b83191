"""Parameters of figure extraction from PDFs: :class:`PdfFigureParams`, the ``extract.pdf``
section of ``params.yaml``.

Defined in ``diagramforge/params.py`` (which every stage already depends on) and
re-exported here for the extractor and its tests.
"""

from diagramforge.params import DEFAULT_CAPTION_PATTERNS, PdfFigureParams

__all__ = ["DEFAULT_CAPTION_PATTERNS", "PdfFigureParams"]
