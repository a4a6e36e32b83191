"""How the dataset card says TikZ is drawn (the ``card`` capability): the engines the render
settings try, and the sandbox they run in."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from diagramforge.formats.settings import RenderSettings


def rendering(render: RenderSettings) -> str:
    return (f"TikZ with {' / '.join(render.tikz.engines)} (the engine its preamble needs, else "
            "tried in that order; no shell escape, paranoid file access; the engine of each "
            "record is its `render_engine`)")
