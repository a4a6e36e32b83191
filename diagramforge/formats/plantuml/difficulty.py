"""How PlantUML diagrams are tiered by difficulty (``split.difficulty.plantuml``'s default).

PlantUML is terse like DOT and Mermaid — ``A --> B`` is an edge in five tokens, and
``skinparam`` blocks or long notes inflate tokens without adding structure — so a diagram
is tiered by its own tokens' terciles and its structure graph's size (nodes + edges), the
harder of the two; an activity diagram of the new syntax (no graph) by tokens alone.
"""

TIERS = {"method": "quantiles", "structure": True}
