"""draw.io's Execution Success (VCG-Bench's measure for mxGraph code: a page is a success when
it is valid and draw.io renders it), counted by the render stage over every page it is given
(the ``execution`` capability: the funnel, :mod:`diagramforge.cards.publish.audit`, prints
one line per format that has it)."""

TITLE = "mxGraph"
"""How the funnel line names the measure's language."""
PAGES = "mxgraph_pages"
"""Render counter: pages given to the render stage."""
VALID = "mxgraph_valid"
"""Render counter: pages that pass draw.io's model validation."""
RENDERED = "mxgraph_rendered"
"""Render counter: valid pages draw.io rendered (the successes)."""
