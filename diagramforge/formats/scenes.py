"""What a reader of the rendered diagram can see: visible nodes and edges with their text,
shape (as the noun a person would use), fill colour and place.

A :class:`Scene` is built from a diagram's code and its structure graph (the graph gives
ids, texts, boxes and edges; the code gives what the graph does not keep: colours, whether
a cell is drawn at all). Elements nobody can see — draw.io groups, cells with neither
fill, stroke, text nor image, hidden layers — are not in the scene: they can never be
named, and they never make a description ambiguous.

Edges are identified by their index in the graph (``e0``, ``e1``, …), since the graph model
gives edges no ids; :func:`edge_key` finds an edit's edge in it.

Format specifics (colours, nouns, visibility) live in each format's ``scene`` capability
(``formats/<name>/scene.py``: ``scene(code, graph, margin) -> Scene``, its nodes; the
edges are the graph's, added by ``synth.referents.naming.scene_of``); a format without one
has no referring expressions. This module and :mod:`.colours` are the vocabulary they share,
below the formats so their folders need nothing from ``synth``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from diagramforge.formats.colours import Shade
from diagramforge.graphs.model import Graph

Box = tuple[float, float, float, float]

NOUNS: dict[str, tuple[str, ...]] = {
    "box": ("box", "rectangle", "square", "panel", "block", "cell", "frame"),
    "circle": ("circle", "oval", "ellipse"),
    "diamond": ("diamond", "rhombus"),
    "triangle": ("triangle",),
    "hexagon": ("hexagon",),
    "cylinder": ("cylinder", "database"),
    "cloud": ("cloud",),
    "parallelogram": ("parallelogram",),
    "document": ("document",),
    "note": ("note",),
    "folder": ("folder",),
    "cube": ("cube",),
    "trapezoid": ("trapezoid",),
    "actor": ("actor", "person", "figure"),
    "lifeline": ("lifeline",),
    "icon": ("icon", "image", "picture", "logo", "symbol"),
    "separator": ("separator", "divider", "rule"),
    "envelope": ("envelope", "message"),
    "text": ("text", "caption", "heading", "title"),
}
"""Node classes and the words that name them; the first word is the one written."""
GENERIC_NODE = ("node", "shape", "element", "item", "object", "component")
"""Words that name any node (``node`` is written when no class fits)."""
EDGE_NOUNS = {"arrow": True, "connection": False, "connector": False, "line": False,
              "edge": False, "link": False}
"""Words that name an edge → whether they imply an arrowhead (``arrow``: directed only)."""

WORD_CLASS: dict[str, str] = {w: k for k, ws in NOUNS.items() for w in ws}
FRAMED = frozenset({"box", "circle", "diamond", "triangle", "hexagon", "cylinder", "cloud",
                    "parallelogram", "document", "note", "folder", "cube", "trapezoid"})
"""Classes that frame a text: without one they are *empty* (an icon is *unlabelled*)."""


def noun_word(cls: str, box: Box | None = None) -> str:
    """The word written for a node class (an ellipse that is not round is an ``oval``)."""
    if cls == "circle" and box is not None and box[2] > 0 and box[3] > 0:
        r = max(box[2], box[3]) / min(box[2], box[3])
        return "circle" if r <= 1.25 else "oval"
    return NOUNS[cls][0] if cls in NOUNS else GENERIC_NODE[0]


@dataclass
class Element:
    """One visible node or edge."""

    id: str
    kind: str  # "node" | "edge"
    text: str = ""
    cls: str = "shape"
    """Node class (a key of :data:`NOUNS`, or ``shape`` when none fits)."""
    shade: Shade | None = None
    """Fill colour (nodes); ``None`` = no fill,
    :data:`~diagramforge.formats.colours.UNKNOWN` = cannot tell."""
    bbox: Box | None = None
    source: str | None = None
    target: str | None = None
    directed: bool = True
    nameable: bool = True
    """``False`` for what a reader sees but would not call a thing: the unlabelled,
    unfilled frame draw.io lays cells out in (a table row). It is never named, yet still
    counts when a description is checked for ambiguity."""

    @property
    def centre(self) -> tuple[float, float] | None:
        b = self.bbox
        return None if b is None else (b[0] + b[2] / 2, b[1] + b[3] / 2)


@dataclass
class Scene:
    """The visible elements of one state of a diagram."""

    nodes: dict[str, Element] = field(default_factory=dict)
    edges: dict[str, Element] = field(default_factory=dict)
    hidden: set[str] = field(default_factory=set)
    """Graph nodes that are not drawn (never named, never confusable)."""
    _median: float | None = field(default=None, repr=False, compare=False)

    def element(self, eid: str) -> Element | None:
        return self.nodes.get(eid) or self.edges.get(eid)

    def median_size(self) -> float:
        """A typical node's smaller side: the unit of every geometric tolerance."""
        if self._median is not None:
            return self._median
        sides = sorted(min(n.bbox[2], n.bbox[3]) for n in self.nodes.values()
                       if n.bbox is not None and min(n.bbox[2], n.bbox[3]) > 0)
        self._median = sides[len(sides) // 2] if sides else 1.0
        return self._median


def edge_key(graph: Graph, source: object, target: object, label: object = None
             ) -> str | None:
    """Scene id of the first graph edge ``source → target`` (with ``label`` when given)."""
    for k, e in enumerate(graph.edges):
        if e.source == source and e.target == target and (label is None or e.label == label):
            return f"e{k}"
    return None


def one_line(text: str) -> str:
    """A label as it reads on one line (line breaks and runs of spaces become one space)."""
    return " ".join(text.split())
