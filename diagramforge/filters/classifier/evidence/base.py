"""The evidence type every format's rules return (apart from the package's dispatch, which
imports the rule modules: they import this, not the package)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from diagramforge.vocabulary import Family, kind

EXCERPT = 160
"""Characters of code kept as what decided: enough for a maintainer to see the line."""


@dataclass(frozen=True)
class Evidence:
    label: str | None
    """A vocabulary label, or ``None``: the code does not say which kind."""
    rule: str
    """``<format>.<rule>`` that decided, or ``<format>.silent`` when none fired."""
    drawn: bool = True
    """The code draws vectors and embeds no raster image: not a photo or a screenshot."""
    line: str | None = None
    """What the rule saw: the line of code it matched, or a count of what it read
    ("14 nodes, 13 links: a tree of depth 3") — shown beside the type in the gallery, so a
    misreading is seen at a glance."""
    family: str | None = None
    """Where ``label`` is ``None``: the family the code still states (a TikZ drawing with no
    axis and no plotted data is a diagram of *some* kind), or ``None``."""
    graph_like: bool | None = None
    """The code's own verdict on *this* picture: are its nodes joined by links that are the
    drawing?  ``None``: the kind decides (:func:`diagramforge.vocabulary.graph_like`)."""

    def __post_init__(self) -> None:
        if self.label is not None:
            kind(self.label)  # a rule may only name vocabulary labels
        if self.family is not None:
            Family(self.family)


def excerpt(text: str, start: int) -> str:
    """The line of ``text`` holding offset ``start``, whitespace squeezed, cut to
    :data:`EXCERPT` characters around the offset."""
    lo = text.rfind("\n", 0, start) + 1
    hi = text.find("\n", start)
    line = text[lo:hi if hi >= 0 else len(text)]
    at = start - lo
    if len(line) > EXCERPT:
        lo2 = max(0, min(at - EXCERPT // 4, len(line) - EXCERPT))
        line = line[lo2:lo2 + EXCERPT]
    return re.sub(r"\s+", " ", line).strip()


def matched(pattern: re.Pattern[str], text: str) -> str | None:
    """The excerpt of the first match of ``pattern`` in ``text``, or ``None``."""
    m = pattern.search(text)
    return excerpt(text, m.start()) if m else None
