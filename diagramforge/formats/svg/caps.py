"""SVG's element caps and what it counts from code (the ``extremes`` filter's ``caps``),
and its token window (the ``tokens`` filter's ``formats``).

A file of tens of thousands of path commands is a traced bitmap or a plot's raw points,
not a diagram.  Counted in the code: every command letter of every ``d`` attribute, and
each ``points`` list (a polyline or polygon) as one.
"""

from __future__ import annotations

import re

CAPS = {"max_nodes": 500, "max_edges": 1000, "max_path_commands": 20000}
"""The default ``filter.extremes.caps.svg``."""
TOKENS = {"min": 20, "max": 32768}
"""The default ``filter.tokens.formats.svg``."""

_D = re.compile(r'\sd\s*=\s*("[^"]*"|\'[^\']*\')')
_CMD = re.compile(r"[MmLlHhVvCcSsQqTtAaZz]")
_POINTS = re.compile(r'\spoints\s*=\s*("[^"]*"|\'[^\']*\')')


def counts(code: str) -> dict[str, int]:
    """Path commands: the letters of the ``d`` attributes, plus one per ``points`` list."""
    return {"path_commands": sum(len(_CMD.findall(m)) for m in _D.findall(code))
            + len(_POINTS.findall(code))}
