"""Figures from PDFs: captioned figure regions as SVG (vector) or PNG (raster) records.

``extract_figures(pdf_path, params)`` (:mod:`.extract`) is the entry point;
``PdfFigureParams`` (:mod:`.settings`) chooses the extractor (built-in PyMuPDF +
rapid-layout, or pdffigures2 where its JAR exists); ``PdfReason`` and the result types are
in :mod:`.model`.

This ``__init__`` imports nothing: ``config`` imports :mod:`.settings` with every other
section, and loading params must not load PyMuPDF.
"""
