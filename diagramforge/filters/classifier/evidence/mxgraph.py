"""mxGraph evidence: draw.io's shape libraries and styles, and the shape of the edge graph.

draw.io names what it draws: ``mxgraph.aws4.*`` icons, ``umlLifeline``, ``mxgraph.bpmn.*``,
``rhombus`` decisions, ``shape=table`` rows, ``mxgraph.mockup.*`` widgets.  Library rules
(share of vertices from one library) run first, then style rules, then structure: a page
whose edges form a branching tree is a tree, overlapping translucent ellipses with no edges
a Venn diagram, other boxes joined by edges an architecture diagram.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, field

from diagramforge.filters.classifier.evidence.base import Evidence

R = re.compile

_LIBRARY_RULES: list[tuple[str | None, str, re.Pattern[str], float]] = [
    # (label, rule, pattern, share of the page's shapes it needs)
    ("bpmn", "bpmn", R(r"mxgraph\.bpmn\b"), 0.1),
    ("er_diagram", "er", R(r"(?:start|end)Arrow=ER\w+|mxgraph\.er\."), 0.05),
    ("uml", "uml", R(r"shape=uml(?:Lifeline|Actor|Frame|Boundary|Control|Entity|Destroy|State)|"
                     r"mxgraph\.(?:uml|sysml)\b|shape=(?:component|module|"
                     r"providedRequiredInterface|requiredInterface|lollipop)\b|"
                     r"shape=(?:startState|endState)\b"), 0.05),
    ("network_diagram", "network_icons",
     R(r"mxgraph\.(?:cisco\w*|networks?\w*|citrix|rack\w*|veeam\w*|cabinets|eip)\.|"
       r"img/lib/clip_art/networking|childLayout=rack", re.I), 0.3),
    ("network_diagram", "cloud_icons",
     R(r"mxgraph\.(?:aws\w*|azure\w*|gcp\w*|kubernetes|ibm\w*|alibaba\w*|openstack|"
       r"salesforce|mscae|archimate\w*|webicons)\.|img/lib/(?:aws|azure\d*|gcp|ibm|"
       r"kubernetes|mscae|active_directory)", re.I), 0.3),
    ("circuit", "electrical", R(r"mxgraph\.(?:electrical|pid2?\w*)\."), 0.3),
    ("wireframe", "mockup", R(r"mxgraph\.(?:mockup|ios\d*\w*|android|bootstrap)\."), 0.3),
    ("flowchart", "flowchart_shapes", R(r"mxgraph\.flowchart\."), 0.3),
    (None, "floorplan", R(r"mxgraph\.floorplan\."), 0.3),
]
"""Shape libraries that name a kind.  Icon libraries must dominate the page (a data-flow
diagram with two phone icons is no wireframe); UML, BPMN and ER shapes say it in a few.
Cloud vendors' icons draw a deployment: a network diagram, as Cisco's do.  A floor plan is a
diagram of no kind the vocabulary names (``None``: unknown, never a geographic ``map``)."""

_STYLE = R(r'\bstyle="([^"]*)"')
_WRAPPER = R(r"<(?:UserObject|object)\b([^>]*)>\s*(<mxCell\b)")
"""A cell with metadata (placeholders, links, tooltips) is an ``mxCell`` without an id inside
a ``UserObject`` or ``object`` that holds the id: its edges name the wrapper's id."""
_CELL = R(r"<mxCell\b([^>]*?)(/>|>(.*?)</mxCell>)", re.S)
_ATTR = R(r'\b(\w+)="([^"]*)"')
_GEOMETRY = R(r'<mxGeometry\b([^>]*)')
_DECISION = R(r"(?:^|;)rhombus(?:;|$)|shape=rhombus\b")
_ELLIPSE = R(r"(?:^|;)ellipse(?:;|$)|shape=ellipse\b|(?:^|;)doubleEllipse(?:;|$)")
_TABLE = R(r"shape=(?:table|tableRow|partialRectangle)\b|childLayout=tableLayout")
_TRANSLUCENT = R(r"(?:^|;)(?:opacity|fillOpacity)=(?:[1-8]?\d)(?:;|$)")
_IMAGE = R(r"shape=image\b|(?:^|;)image=")
_TEXT_ONLY = R(r"^text;|(?:^|;)text(?:;|$)")
_LIFELINE = R(r"shape=umlLifeline\b")
_ICON = R(r"shape=mxgraph\.|shape=image\b|(?:^|;)image=")
_NO_LINKS = frozenset({"wireframe", "map", "table", "bar_chart", "venn_diagram", "circuit"})
"""Kinds whose page is no node-link drawing whatever its connectors: a mock-up, a floor
plan, a circuit's wires (a UML page of lifelines is a sequence diagram: not one either)."""


