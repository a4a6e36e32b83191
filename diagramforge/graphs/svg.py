"""Structure graph of an SVG diagram, after DiagramEval's rule-based node extraction.

Nodes are text: text items whose baselines differ by less than K × font size and whose x
spans overlap by more than τ (of the shorter span) are one node.  A closed shape (rect,
circle, ellipse, polygon) around a node's text gives its bbox, and texts inside the same
innermost shape are one node (a title and its subtitle); a shape around other text-holding
shapes, or covering half the drawing, is a container or background and gives no bbox.
Edges are lines, polylines and open paths that carry a marker or whose two ends touch two
different node boxes; direction comes from the markers (``marker-end`` forward,
``marker-start`` alone backward, both or none: undirected).

Limits, on purpose for now: only ``translate`` transforms are applied (scale, rotate and
matrix are ignored); text width is estimated as 0.6 em per character (no font metrics);
arrowheads drawn as separate polygons (Graphviz) are not read as direction; edge labels
become nodes.  DiagramEval's LLM refinement of nodes is not reproduced.
"""

from __future__ import annotations

import re

from lxml import etree

from diagramforge.graphs.model import Edge, Graph, Node
from diagramforge.graphs.params import GraphParams

_PARSER = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False,
                          huge_tree=False, remove_comments=True)
_NUM = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")
_SKIP = {"defs", "marker", "symbol", "clipPath", "mask", "pattern", "style", "script",
         "metadata", "title", "desc"}
Box = list[float]


def _local(tag: object) -> str:
    return etree.QName(tag).localname if isinstance(tag, str) else ""


def _style(el: etree._Element, key: str) -> str | None:
    m = re.search(rf"(?:^|;)\s*{key}\s*:\s*([^;]+)", el.get("style") or "")
    return m.group(1).strip() if m else el.get(key)


def _f(value: str | None, default: float = 0.0) -> float:
    m = _NUM.match((value or "").strip())
    return float(m.group()) if m else default


def _translate(el: etree._Element) -> tuple[float, float]:
    tx = ty = 0.0
    for m in re.finditer(r"translate\(\s*([^)]*)\)", el.get("transform") or ""):
        nums = [float(n) for n in _NUM.findall(m.group(1))]
        tx += nums[0] if nums else 0.0
        ty += nums[1] if len(nums) > 1 else 0.0
    return tx, ty


def _path_points(d: str) -> tuple[list[tuple[float, float]], bool]:
    """End points of every segment of a path (control points skipped) and whether it closes."""
    pts: list[tuple[float, float]] = []
    x = y = sx = sy = 0.0
    closed = False
    arity = {"M": 2, "L": 2, "T": 2, "H": 1, "V": 1, "C": 6, "S": 4, "Q": 4, "A": 7, "Z": 0}
    for cmd, args in re.findall(r"([MmLlHhVvCcSsQqTtAaZz])([^MmLlHhVvCcSsQqTtAaZz]*)", d):
        up = cmd.upper()
        if up == "Z":
            closed = True
            x, y = sx, sy
            continue
        nums = [float(n) for n in _NUM.findall(args)]
        n = arity[up]
        for k in range(0, len(nums) - n + 1, n):
            seg = nums[k:k + n]
            rel = cmd.islower()
            if up == "H":
                x = x + seg[0] if rel else seg[0]
            elif up == "V":
                y = y + seg[0] if rel else seg[0]
            else:
                x, y = (x + seg[-2], y + seg[-1]) if rel else (seg[-2], seg[-1])
            if up == "M" and k == 0:
                sx, sy = x, y
            pts.append((x, y))
    return pts, closed


def _bbox(pts: list[tuple[float, float]]) -> Box:
    xs, ys = [p[0] for p in pts], [p[1] for p in pts]
    return [min(xs), min(ys), max(xs) - min(xs), max(ys) - min(ys)]


def _union(boxes: list[Box]) -> Box:
    return _bbox([p for b in boxes for p in ((b[0], b[1]), (b[0] + b[2], b[1] + b[3]))])


