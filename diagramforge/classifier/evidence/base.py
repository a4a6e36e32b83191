"""The evidence type every format's rules return (apart from the package's dispatch, which
imports the rule modules: they import this, not the package)."""

from __future__ import annotations

from dataclasses import dataclass

from diagramforge.vocabulary import kind


@dataclass(frozen=True)
class Evidence:
    label: str | None
    """A vocabulary label, or ``None``: the code does not say which kind."""
    rule: str
    """``<format>.<rule>`` that decided, or ``<format>.silent`` when none fired."""
    drawn: bool = True
    """The code draws vectors and embeds no raster image: not a photo or a screenshot."""

    def __post_init__(self) -> None:
        if self.label is not None:
            kind(self.label)  # a rule may only name vocabulary labels
