"""The ``edit`` section of ``params.yaml``: verified atomic edits composed by difficulty.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from diagramforge.params import Section


class EditTierParams(Section):
    per_diagram: Annotated[int, Field(ge=0)] = 1
    """Composed edits attempted per diagram at this difficulty."""
    min_ops: Annotated[int, Field(ge=1)] = 1
    max_ops: Annotated[int, Field(ge=1)] = 2


class EditParams(Section):
    """The ``edit`` stage: verified atomic edits composed by difficulty (VCG-Bench: Easy
    1–2 operations, Medium 3–4, Hard 5+)."""

    seed: int = 1234
    easy: EditTierParams = EditTierParams(per_diagram=2, min_ops=1, max_ops=2)
    medium: EditTierParams = EditTierParams(per_diagram=1, min_ops=3, max_ops=4)
    hard: EditTierParams = EditTierParams(per_diagram=1, min_ops=5, max_ops=6)
    bbox_tolerance: Annotated[float, Field(ge=0)] = 1.0
    """Graph units a node box may differ from the expected one (plus 2 %)."""
    min_changed_pixels: Annotated[int, Field(ge=1)] = 1
    """A target render must differ from the source render in at least this many pixels."""
