"""What a TikZ picture draws, counted: nodes joined by links, or a drawing made of coordinates.

The package and library rules (``tikz.py``) say most kinds plainly.  What no package names is
told apart by its *shape*, read with the same source reader that builds the structure graph
(:mod:`diagramforge.formats.tikz.graph`):

* a **node-link** picture joins most of its nodes by links drawn between them
  (``(a) -- (b)``, ``edge``, ``child``): a tree, an automaton, a neural network's layers, a
  commutative or block diagram, boxes of an architecture, or a graph — told apart by how the
  links run (acyclic and branching, loops and labels, complete between columns) and what the
  nodes hold (words in boxes, math, ``\\oplus`` junctions, nothing);
* a **drawing** places lines, arcs and curves at coordinates and labels them with math
  (``$A$``, ``$\\alpha$``): geometry, or an illustration of a physical set-up when it draws
  what only physical things are drawn with (springs, hatched walls, shaded balls).

Real collections are mostly drawings (in a physics and ML teaching set, by eye, a third
sketches, a quarter graph-like), so a node-link verdict needs links between most nodes: a
few labels on a geometry figure joined by one line are not a graph.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from dataclasses import dataclass, field

from diagramforge.formats.tikz.graph.source import tikz_source_graphs
from diagramforge.graphs.model import Graph

R = re.compile

_MATH = R(r"\$[^$]*\$|\\\(.*?\\\)|\\[A-Za-z@]+\*?|[{}_^]")
_WORD = R(r"[A-Za-zÀ-ÿ]{3,}")
_NUM = r"-?\s*[\d.]+\s*(?:cm|mm|pt|em|ex)?"
_COORD = R(r"\(\s*" + _NUM + r"\s*[,:]\s*" + _NUM + r"\s*(?:,\s*" + _NUM + r"\s*)?\)")
_CURVE = R(r"\barc\b\s*[\(\[]|\bcircle\s*[\(\[]|\bellipse\s*[\(\[]|\.\.\s*controls\b|"
           r"\bparabola\b|\bplot\b")
"""Curves drawn as path operations (a node's ``circle`` shape and a link's ``in=``/``out=``
bend are no curves of a drawing)."""
_LOOP = R(r"\bloop(?:\s+(?:above|below|left|right))?\b")
_JUNCTION = R(r"^\s*(?:\$\s*)?(?:\\oplus|\\otimes|\\bigoplus|\\sum|\\Sigma|\+|\\times|×|⊕|"
              r"\\pm|-|\\cdot)\s*(?:\$)?\s*$")
_TRANSFER = R(r"\\frac\s*\{[^{}]*\}\s*\{[^{}]*s[^{}]*\}|[A-Z]\s*\(\s*[sz]\s*\)|z\^\{?-1|"
              r"\\int\b|\bdelay\b")
_LINKING = R(r"\\(?:draw|path)\b[^;]*\(\s*[A-Za-z][\w-]*(?:\.[\w ]+)?\s*\)\s*"
              r"(?:--|edge\b|to\b)")
_JUNCTION_STYLE = R(r"\\node\s*(?:\([^)]*\)\s*)?\[[^\]]*\b(?:xor|x?or gate|adder|summ?(?:ing|er)?|"
                    r"junction|oplus|mixer|multiplier|mult)\b", re.I)
"""A node drawn in a style named for a junction (``[XOR]``, ``[sum]``): the circles where
signals meet in block diagrams and cipher modes."""
_NEURON = R(r"\bneurons?\b|\bperceptron\b|\b(?:input|hidden|output) (?:neuron|unit|layer)\b",
            re.I)
_PHYSICS_DRAWN = R(r"decoration\s*=\s*\{?\s*(?:coil|zigzag|snake|saw|bumps)\b|"
                   r"\bball color\b|shading\s*=\s*ball\b")
_PHYSICS_WRITTEN = R(r"\\vec\s*\{?\s*[FBE]\b|\\(?:SI|si|qty|unit)\s*\{|\b(?:lens|mirror|spring|"
                     r"magnet|laser|photon|electron|proton|neutron|detector|prism|pendulum|wire|"
                     r"coil|charge|planet|orbit|sun|earth|moon|beam|screen|slit|piston|gas|"
                     r"fluid|light|wave|field|current|voltage|force|gravity|velocity|"
                     r"acceleration|friction|mass|source|polari[sz]er|analy[sz]er)s?\b",
                     re.I)
_LABEL = R(r"\blabel\s*=\s*(?:\[[^\]]*\])?\s*\{?(?:[\w.-]+:)?([^,\]]*)")
"""What a physical set-up is drawn with (springs, shaded balls) and what it is labelled with
(forces and fields, units, named apparatus) — read in node texts and labels only: ``mirror``
is also a key of TikZ's brace decoration."""
_TICKS = R(r"\\foreach[^;]*\\draw[^;]*\(\s*\\\w+\s*,\s*-?[\d.]+\s*\)\s*--\s*"
           r"\(\s*\\\w+\s*,\s*-?[\d.]+\s*\)[^;]*node")
