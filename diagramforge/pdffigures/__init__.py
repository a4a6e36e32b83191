"""Figures from PDFs: captioned figure regions as SVG (vector) or PNG (raster) records.

``extract_figures(pdf_path, params)`` is the entry point; ``PdfFigureParams`` chooses the
extractor (built-in PyMuPDF + rapid-layout, or pdffigures2 where its JAR exists).
"""

from diagramforge.params import PdfFigureParams
from diagramforge.pdffigures.extract import ExtractorUnavailable, extract_figures
from diagramforge.pdffigures.model import Caption, Extraction, FigureCandidate, PdfReason

__all__ = ["Caption", "Extraction", "ExtractorUnavailable", "FigureCandidate",
           "PdfFigureParams", "PdfReason", "extract_figures"]
