"""TikZ's element caps and what it counts from code (the ``extremes`` filter's ``caps``),
and its token window (the ``tokens`` filter's ``formats``).

A picture with thousands of path statements is a data dump (a plot's points drawn one
``\\draw`` at a time), not a diagram anyone would draw.  The graph columns give nodes and
edges when the render stage filled them; the code gives the path statements of the
document body (a preamble's macros that merely mention ``\\node`` are not drawn).
"""

from __future__ import annotations

import re

CAPS = {"max_nodes": 300, "max_edges": 600, "max_path_commands": 2000}
"""The default ``filter.extremes.caps.tikz`` (``null`` in params.yaml leaves one uncapped)."""
TOKENS = {"min": 20, "max": 32768}
"""The default ``filter.tokens.formats.tikz``: pgfplots data tables travel inside the code."""

_PATH = re.compile(r"\\(?:draw|path|fill|filldraw|shade|shadedraw|clip|node|coordinate|"
                   r"pic|matrix|addplot|graph|arrow)\b")


def counts(code: str) -> dict[str, int]:
    """Path statements in the document body (the whole code when there is no document)."""
    body = code.partition("\\begin{document}")[2] or code
    return {"path_commands": len(_PATH.findall(body))}
