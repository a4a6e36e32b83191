"""How the dataset card says Mermaid is drawn (the ``card`` capability)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from diagramforge.formats.settings import RenderSettings


def rendering(render: RenderSettings) -> str:  # noqa: ARG001 - the same for every setting
    return "Mermaid by Mermaid's own library in headless Chromium"
