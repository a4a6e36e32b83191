"""The ``render`` section of ``params.yaml``: one sub-section per renderer, each defined where
the format handlers that read it are (``formats/settings.py``).
"""

from __future__ import annotations

from diagramforge.formats.settings import (
    MxGraphRenderParams,
    RasterParams,
    SvgRenderParams,
    TikzRenderParams,
)
from diagramforge.params import Section


class RenderParams(Section):
    tikz: TikzRenderParams = TikzRenderParams()
    mxgraph: MxGraphRenderParams = MxGraphRenderParams()
    svg: SvgRenderParams = SvgRenderParams()
    raster: RasterParams = RasterParams()
