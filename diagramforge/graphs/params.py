"""Tunable numbers of graph extraction and scoring: :class:`GraphParams`, the ``graph``
section of ``params.yaml``.

Defined in ``diagramforge/params.py`` (which every stage already depends on, so changing a
number reruns the stages that use it) and re-exported here, where the graph layer and its
callers have always imported it from.
"""

from diagramforge.params import GraphParams

__all__ = ["GraphParams"]
