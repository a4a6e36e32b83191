"""The ``extract`` section of ``params.yaml``: archive caps, TikZ and SVG extraction (the
format handlers' own settings, ``formats/settings.py``), figures from PDFs
(``builders/pdffigures/settings.py``) and how many repository files make one unit of work.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from diagramforge.builders.pdffigures.settings import PdfFigureParams
from diagramforge.formats.settings import ArchiveParams, SvgExtractParams, TikzExtractParams
from diagramforge.params import Section


class ExtractParams(Section):
    archive: ArchiveParams = ArchiveParams()
    tikz: TikzExtractParams = TikzExtractParams()
    svg: SvgExtractParams = SvgExtractParams()
    pdf: PdfFigureParams = PdfFigureParams()
    files_per_unit: Annotated[int, Field(ge=1)] = 16
    """Repository files extracted per unit of work (one worker round trip); a unit that
    times out or kills its worker is ledgered whole, so keep it small."""
