"""PlantUML's numbers for the stages that tier, cap and window diagrams, as plain data
(this folder sits below the stages that own the settings' types: ``split``'s
``TierParams``, ``filter.extremes``' ``ElementCaps``, ``filter.tokens``' windows).

Tiers: PlantUML is terse like DOT and Mermaid — ``A --> B`` is an edge in five tokens, and
``skinparam`` blocks or long notes inflate tokens without adding structure — so a diagram
is tiered by its own tokens' terciles and its structure graph's size (nodes + edges), the
harder of the two; an activity diagram of the new syntax (no graph) by tokens alone.

Caps: a pool diagram past 300 entities or 600 links is no diagram a person reads (the
largest of the regression corpus has 12 entities); render itself refuses text past
``formats.plantuml.max_lines`` (5,000) and ``max_bytes``.

Token window: as the other code formats, at least 20 cl100k tokens (a diagram of one arrow
is no task) and at most 32,768.
"""

from __future__ import annotations

TIERS: dict[str, object] = {"method": "quantiles", "structure": True}
"""``split.difficulty.plantuml`` (a ``TierParams``)."""
CAPS: dict[str, int | None] = {"max_nodes": 300, "max_edges": 600, "max_path_commands": None}
"""``filter.extremes.caps.plantuml`` (an ``ElementCaps``): counted on the structure graph
(``graph_nodes``/``graph_edges``); PlantUML draws no path commands of the author's."""
TOKENS: dict[str, int] = {"min": 20, "max": 32768}
"""``filter.tokens.formats.plantuml``."""
