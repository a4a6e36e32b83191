"""Structure graphs of diagrams (nodes, edges) and reference scorers against them.

Every format (mxGraph, SVG, TikZ) is reduced to one :class:`~.model.Graph` so a single set of
scorers (SciFlow node/edge P/R/F1, DiagramEval path alignment) serves them all.
"""

from diagramforge.graphs.model import Edge, Graph, Node, graph_stats
from diagramforge.graphs.params import GraphParams

__all__ = ["Edge", "Graph", "GraphParams", "Node", "graph_stats"]
