"""Graph from drawn geometry: text items, closed shapes and strokes, whatever drew them.

The SVG extractor and the compiled-TikZ (PDF) extractor both reduce a drawing to
:class:`TextItem` and :class:`PathItem` lists in one coordinate system (y down) and call
:func:`build_graph`, which applies DiagramEval's rules:

* **Nodes are text.**  Words on one baseline a small gap apart are one line; lines whose
  baselines differ by less than ``K`` × font size and whose x spans overlap by more than
  ``τ`` (of the shorter span) are one node (union over pairs).  A closed shape around a
  node's text gives its bbox, and texts inside the same innermost shape are one node (a
  title and its subtitle).  A shape around other text-holding shapes, or covering
  ``container_share`` of the drawing, is a container or frame and gives no bbox.
* **Arrowheads.**  A small path (at most ``arrow_tip_em`` median font sizes across) on the
  end of a longer stroke is that end's arrowhead (Graphviz and draw.io polygons, TikZ tips);
  a small round closed curve there is a dot: it ends the line but gives no direction.
  SVG markers (``marker-end``/``marker-start``) count as arrowheads too.
* **Edges** are open strokes that carry an arrowhead or whose two ends touch two different
  node boxes (within ``attach_tolerance``; an arrowhead's own box counts as the end).
  Pieces of one connector drawn as several strokes are joined where their free ends meet.
  Direction comes from the arrowheads: at the end only, forward; at the start only,
  backward; both or none, undirected.

Each item may carry ``src``, whatever drew it (the SVG reader puts the element there);
:func:`build_graph` with a :class:`Trace` says which items became which node and edge, so
an editor changes exactly the elements behind a node or an edge (``edits.svg``).
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass, field

from diagramforge.graphs.model import Edge, Graph, Node
from diagramforge.graphs.settings import GraphParams

Pt = tuple[float, float]
Box = list[float]  # x, y, w, h


@dataclass
class TextItem:
    text: str
    box: Box
    size: float
    src: tuple = ()
    """What drew it (several things once words or duplicates are joined)."""


@dataclass
class PathItem:
    pts: list[Pt]
    """On-curve points in drawing order (a closed path need not repeat its first point)."""
    closed: bool = False
    filled: bool = False
    marker_start: bool = False
    marker_end: bool = False
    extent: Box | None = None
    """Bounding box including control points; defaults to the points' box."""
    curved: bool = False
    """Made of curve segments only (a circle or ellipse when closed)."""
    kind: str = "path"
    """Node shape name when this path is a node's border (rectangle, ellipse, polygon…)."""
    straight: bool = field(default=False)
    """One straight segment (never an arrowhead)."""
    src: object = None
    """What drew it (an SVG element), for :class:`Trace`."""

    def box(self) -> Box:
        return self.extent if self.extent is not None else bbox(self.pts)


def bbox(pts: list[Pt]) -> Box:
    xs, ys = [p[0] for p in pts], [p[1] for p in pts]
    return [min(xs), min(ys), max(xs) - min(xs), max(ys) - min(ys)]


def union(boxes: list[Box]) -> Box:
    return bbox([p for b in boxes for p in ((b[0], b[1]), (b[0] + b[2], b[1] + b[3]))])


def contains(box: Box, x: float, y: float, pad: float = 0.0) -> bool:
    return (box[0] - pad <= x <= box[0] + box[2] + pad
            and box[1] - pad <= y <= box[1] + box[3] + pad)


def point_distance(box: Box, x: float, y: float) -> float:
    dx = max(box[0] - x, 0.0, x - box[0] - box[2])
    dy = max(box[1] - y, 0.0, y - box[1] - box[3])
    return math.hypot(dx, dy)


def box_distance(a: Box, b: Box) -> float:
    dx = max(b[0] - a[0] - a[2], 0.0, a[0] - b[0] - b[2])
    dy = max(b[1] - a[1] - a[3], 0.0, a[1] - b[1] - b[3])
    return math.hypot(dx, dy)


def _diag(b: Box) -> float:
    return math.hypot(b[2], b[3])