_GEOMETRIC = R(r"\.center\s*\)|--\s*cycle\b|\$\s*\([^)]*\)\s*!|\\coordinate\b|"
                r"\bintersection(?:s| of)\b|\\(?:fill|filldraw|shade)\b|\bpattern\s*=")
"""What only a drawing does with its points (counted once a statement): lines to their
centres, closed polygons, points between points (``$(a)!.5!(b)$``), coordinates,
intersections, filled areas."""
_BAR = R(r"\\(?:fill|draw|filldraw)[^;]*\(\s*[\d.\\\w]+\s*,\s*0\s*\)\s*rectangle\b")


def text_kind(text: str) -> str:
    """``word`` (a run of three letters outside math), ``math`` (anything else written) or
    ``blank``."""
    if not text.strip():
        return "blank"
    return "word" if _WORD.search(_MATH.sub(" ", text)) else "math"


@dataclass
class Shape:
    """The counts the shape rules read (:func:`read`)."""

    graph: Graph = field(default_factory=Graph)
    places: dict[str, tuple[float, float, float, float]] = field(default_factory=dict)
    texts: Counter = field(default_factory=Counter)
    shapes: Counter = field(default_factory=Counter)
    links: int = 0
    joined: int = 0
    labelled: int = 0
    directed: int = 0
    loops: int = 0
    coords: int = 0
    curves: int = 0
    junctions: int = 0
    geometric: int = 0
    centred: int = 0
    """Statements drawing lines between nodes through their centres (``(a.center) --
    (b.center)``): the author treats the nodes as points."""
    linking: int = 0
    """Statements drawing lines between named nodes."""
    unread: int = 0
    neighbours: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))

    @property
    def nodes(self) -> int:
        return len(self.graph.nodes)

    @property
    def node_link(self) -> bool:
        """Most nodes joined by links (two at least), and the links are the drawing: a
        picture that also runs lines to its points' centres, closes polygons, fills areas and
        places points between points is a geometric figure whose points are nodes (a cube's
        corners, a triangulation's vertices)."""
        pair = self.links == 1 and self.nodes == 2  # two named parts, one link between
        linked = (self.links + self.loops >= 2 or pair) and self.joined >= 2 and (
            self.joined >= 0.5 * self.nodes or (self.joined >= 4 and self.links >= 4))
        points = self.linking and self.centred >= 0.5 * self.linking
        return linked and not points and self.geometric + self.curves < max(2, 0.5 * self.links)

    def summary(self) -> str:
        t = self.texts
        return (f"{self.nodes} nodes ({t['word']} with words, {t['math']} math, "
                f"{t['blank']} blank), {self.links} links joining {self.joined}, "
                f"{self.coords} coordinates, {self.curves} curves, "
                f"{self.geometric} geometric constructions")


def read(code: str, body: str) -> Shape:
    """Count what the picture draws: its source graph (every picture of ``code``) and the
    coordinates and curves of its ``body``."""
    try:
        graphs, info = tikz_source_graphs(code)
    except (ValueError, RecursionError, IndexError, KeyError):
        graphs, info = [], None
    nodes = [n for g in graphs for n in g.nodes]
    edges = [e for g in graphs for e in g.edges]
    s = Shape(graph=Graph(nodes=nodes, edges=edges),
              places=dict(info.places) if info and len(graphs) == 1 else {},
              unread=info.unresolved if info else 0)
    ids = {n.id for n in nodes}
    joined: set[str] = set()
    for e in edges:
        if e.source in ids and e.target in ids:
            if e.source == e.target:
                s.loops += 1
                continue
            s.links += 1
            s.labelled += bool(e.label.strip())
            s.directed += e.directed
            joined |= {e.source, e.target}
            s.neighbours[e.source].add(e.target)
            s.neighbours[e.target].add(e.source)
    s.joined = len(joined)
    for n in nodes:
        s.texts[text_kind(n.text)] += 1
        s.shapes[n.shape] += 1
        s.junctions += n.id in joined and bool(_JUNCTION.match(n.text or ""))
    s.loops += len(_LOOP.findall(body))
    s.coords = len(_COORD.findall(body))
    s.curves = len(_CURVE.findall(body))
    statements = body.split(";")
    s.geometric = sum(1 for st in statements if _GEOMETRIC.search(st))
    s.linking = sum(1 for st in statements if _LINKING.search(st))
    s.centred = sum(1 for st in statements if _LINKING.search(st) and ".center" in st)
    return s


def _components(s: Shape) -> list[set[str]]:
    seen: set[str] = set()
    out = []
    for start in list(s.neighbours):
        if start in seen:
            continue
        comp, todo = set(), [start]
        while todo:
            v = todo.pop()
            if v in comp:
                continue
            comp.add(v)
            todo += [w for w in s.neighbours[v] if w not in comp]
        seen |= comp
        out.append(comp)
    return out


