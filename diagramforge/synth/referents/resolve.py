"""Read a description against a scene: which elements could it mean?

Semantics, chosen so that a description the resolver calls unique is one a person can
follow from the picture:

* attributes filter: the noun's class (a node of unknown class may be anything), the
  text (case and spacing ignored; a quoted start ending in an ellipsis matches texts that
  start so), empty, a colour word (an element of uncertain colour matches every word);
* ``in "X"``: inside the box of a node the anchor phrase means;
* ``below "X"`` (above, to the left/right of): the *nearest* candidate on that side of the
  anchor that overlaps it across the other axis (by a quarter of the narrower box) —
  several when others are about as near;
* rows and columns: candidate centres clustered along the axis; when the clusters are not
  clean (a staggered layout), the row is not defined and every candidate stays; "the
  middle row" needs exactly three;
* ordinals and extremes: order of centres along the axis; elements about level with the
  n-th one (within the margin) tie with it.

"About" is ``position_margin`` × the typical node size (:meth:`Scene.median_size`). An
anchor phrase that means several nodes means them all (the union), so a description with
an ambiguous anchor resolves to several elements and is rejected. Geometry a format could
not give (TikZ nodes placed relative to others) makes every geometric filter keep all its
candidates.
"""

from __future__ import annotations

from diagramforge.formats.scenes import Element, Scene
from diagramforge.synth.referents.grammar import Line, Query, Rank
from diagramforge.synth.referents.settings import ReferentParams

Rules = ReferentParams
"""The numbers descriptions are written and read with (the ``referents`` params section)."""
DEFAULT = Rules()


def norm(text: str) -> str:
    return " ".join(text.split()).casefold()


def _text_ok(el: Element, q: Query) -> bool:
    if q.empty and el.text:
        return False
    if q.label is None:
        return True
    t, want = norm(el.text), norm(q.label)
    return t.startswith(want) if q.prefix else t == want


def _attrs(q: Query, els: list[Element]) -> list[Element]:
    out = []
    for el in els:
        if q.noun is not None and el.cls not in (q.noun, "shape"):  # "shape": could be any
            continue
        if not _text_ok(el, q):
            continue
        if q.colour is not None and (el.shade is None or not el.shade.matches(q.colour)):
            continue
        out.append(el)
    return out


def inside_box(inner: tuple, outer: tuple, tol: float) -> bool:
    return (inner[0] >= outer[0] - tol and inner[1] >= outer[1] - tol
            and inner[0] + inner[2] <= outer[0] + outer[2] + tol
            and inner[1] + inner[3] <= outer[1] + outer[3] + tol
            and inner[2] * inner[3] < outer[2] * outer[3])


def side_gap(el: Element, a: Element, d: str, m: float) -> float | None:
    """Gap from anchor ``a`` to ``el`` when ``el`` lies on side ``d`` of it, overlapping it
    across the other axis by a quarter of the narrower of the two (boxes touching at a
    corner are diagonal, not beside each other; points — TikZ nodes of unknown size —
    within the margin); else ``None``."""
    b, c = el.bbox, a.bbox
    assert b is not None and c is not None
    k = 0 if d in ("below", "above") else 1  # the axis across which they must overlap
    overlap = min(b[k] + b[k + 2], c[k] + c[k + 2]) - max(b[k], c[k])
    narrower = min(b[k + 2], c[k + 2])
    if overlap < (0.25 * narrower if narrower > 0 else -m):
        return None
    if d in ("below", "above"):
        gap = b[1] - (c[1] + c[3]) if d == "below" else c[1] - (b[1] + b[3])
    else:
        gap = b[0] - (c[0] + c[2]) if d == "right of" else c[0] - (b[0] + b[2])
    return gap if gap >= -m else None


def nearest(cands: list[Element], a: Element, d: str, m: float) -> list[Element]:
    """The candidates nearest to anchor ``a`` on side ``d`` (ties within ``m``)."""
    if a.bbox is None or any(c.bbox is None for c in cands):
        return [c for c in cands if c.id != a.id]
    gaps = []
    for c in cands:
        if c.id == a.id or inside_box(c.bbox, a.bbox, m) or inside_box(a.bbox, c.bbox, m):  # type: ignore[arg-type]
            continue
        g = side_gap(c, a, d, m)
        if g is not None:
            gaps.append((g, c))
    if not gaps:
        return []
    best = min(g for g, _ in gaps)
    return [c for g, c in gaps if g <= best + m]