# -- nodes ------------------------------------------------------------------------------

def dedupe(texts: list[TextItem]) -> list[TextItem]:
    """The same text drawn twice at one place (overprinting for bold, a PDF writer's
    repeat) is one text."""
    seen: dict[tuple[str, int, int], TextItem] = {}
    out = []
    for t in texts:
        key = (t.text, round(t.box[0]), round(t.box[1]))
        if key not in seen:
            seen[key] = t
            out.append(t)
        elif t.src:
            kept = seen[key]
            seen[key] = out[out.index(kept)] = TextItem(kept.text, kept.box, kept.size,
                                                        kept.src + t.src)
    return out


def join_words(texts: list[TextItem]) -> list[TextItem]:
    """Words drawn as separate items on one baseline, less than half an em apart, become one
    line (PDF exports and some SVG writers place every word on its own)."""
    order = sorted(range(len(texts)), key=lambda i: (round(texts[i].box[1] + texts[i].box[3]),
                                                     texts[i].box[0]))
    out: list[TextItem] = []
    for i in order:
        t = texts[i]
        if out:
            p = out[-1]
            same_line = abs((p.box[1] + p.box[3]) - (t.box[1] + t.box[3])) < 0.3 * max(
                p.size, t.size)
            gap = t.box[0] - (p.box[0] + p.box[2])
            if same_line and -0.1 * p.size <= gap < 0.5 * max(p.size, t.size):
                sep = "" if gap < 0.1 * p.size else " "
                out[-1] = TextItem(" ".join((p.text + sep + t.text).split()),
                                   union([p.box, t.box]), max(p.size, t.size),
                                   p.src + t.src)
                continue
        out.append(t)
    return out


def merge_lines(texts: list[TextItem], k: float, tau: float) -> list[list[int]]:
    """DiagramEval's draft node list: groups of text items that are one node."""
    parent = list(range(len(texts)))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for i, ti in enumerate(texts):
        a = ti.box
        for j in range(i + 1, len(texts)):
            b = texts[j].box
            if abs((a[1] + a[3]) - (b[1] + b[3])) >= k * max(ti.size, texts[j].size):
                continue
            overlap = min(a[0] + a[2], b[0] + b[2]) - max(a[0], b[0])
            if overlap > tau * min(a[2], b[2]):
                parent[find(j)] = find(i)
    groups: dict[int, list[int]] = {}
    for i in range(len(texts)):
        groups.setdefault(find(i), []).append(i)
    return list(groups.values())


@dataclass
class NodeTrace:
    shape: PathItem | None
    """The closed path that gives the node its box (None: the node is its text)."""
    texts: list[TextItem]


@dataclass
class EdgeTrace:
    lines: list[PathItem]
    """The strokes of the connector (several when it was drawn in pieces)."""
    ends: dict[str, tuple[PathItem, int] | None]
    """``source``/``target``: the stroke and which of its ends (0 first, 1 last) it is."""
    caps: dict[str, list[PathItem]]
    """Arrowheads and dots drawn at the ``source``/``target`` end."""
    simple: bool
    """One connection (two terminals), not a fork or bus shared with other edges."""


@dataclass
class Trace:
    """Which drawn items became which node (by id) and edge (in ``Graph.edges`` order)."""

    nodes: dict[str, NodeTrace] = field(default_factory=dict)
    edges: list[EdgeTrace] = field(default_factory=list)