@dataclass
class Page:
    """Vertices (style, box) and edges (source, target) of one mxGraph page."""

    styles: dict[str, str] = field(default_factory=dict)
    boxes: dict[str, tuple[float, float, float, float]] = field(default_factory=dict)
    edges: list[tuple[str | None, str | None]] = field(default_factory=list)
    edge_styles: list[str] = field(default_factory=list)


def _num(attrs: dict[str, str], key: str) -> float:
    try:
        return float(attrs.get(key, 0))
    except ValueError:
        return 0.0


def parse(code: str) -> Page:
    """A light reading of the XML (no tree needed: the render stage validated it)."""
    page = Page()
    wrapped = {m.start(2): dict(_ATTR.findall(m.group(1))).get("id")
               for m in _WRAPPER.finditer(code)}
    for m in _CELL.finditer(code):
        attrs = dict(_ATTR.findall(m.group(1)))
        cid, style = attrs.get("id") or wrapped.get(m.start()), attrs.get("style", "")
        if attrs.get("edge") == "1":
            page.edges.append((attrs.get("source"), attrs.get("target")))
            page.edge_styles.append(style)
        elif attrs.get("vertex") == "1" and cid:
            page.styles[cid] = style
            g = _GEOMETRY.search(m.group(3) or "")
            ga = dict(_ATTR.findall(g.group(1))) if g else {}
            page.boxes[cid] = (_num(ga, "x"), _num(ga, "y"), _num(ga, "width"),
                               _num(ga, "height"))
    return page


def _share(page: Page, pattern: re.Pattern[str]) -> float:
    shapes = [s for s in page.styles.values() if not _TEXT_ONLY.search(s)]
    return sum(1 for s in shapes if pattern.search(s)) / max(1, len(shapes))


def _overlap(a: tuple[float, float, float, float], b: tuple[float, float, float, float]) -> bool:
    return a[0] < b[0] + b[2] and b[0] < a[0] + a[2] and a[1] < b[1] + b[3] and \
        b[1] < a[1] + a[3]


def _venn(page: Page) -> bool:
    """Two or more overlapping ellipses, at least one translucent, no connecting edges."""
    ell = [cid for cid, s in page.styles.items() if _ELLIPSE.search(s)]
    if len(ell) < 2 or len(page.edges) > 1:
        return False
    if not any(_TRANSLUCENT.search(page.styles[c]) for c in ell):
        return False
    return any(_overlap(page.boxes[a], page.boxes[b]) for i, a in enumerate(ell)
               for b in ell[i + 1:])


def _tree(page: Page) -> str | None:
    """Links joining vertices without a cycle (read undirected: an org chart's connector
    drawn upwards is still its edge), branching (a vertex with two children, or three links),
    hardly ever merging (a flow whose branches meet again is no tree; one connector drawn
    the wrong way is tolerated), its vertices boxes of text, not icons (a network's routers
    hang in a tree, but it is a network) — a tree, or a forest of trees (a site map with two
    roots); a mind map when it grows both ways from its centre."""
    links = {tuple(sorted((s, t))) for s, t in page.edges
             if s in page.styles and t in page.styles and s != t}
    if len(links) < 3:
        return None
    adj: dict[str, set[str]] = {}
    for a, b in links:
        adj.setdefault(a, set()).add(b)
        adj.setdefault(b, set()).add(a)
    seen: set[str] = set()
    parts = 0
    for start in sorted(adj):
        if start in seen:
            continue
        parts += 1
        todo = [start]
        while todo:
            v = todo.pop()
            if v not in seen:
                seen.add(v)
                todo += [w for w in adj[v] if w not in seen]
    children: dict[str, int] = {}
    parents: dict[str, int] = {}
    for a, b in page.edges:
        if a in adj and b in adj and a != b:
            children[a] = children.get(a, 0) + 1
            parents[b] = parents.get(b, 0) + 1
    branching = max(len(n) for n in adj.values()) >= 3 or max(children.values(), default=0) >= 2
    merging = sum(1 for n in parents.values() if n > 1)
    icons = sum(1 for v in adj if _ICON.search(page.styles[v]))
    if len(links) != len(adj) - parts or not branching or merging > 0.05 * len(adj) \
            or icons > 0.3 * len(adj):
        return None
    tops = [v for v in sorted(adj) if not parents.get(v)]
    if parts != 1 or len(tops) != 1:
        return "tree"
    root = tops[0]
    return "mind_map" if _radial(page, root, sorted(adj[root])) else "tree"