def tree(s: Shape) -> bool:
    """Links without a cycle that branch (a node with three neighbours or more), four nodes
    at least, and most of the picture's nodes in it (a pipeline whose few links fan out is
    no tree); where the source places the nodes, most links run between levels (a chain of
    boxes left to right is a pipeline, not a tree)."""
    comps = _components(s)
    if not comps or s.joined < 4 or s.joined < 0.7 * s.nodes:
        return False
    if any(len(c) - 1 != sum(len(s.neighbours[v]) for v in c) // 2 for c in comps):
        return False
    if max(len(s.neighbours[v]) for v in s.neighbours) < 3:
        return False
    if s.places:
        ys = {n: p[1] for n, p in s.places.items()}
        pairs = {(a, b) for a in s.neighbours for b in s.neighbours[a] if a < b}
        levelled = [abs(ys[a] - ys[b]) > 0.2 for a, b in pairs if a in ys and b in ys]
        if levelled and sum(levelled) < 0.7 * len(levelled):
            return False
    return True


def layered(s: Shape) -> bool:
    """Round or blank nodes in three or more columns (or rows), links between neighbouring
    columns only, each such pair of columns joined densely: a neural network's layers."""
    if not s.places or s.joined < 6:
        return False
    for axis in (0, 1):
        cols: dict[float, list[str]] = defaultdict(list)
        for n, p in s.places.items():
            if n in s.neighbours:
                cols[round(p[axis], 1)].append(n)
        keys = sorted(cols)
        if len(keys) < 3 or any(len(cols[k]) < 1 for k in keys):
            continue
        rank = {n: i for i, k in enumerate(keys) for n in cols[k]}
        pairs = {(a, b) for a in s.neighbours for b in s.neighbours[a] if a < b}
        if not pairs or any(abs(rank.get(a, -9) - rank.get(b, 9)) != 1 for a, b in pairs):
            continue
        dense = all(
            sum(1 for a, b in pairs if {rank[a], rank[b]} == {i, i + 1})
            >= 0.6 * len(cols[keys[i]]) * len(cols[keys[i + 1]])
            for i in range(len(keys) - 1))
        if dense and sum(len(v) for v in cols.values()) >= 6:
            return True
    return False


def node_link_kind(s: Shape, body: str) -> tuple[str, str]:
    """The kind of a node-link picture and the rule that named it.  Words name components
    (an architecture: a few named parts, boxes or not); math, numbers or nothing in the nodes,
    or many like round nodes, make a graph."""
    t = s.texts
    written = t["word"] + t["math"]
    round_ = sum(v for k, v in s.shapes.items() if k in {"circle", "ellipse", "circle split",
                                                        "state"})
    boxes = sum(v for k, v in s.shapes.items() if k in {"rectangle", "rounded rectangle",
                                                       "rectangle split", "cylinder"})
    if _NEURON.search(body):
        return "neural_network", "neurons"
    if s.junctions or _JUNCTION_STYLE.search(body) or (_TRANSFER.search(body) and boxes):
        return "block_diagram", "junctions"
    if layered(s):
        return "neural_network", "layers"
    if tree(s):
        return "tree", "acyclic_branching"
    if round_ >= 2 and s.links and (s.loops or s.labelled >= 0.6 * s.links) and \
            t["word"] <= t["math"] + t["blank"]:
        return "automaton", "labelled_transitions"
    if written and not t["word"] and not round_ and s.directed >= 0.8 * s.links and \
            s.labelled >= 0.5 * s.links and s.nodes <= 16:
        return "commutative_diagram", "math_arrows"
    if t["word"] >= max(2, 0.5 * s.nodes) and boxes >= round_:
        return "architecture_diagram", "boxes_with_words"
    if t["word"] >= max(2, 0.5 * s.nodes) and (not round_ or s.nodes < 6):
        return "architecture_diagram", "words_linked"
    return "graph", "nodes_linked"


def drawing(s: Shape) -> bool:
    """Lines, arcs and curves at coordinates, with few worded labels: a drawing."""
    return (s.coords >= 3 or s.curves >= 1) and s.texts["word"] <= max(3, s.nodes // 3)


def physical(s: Shape, body: str) -> str | None:
    """What only drawings of physical things draw or write: the cue, or ``None``."""
    m = _PHYSICS_DRAWN.search(body)
    if m:
        return m.group(0)
    written = [n.text for n in s.graph.nodes] + _LABEL.findall(body)
    for text in written:
        m = _PHYSICS_WRITTEN.search(text)
        if m:
            return f"{m.group(0)!r} in {text.strip()[:80]!r}"
    return None


def chart_like(body: str) -> bool:
    """Tick marks drawn in a loop with numbers, or bars standing on the x axis: a chart drawn
    by hand — a drawing, but no geometry."""
    return bool(_TICKS.search(body) or len(_BAR.findall(body)) >= 3)