def _contains(box: Box, x: float, y: float) -> bool:
    return box[0] <= x <= box[0] + box[2] and box[1] <= y <= box[1] + box[3]


def _near(box: Box, x: float, y: float, tol: float) -> float | None:
    dx = max(box[0] - x, 0.0, x - box[0] - box[2])
    dy = max(box[1] - y, 0.0, y - box[1] - box[3])
    d = (dx * dx + dy * dy) ** 0.5
    return d if d <= tol else None


class _Collector:
    def __init__(self, default_fs: float) -> None:
        self.default_fs = default_fs
        self.texts: list[tuple[str, Box, float]] = []  # text, box, font size
        self.shapes: list[Box] = []
        self.lines: list[tuple[list[tuple[float, float]], bool, bool]] = []  # pts, start, end

    def walk(self, el: etree._Element, ox: float, oy: float, fs: float) -> None:
        tag = _local(el.tag)
        if tag in _SKIP:
            return
        tx, ty = _translate(el)
        ox, oy = ox + tx, oy + ty
        fs = _f(_style(el, "font-size"), fs) or fs
        if tag == "text":
            self._text(el, ox, oy, fs)
            return
        self._shape_or_line(el, tag, ox, oy)
        for child in el:
            self.walk(child, ox, oy, fs)

    def _text(self, el: etree._Element, ox: float, oy: float, fs: float) -> None:
        spans = [s for s in el if _local(s.tag) == "tspan" and s.get("y") is not None]
        items = [(s, _f(_style(s, "font-size"), fs) or fs) for s in spans] or [(el, fs)]
        for item, size in items:
            text = " ".join("".join(item.itertext()).split())
            if not text:
                continue
            x = _f(item.get("x"), _f(el.get("x"))) + ox
            y = _f(item.get("y"), _f(el.get("y"))) + oy
            w = 0.6 * size * len(text)
            anchor = _style(item, "text-anchor") or _style(el, "text-anchor") or "start"
            x -= {"middle": w / 2, "end": w}.get(anchor, 0.0)
            self.texts.append((text, [x, y - 0.8 * size, w, size], size))

    def _shape_or_line(self, el: etree._Element, tag: str, ox: float, oy: float) -> None:
        g = el.get
        if tag == "rect":
            self.shapes.append([_f(g("x")) + ox, _f(g("y")) + oy, _f(g("width")),
                                _f(g("height"))])
        elif tag in ("circle", "ellipse"):
            rx = _f(g("r")) if tag == "circle" else _f(g("rx"))
            ry = _f(g("r")) if tag == "circle" else _f(g("ry"))
            self.shapes.append([_f(g("cx")) + ox - rx, _f(g("cy")) + oy - ry, 2 * rx, 2 * ry])
        elif tag in ("polygon", "polyline", "line", "path"):
            if tag == "line":
                pts = [(_f(g("x1")), _f(g("y1"))), (_f(g("x2")), _f(g("y2")))]
                closed = False
            elif tag == "path":
                pts, closed = _path_points(g("d") or "")
            else:
                nums = [float(n) for n in _NUM.findall(g("points") or "")]
                pts, closed = list(zip(nums[::2], nums[1::2], strict=False)), tag == "polygon"
            pts = [(x + ox, y + oy) for x, y in pts]
            if len(pts) < 2:
                return
            if closed:
                self.shapes.append(_bbox(pts))
            else:
                start = (_style(el, "marker-start") or "none") != "none"
                end = (_style(el, "marker-end") or "none") != "none"
                self.lines.append((pts, start, end))


def _merge_lines(texts: list[tuple[str, Box, float]], k: float, tau: float) -> list[list[int]]:
    """Groups of text items DiagramEval would call one node (union-find over pairs)."""
    parent = list(range(len(texts)))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for i, (_, a, fa) in enumerate(texts):
        for j in range(i + 1, len(texts)):
            _, b, fb = texts[j]
            if abs((a[1] + a[3]) - (b[1] + b[3])) >= k * max(fa, fb):
                continue
            overlap = min(a[0] + a[2], b[0] + b[2]) - max(a[0], b[0])
            if overlap > tau * min(a[2], b[2]):
                parent[find(j)] = find(i)
    groups: dict[int, list[int]] = {}
    for i in range(len(texts)):
        groups.setdefault(find(i), []).append(i)
    return list(groups.values())