def _centre(box: tuple[float, float, float, float]) -> tuple[float, float]:
    return box[0] + box[2] / 2, box[1] + box[3] / 2


def _radial(page: Page, root: str, kids: list[str]) -> bool:
    """The root's children lie on both sides of it (left and right, or above and below): a
    mind map grows outwards from a centre; an org chart or decision tree grows one way."""
    if len(kids) < 2 or root not in page.boxes:
        return False
    rx, ry = _centre(page.boxes[root])
    w, h = page.boxes[root][2] / 2, page.boxes[root][3] / 2
    xs = [_centre(page.boxes[k])[0] - rx for k in kids if k in page.boxes]
    ys = [_centre(page.boxes[k])[1] - ry for k in kids if k in page.boxes]
    sideways = min(xs) < -w and max(xs) > w and min(ys) <= h and max(ys) >= -h
    upright = min(ys) < -h and max(ys) > h and min(xs) <= w and max(xs) >= -w
    return (sideways or upright) and len(kids) >= 3


def _bars(page: Page) -> bool:
    """Three or more equally thick columns of boxes (stacked segments join into one column)
    standing apart on one baseline with different lengths, upright or lying: a bar chart drawn
    with shapes.  Columns that touch are a grid or a table, not bars."""
    boxes = [b for cid, b in page.boxes.items() if b[2] > 0 and b[3] > 0
             and not _TEXT_ONLY.search(page.styles[cid]) and "shape=" not in page.styles[cid]]

    def q(v: float) -> int:  # 4-unit buckets: float noise in geometry must not split a column
        return int(v // 4)

    for vertical in (True, False):
        segments: dict[tuple[int, int], list[list[float]]] = {}
        for x, y, w, h in boxes:
            pos, thick, lo, hi = (x, w, y, y + h) if vertical else (y, h, x, x + w)
            segments.setdefault((q(pos), q(thick)), []).append([pos, thick, lo, hi])
        columns: dict[tuple[int, int], list[float]] = {}
        for (qp, qt), segs in segments.items():
            runs: list[list[float]] = []
            for seg in sorted(segs, key=lambda sg: sg[2]):
                if runs and seg[2] <= runs[-1][3] + 2:  # stacked: touching segments
                    runs[-1][3] = max(runs[-1][3], seg[3])
                else:
                    runs.append(seg)
            if len(runs) == 1:  # a column is one stack; repeated icons are not bars
                columns[(qp, qt)] = runs[0]
        by_base: dict[tuple[int, int], list[list[float]]] = {}
        for (_, thick), col in columns.items():
            by_base.setdefault((q(col[3] if vertical else col[2]), thick), []).append(col)
        for cols in by_base.values():
            cols.sort()
            apart = all(b[0] - (a[0] + a[1]) > 0.1 * a[1] for a, b in itertools.pairwise(cols))
            if len(cols) >= 3 and apart and len({q(c[3] - c[2]) for c in cols}) >= 3:
                return True
    return False


_CLASS_BOX = R(r"swimlane;.*childLayout=stackLayout")
_DIVIDER = R(r"^line;|(?:^|;)line(?:;|$)")


def _class_diagram(page: Page) -> bool:
    """Stacked swimlanes split by divider lines: UML class boxes (attributes | methods)."""
    return any(_CLASS_BOX.search(s) for s in page.styles.values()) and \
        any(_DIVIDER.search(s) for s in page.styles.values())


def _raster_page(page: Page) -> bool:
    """Raster images cover most of the page: it may be a screenshot or a photo with notes."""
    if not page.boxes:
        return False
    xs = [b[0] for b in page.boxes.values()] + [b[0] + b[2] for b in page.boxes.values()]
    ys = [b[1] for b in page.boxes.values()] + [b[1] + b[3] for b in page.boxes.values()]
    area = max(1.0, (max(xs) - min(xs)) * (max(ys) - min(ys)))
    images = sum(page.boxes[c][2] * page.boxes[c][3] for c, st in page.styles.items()
                 if _IMAGE.search(st) and c in page.boxes)
    return images >= 0.5 * area


def _table(page: Page) -> bool:
    return len(page.styles) >= 4 and not page.edges and _share(page, _TABLE) >= 0.5


def _cells(page: Page) -> bool:
    """Most boxes touch a neighbour edge to edge, in rows and in columns: cells of a grid (a
    matrix, a timetable, a Gantt chart's calendar) — a table or a chart, no diagram."""
    boxes = [b for cid, b in page.boxes.items() if b[2] > 0 and b[3] > 0
             and not _TEXT_ONLY.search(page.styles[cid])]
    if len(boxes) < 6:
        return False

    def near(a: float, b: float) -> bool:
        return abs(a - b) <= 1.0

    row = col = 0
    for x, y, w, h in boxes:
        row += any(near(x + w, x2) and near(y, y2) and near(h, h2) for x2, y2, _, h2 in boxes)
        col += any(near(y + h, y2) and near(x, x2) and near(w, w2) for x2, y2, w2, _ in boxes)
    return row >= 0.3 * len(boxes) and col >= 0.3 * len(boxes)


def evidence(code: str) -> Evidence:
    """The first rule that fires on the page in ``code``; ``mxgraph.silent`` when none does."""
    page = parse(code)
    drawn = not _raster_page(page)
    if len(page.styles) < 2:
        return Evidence(None, "mxgraph.silent", drawn)
    styles = list(page.styles.values()) + page.edge_styles
    shapes = max(1, sum(1 for st in page.styles.values() if not _TEXT_ONLY.search(st)))
    best: tuple[int, str, str, str] | None = None
    for label, name, pattern, share in _LIBRARY_RULES:
        hits = [st for st in styles if pattern.search(st)]
        if hits and len(hits) >= share * shapes and (best is None or len(hits) > best[0]):
            best = (len(hits), label, name, hits[0])
    if best:
        lifelines = best[2] == "uml" and any(_LIFELINE.search(st) for st in styles)
        plain = best[1] not in _NO_LINKS and not lifelines
        return Evidence(best[1], f"mxgraph.{best[2]}", drawn,
                        line=f"{best[0]} shapes like style={best[3][:120]!r}",
                        family="diagram" if best[1] is None else None,
                        graph_like=None if plain and best[1] else False)
    counts = f"{len(page.styles)} vertices, {len(page.edges)} edges"
    if _class_diagram(page):
        return Evidence("uml", "mxgraph.class_boxes", drawn, line=counts)
    if _table(page):
        return Evidence("table", "mxgraph.table", drawn, line=counts, graph_like=False)
    if len(page.edges) <= 2 and _bars(page):
        return Evidence("bar_chart", "mxgraph.bars", drawn, line=counts, graph_like=False)
    if _venn(page):
        return Evidence("venn_diagram", "mxgraph.overlapping_ellipses", drawn, line=counts,
                        graph_like=False)
    if any(_DECISION.search(s) for s in page.styles.values()) and page.edges:
        return Evidence("flowchart", "mxgraph.decisions", drawn, line=counts)
    tree = _tree(page)
    if tree:
        return Evidence(tree, f"mxgraph.{tree}", drawn, line=counts)
    if page.edges:
        round_ = _share(page, _ELLIPSE)
        icons = _share(page, _ICON)
        label = "graph" if round_ > 0.5 and icons < 0.3 else "architecture_diagram"
        return Evidence(label, "mxgraph.node_link", drawn, line=counts)
    if _cells(page):  # a grid of cells: a table, a timetable, a Gantt calendar
        return Evidence(None, "mxgraph.cells", drawn, line=counts, family=None,
                        graph_like=False)
    return Evidence(None, "mxgraph.silent", drawn, line=counts, family="diagram",
                    graph_like=False)