def clusters(cands: list[Element], axis: str, m: float) -> list[list[Element]] | None:
    """Rows (``axis="row"``: by centre y) or columns of the candidates, in order; ``None``
    when they are not clean: a gap that is neither clearly within a row (≤ 2 margins) nor
    clearly between rows (> 4 margins), or a row drifting over more than 2 margins."""
    k = 1 if axis == "row" else 0
    pts = sorted(((c.centre[k], c) for c in cands), key=lambda p: p[0])  # type: ignore[index]
    out: list[list[Element]] = []
    prev = start = 0.0
    for v, c in pts:
        if out and v - prev <= 2 * m:
            if v - start > 2 * m:
                return None
            out[-1].append(c)
        elif out and v - prev <= 4 * m:
            return None
        else:
            out.append([c])
            start = v
        prev = v
    return out


def _pick_line(cands: list[Element], ln: Line, m: float) -> list[Element]:
    if any(c.bbox is None for c in cands):
        return cands
    rows = clusters(cands, ln.axis, m)
    if rows is None:
        return cands
    if ln.n == 0:  # "the middle row" is plain to see among three rows only
        return rows[1] if len(rows) == 3 else cands
    if ln.n > len(rows):
        return []
    return rows[-ln.n] if ln.from_end else rows[ln.n - 1]


def _pick_rank(cands: list[Element], r: Rank, m: float) -> list[Element]:
    if any(c.bbox is None for c in cands):
        return cands
    k = 0 if r.axis == "x" else 1
    sign = -1 if r.from_end else 1
    pts = sorted(((sign * c.centre[k], c) for c in cands), key=lambda p: p[0])  # type: ignore[index]
    if r.n > len(pts):
        return []
    v = pts[r.n - 1][0]
    tied = [c for x, c in pts if abs(x - v) <= m]
    if r.n == 1 and len(tied) == 1:  # an extreme must be one by its near edge as well
        e = 0 if r.axis == "x" else 1

        def edge(c: Element) -> float:
            b = c.bbox
            return -(b[e] + b[e + 2]) if r.from_end else b[e]  # type: ignore[index]

        first = min(edge(c) for c in cands)
        by_edge = [c for c in cands if edge(c) <= first + m]
        if by_edge != tied:
            return list({c.id: c for c in tied + by_edge}.values())
    return tied


def resolve(q: Query, scene: Scene, rules: Rules = DEFAULT) -> set[str]:
    """Ids of the elements ``q`` may mean in ``scene`` (exactly one for a good description)."""
    return {e.id for e in matches(q, scene, rules)}


def matches(q: Query, scene: Scene, rules: Rules) -> list[Element]:
    m = rules.position_margin * scene.median_size()
    if q.kind == "edge":
        return _edges(q, scene, rules)
    cands = _attrs(q, list(scene.nodes.values()))
    if q.inside is not None:
        outer = [a for a in matches(q.inside, scene, rules) if a.bbox is not None]
        cands = [c for c in cands if c.bbox is None or any(
            c.id != a.id and inside_box(c.bbox, a.bbox, m) for a in outer)]  # type: ignore[arg-type]
    if q.line is not None:
        cands = _pick_line(cands, q.line, m)
    if q.rank is not None:
        cands = _pick_rank(cands, q.rank, m)
    if q.near is not None:
        d, aq = q.near
        hits: dict[str, Element] = {}
        for a in matches(aq, scene, rules):
            hits.update((c.id, c) for c in nearest(cands, a, d, m))
        cands = list(hits.values())
    return cands


def _edges(q: Query, scene: Scene, rules: Rules) -> list[Element]:
    out = []
    ends = None
    if q.ends is not None:
        ends = tuple({e.id for e in matches(x, scene, rules)} for x in q.ends)
    for e in scene.edges.values():
        if q.arrow and not e.directed:
            continue
        if q.label is not None and not _text_ok(e, q):
            continue
        if q.empty and e.text:
            continue
        if ends is not None:
            s, t = ends
            fwd = e.source in s and e.target in t
            back = e.source in t and e.target in s
            if not (fwd or (back and (q.between or not e.directed))):
                continue
        out.append(e)
    return out