def _nodes(texts: list[TextItem], shapes: list[PathItem], params: GraphParams,
           strokes: list[PathItem] = (), trace: Trace | None = None) -> list[Node]:
    groups = merge_lines(texts, params.svg_line_merge_k, params.svg_overlap_tau)
    gboxes = [union([texts[i].box for i in g]) for g in groups]
    mids = [(b[0] + b[2] / 2, b[1] + b[3] / 2) for b in gboxes]
    sboxes = [s.box() for s in shapes]
    holders = [[s for s, box in enumerate(sboxes) if contains(box, *m)] for m in mids]
    inner = {s for h in holders for s in h}
    # a shape holding another text-holding shape is a container (a lane, the background)
    containers = {s for s in inner for t in inner if s != t
                  and contains(sboxes[s], sboxes[t][0], sboxes[t][1], 0.5)
                  and contains(sboxes[s], sboxes[t][0] + sboxes[t][2],
                               sboxes[t][1] + sboxes[t][3], 0.5)
                  and sboxes[s][2] * sboxes[s][3] > sboxes[t][2] * sboxes[t][3]}
    if sboxes:
        whole = union(sboxes + [t.box for t in texts]) if texts else union(sboxes)
        area = whole[2] * whole[3]
        # …when it holds more than one text: one box around one label is that label's node
        held = {s: sum(1 for h in holders if s in h) for s in range(len(sboxes))}
        containers |= {s for s, b in enumerate(sboxes)
                       if area > 0 and b[2] * b[3] >= params.container_share * area
                       and held[s] > 1}
        # a shape around several texts with a connector running inside it is a group
        # (TikZ ``fit`` ellipses, lanes drawn without inner boxes)
        for s_, b in enumerate(sboxes):
            if held[s_] > 1 and s_ not in containers and any(
                    contains(b, *st.pts[0], 0.5) and contains(b, *st.pts[-1], 0.5)
                    and math.dist(st.pts[0], st.pts[-1]) > 0.1 * min(b[2], b[3])
                    for st in strokes):
                containers.add(s_)
    by_shape: dict[int, list[int]] = {}
    loose: list[int] = []
    for gi, h in enumerate(holders):
        cands = [s for s in h if s not in containers]
        if cands:
            best = min(cands, key=lambda s: sboxes[s][2] * sboxes[s][3])
            by_shape.setdefault(best, []).append(gi)
        else:
            loose.append(gi)
    entries = [(sboxes[s], gis, shapes[s].kind, shapes[s]) for s, gis in by_shape.items()]
    entries += [(gboxes[gi], [gi], "text", None) for gi in loose]
    nodes: list[Node] = []
    for box, gis, shape, path in sorted(entries, key=lambda e: (round(e[0][1], 3), e[0][0])):
        items = sorted((i for gi in gis for i in groups[gi]),
                       key=lambda i: (round(texts[i].box[1] + texts[i].box[3]),
                                      texts[i].box[0]))
        nodes.append(Node(id=f"n{len(nodes)}", shape=shape, bbox=[round(v, 2) for v in box],
                          text="\n".join(texts[i].text for i in items)))
        if trace is not None:
            trace.nodes[nodes[-1].id] = NodeTrace(path, [texts[i] for i in items])
    return nodes


# -- arrowheads -------------------------------------------------------------------------

@dataclass
class _End:
    pt: Pt
    tip: bool = False        # an arrowhead (directional)
    cap: Box | None = None   # the box of whatever sits on this end (arrowhead or dot)
    out: Pt = (0.0, 0.0)     # unit direction the line leaves through this end
    caps: list[PathItem] = field(default_factory=list)  # what capped it


def _ends(p: PathItem) -> list[_End]:
    def outward(pts: list[Pt]) -> Pt:
        a = pts[0]
        for b in pts[1:]:
            d = math.dist(a, b)
            if d > 1e-9:
                return (a[0] - b[0]) / d, (a[1] - b[1]) / d
        return 0.0, 0.0

    return [_End(p.pts[0], p.marker_start, out=outward(p.pts)),
            _End(p.pts[-1], p.marker_end, out=outward(p.pts[::-1]))]


def _is_dot(p: PathItem) -> bool:
    b = p.box()
    return p.closed and p.curved and b[3] > 0 and 0.6 <= b[2] / b[3] <= 1.6


