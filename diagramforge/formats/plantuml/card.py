"""How the dataset card says PlantUML is drawn (the ``card`` capability): PlantUML itself,
offline, in its own safe mode and the engines' sandbox."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from diagramforge.formats.settings import RenderSettings


def rendering(render: RenderSettings) -> str:  # noqa: ARG001 - the same for every setting
    return ("PlantUML by PlantUML itself in a sandboxed JVM (its safe mode on, no include "
            "outside its standard library, offline)")
