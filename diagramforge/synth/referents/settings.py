"""The ``referents`` section of ``params.yaml``: the numbers edit instructions are written
and read back with, shared by the edit and synth stages (both above this package).
"""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from diagramforge.params import Section


class ReferentParams(Section):
    """How edit instructions name the elements they act on (``diagramforge.synth.referents``):
    the numbers descriptions are written *and* read back with, shared by the ``edit``
    stage (which samples only targets it can name) and ``synth`` (which checks that a
    reworded instruction still names them)."""

    position_margin: Annotated[float, Field(gt=0, le=1)] = 0.25
    """Share of a typical node's smaller side within which two elements are level: an
    extreme, an ordinal or a nearest neighbour must win by more, rows by twice it."""
    max_ordinal: Annotated[int, Field(ge=1, le=10)] = 4
    """The furthest a reader is asked to count along a row or column ("the fourth box from
    the left")."""
    max_line_ordinal: Annotated[int, Field(ge=1, le=10)] = 2
    """The furthest a reader is asked to count rows or columns from an edge ("the second
    row from the bottom")."""
    max_label_chars: Annotated[int, Field(ge=8)] = 40
    """A longer text is quoted by its first words and an ellipsis."""
    colour_margin: Annotated[float, Field(ge=0)] = 3.0
    """CIEDE2000 distance: a colour is named only when no colour of another family is
    within this of its nearest name."""
    anchors_per_side: Annotated[int, Field(ge=0)] = 2
    """Labelled neighbours tried on each side of an element ("below 'Artist:'")."""