def svg_graph(svg: str | bytes, params: GraphParams | None = None) -> Graph:
    """Graph of an SVG drawing (see the module notes for what is and is not read)."""
    params = params or GraphParams()
    raw = svg.encode() if isinstance(svg, str) else svg
    if re.search(rb"<!DOCTYPE|<!ENTITY", raw, re.I):
        raise ValueError("DOCTYPE/ENTITY declarations are refused")
    root = etree.fromstring(raw, _PARSER)
    col = _Collector(params.default_font_size)
    col.walk(root, 0.0, 0.0, params.default_font_size)
    groups = _merge_lines(col.texts, params.line_merge_k, params.line_merge_tau)
    centres = [_union([col.texts[i][1] for i in g]) for g in groups]
    mid = [(b[0] + b[2] / 2, b[1] + b[3] / 2) for b in centres]
    holders = [[s for s, box in enumerate(col.shapes) if _contains(box, *m)] for m in mid]
    # a shape holding another text-holding shape is a container (a lane, the background)
    inner = {s for h in holders for s in h}
    containers = {s for s in inner for t in inner if s != t
                  and _contains(col.shapes[s], col.shapes[t][0], col.shapes[t][1])
                  and _contains(col.shapes[s], col.shapes[t][0] + col.shapes[t][2],
                                col.shapes[t][1] + col.shapes[t][3])}
    # a shape covering half the drawing or more is a background or frame, never a node box
    if col.shapes:
        whole = _union(col.shapes + [t[1] for t in col.texts])
        containers |= {s for s, b in enumerate(col.shapes)
                       if b[2] * b[3] >= 0.5 * whole[2] * whole[3]}
    by_shape: dict[int, list[int]] = {}
    loose: list[int] = []
    for gi, h in enumerate(holders):
        cands = [s for s in h if s not in containers]
        if cands:
            best = min(cands, key=lambda s: col.shapes[s][2] * col.shapes[s][3])
            by_shape.setdefault(best, []).append(gi)
        else:
            loose.append(gi)
    entries = [(col.shapes[s], gis, "shape") for s, gis in by_shape.items()]
    entries += [(centres[gi], [gi], "text") for gi in loose]
    nodes: list[Node] = []
    for box, gis, shape in sorted(entries, key=lambda e: (e[0][1], e[0][0])):
        items = sorted((i for gi in gis for i in groups[gi]),
                       key=lambda i: (round(col.texts[i][1][1]), col.texts[i][1][0]))
        nodes.append(Node(id=f"n{len(nodes)}", shape=shape, bbox=[round(v, 2) for v in box],
                          text="\n".join(col.texts[i][0] for i in items)))
    return Graph(nodes=nodes, edges=_edges(col.lines, nodes, params.attach_tolerance))


def _attach(nodes: list[Node], x: float, y: float, tol: float) -> str | None:
    hits = [(d, n.bbox[2] * n.bbox[3], n.id) for n in nodes if n.bbox
            for d in [_near(n.bbox, x, y, tol)] if d is not None]
    return min(hits)[2] if hits else None


def _edges(lines: list[tuple[list[tuple[float, float]], bool, bool]], nodes: list[Node],
           tol: float) -> list[Edge]:
    edges = []
    for pts, start, end in lines:
        a, b = _attach(nodes, *pts[0], tol), _attach(nodes, *pts[-1], tol)
        if not (start or end) and (a is None or b is None or a == b):
            continue  # an undecorated stroke (a border, a divider), not a connection
        if a is not None and a == b:
            continue  # a stroke inside one box
        directed = start != end
        if start and not end:
            a, b = b, a
        edges.append(Edge(source=a, target=b, directed=directed,
                          unattached=[k for k, v in (("source", a), ("target", b))
                                      if v is None]))
    return edges