def _find_tips(lines: list[PathItem], small: list[PathItem], eps: float
               ) -> tuple[list[list[_End]], set[int]]:
    """Ends of every line, with the small paths that cap them; indices of used small paths."""
    ends = [_ends(ln) for ln in lines]
    used: set[int] = set()
    cell = max(eps, max((max(sp.box()[2], sp.box()[3]) for sp in small), default=1.0), 1e-6)
    grid: dict[tuple[int, int], list[tuple[int, int]]] = {}
    for li in range(len(lines)):
        for k in (0, 1):
            x, y = ends[li][k].pt
            grid.setdefault((int(x // cell), int(y // cell)), []).append((li, k))
    for si, sp in enumerate(small):
        sb = sp.box()
        best: tuple[float, int, int] | None = None
        x0, y0 = int((sb[0] - eps) // cell), int((sb[1] - eps) // cell)
        x1, y1 = int((sb[0] + sb[2] + eps) // cell), int((sb[1] + sb[3] + eps) // cell)
        near = [e for gx in range(x0, x1 + 1) for gy in range(y0, y1 + 1)
                for e in grid.get((gx, gy), ())]
        for li, k in sorted(near):
            if lines[li] is sp:
                continue
            d = point_distance(sb, *ends[li][k].pt)
            if d <= eps and (best is None or d < best[0]):
                best = (d, li, k)
        if best is None:
            continue
        _, li, k = best
        end = ends[li][k]
        if end.cap is not None:
            end.cap = union([end.cap, sb])
        else:
            end.cap = sb
        end.tip = end.tip or not _is_dot(sp)
        end.caps.append(sp)
        used.add(si)
    return ends, used


# -- edges ------------------------------------------------------------------------------

def _attach(nodes: list[Node], end: _End, tol: float) -> str | None:
    """The node this end reaches: within ``tol``, preferring a box straight ahead of the
    line over one beside it (an edge label sits next to its line, the target in front),
    then the nearest, then the innermost."""
    best: tuple[float, float, str] | None = None
    x, y = end.pt
    for n in nodes:
        if not n.bbox:
            continue
        b = n.bbox
        d = point_distance(b, x, y)
        if end.cap is not None:
            d = min(d, box_distance(b, end.cap))
        if d > tol:
            continue
        ahead = 1.0
        if d > 1e-9 and end.out != (0.0, 0.0):
            nx_, ny_ = min(max(x, b[0]), b[0] + b[2]), min(max(y, b[1]), b[1] + b[3])
            dist = math.hypot(nx_ - x, ny_ - y)
            if dist > 1e-9:
                ahead = ((nx_ - x) * end.out[0] + (ny_ - y) * end.out[1]) / dist
        key = (d - 0.5 * tol * max(ahead, 0.0), b[2] * b[3], n.id)
        if best is None or key[:2] < best[:2]:
            best = key
    return best[2] if best else None


def _edge(a: str | None, b: str | None, ta: bool, tb: bool) -> Edge | None:
    if not (ta or tb) and (a is None or b is None or a == b):
        return None  # an undecorated stroke (a border, a divider), not a connection
    if a is not None and a == b:
        return None  # a stroke inside one box, or a loop we cannot tell from decoration
    if ta and not tb:
        a, b = b, a
    return Edge(source=a, target=b, directed=ta != tb, both_heads=ta and tb,
                unattached=[k for k, v in (("source", a), ("target", b)) if v is None])


def _edges(lines: list[PathItem], ends: list[list[_End]], nodes: list[Node],
           params: GraphParams, trace: Trace | None = None) -> list[Edge]:
    tol = params.attach_tolerance
    att = [[_attach(nodes, e, tol) for e in pair] for pair in ends]
    # join pieces whose free (unattached, uncapped) ends meet
    parent = list(range(len(lines)))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    free = [(li, k) for li in range(len(lines)) for k in (0, 1)
            if att[li][k] is None and ends[li][k].cap is None and not ends[li][k].tip]
    joined: set[tuple[int, int]] = set()
    cell = max(params.join_tolerance, 1e-6)
    grid: dict[tuple[int, int], list[tuple[int, int]]] = {}
    for li, k in free:  # a grid of cells one tolerance wide: neighbours are 9 cells away
        p = ends[li][k].pt
        gx, gy = int(p[0] // cell), int(p[1] // cell)
        for dx in (-1, 0, 1):
            for dy in (-1, 0, 1):
                for lj, m in grid.get((gx + dx, gy + dy), ()):
                    q = ends[lj][m].pt
                    if lj != li and math.hypot(p[0] - q[0], p[1] - q[1]) \
                            <= params.join_tolerance:
                        parent[find(lj)] = find(li)
                        joined |= {(li, k), (lj, m)}
        grid.setdefault((gx, gy), []).append((li, k))
    comps: dict[int, list[int]] = {}
    for li in range(len(lines)):
        comps.setdefault(find(li), []).append(li)
    out: list[Edge] = []
    for members in sorted(comps.values(), key=min):
        spots = [(li, k) for li in members for k in (0, 1) if (li, k) not in joined]
        terms = [(att[li][k], ends[li][k].tip) for li, k in spots]
        if len(terms) == 2:
            (a, ta), (b, tb) = terms
            e = _edge(a, b, ta, tb)
            if e is not None:
                out.append(e)
                if trace is not None:
                    first, second = spots if not (ta and not tb) else spots[::-1]
                    trace.edges.append(EdgeTrace(
                        [lines[li] for li in members],
                        {"source": (lines[first[0]], first[1]),
                         "target": (lines[second[0]], second[1])},
                        {"source": ends[first[0]][first[1]].caps,
                         "target": ends[second[0]][second[1]].caps}, True))
            continue
        before = len(out)
        # a fork or bus: from every plain end to every arrowed end
        srcs = sorted({n for n, t in terms if n is not None and not t})
        tgts = sorted({n for n, t in terms if n is not None and t})
        if srcs and tgts:
            out += [Edge(source=s, target=t) for s in srcs for t in tgts if s != t]
        else:
            touched = sorted({n for n, _ in terms if n is not None})
            if 2 <= len(touched) <= 3:
                out += [Edge(source=s, target=t, directed=False)
                        for i, s in enumerate(touched) for t in touched[i + 1:]]
        if trace is not None:
            trace.edges += [EdgeTrace([lines[li] for li in members], {}, {}, False)
                            for _ in out[before:]]
    return out


def build_graph(texts: list[TextItem], paths: list[PathItem],
                params: GraphParams | None = None, trace: Trace | None = None) -> Graph:
    """The graph of one drawing (see the module notes for the rules); ``trace``, when
    given, is filled with the items behind each node and edge."""
    params = params or GraphParams()
    texts = join_words(dedupe([t for t in texts if t.text.strip()]))
    fs = statistics.median([t.size for t in texts]) if texts else params.svg_default_font_size
    tip_max = params.arrow_tip_em * fs
    candidates = [p for p in paths if len(p.pts) >= 2]
    small = [p for p in candidates if _diag(p.box()) <= tip_max and not p.straight
             and not any(contains(p.box(), t.box[0] + t.box[2] / 2, t.box[1] + t.box[3] / 2)
                         for t in texts)]
    small_ids = {id(p) for p in small}
    lines = [p for p in candidates if not p.closed and id(p) not in small_ids]
    # lengths are set for a drawing at the default font size and scale with its fonts (a
    # Graphviz SVG scaled ×4 has 4× the distances)
    unit = fs / params.svg_default_font_size if texts else 1.0
    params = params.model_copy(update={"attach_tolerance": params.attach_tolerance * unit,
                                       "join_tolerance": params.join_tolerance * unit})
    ends, used = _find_tips(lines, small, eps=max(1.0 * unit, 0.2 * tip_max))
    used_ids = {id(small[i]) for i in used}
    # small paths that capped nothing are ordinary strokes or shapes again
    extra = [p for p in small if id(p) not in used_ids and not p.closed]
    if extra:
        lines2 = lines + extra
        ends += [_ends(p) for p in extra]
        lines = lines2
    shapes = [p for p in candidates if p.closed and id(p) not in used_ids]
    nodes = _nodes(texts, shapes, params, lines, trace)
    return Graph(nodes=nodes, edges=_edges(lines, ends, nodes, params, trace))
