"""How the dataset card says SVG is drawn (the ``card`` capability): its sanitiser, then the
engine the render settings name."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from diagramforge.formats.settings import RenderSettings


def rendering(render: RenderSettings) -> str:
    return f"SVG sanitized and drawn with {render.svg.engine}"
