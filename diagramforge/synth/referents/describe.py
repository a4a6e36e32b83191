"""Write the cheapest description that singles an element out, and prove it by reading it
back.

Descriptions are tried in order of cost, by *kind* (what a reader needs to look at):

1. ``label`` — its text, when no other node has it: *the box "Load"*;
2. ``shape_colour`` — its shape, colour, emptiness (with its text when that is repeated):
   *the red diamond*, *the empty circle*;
3. ``container`` — the labelled container it sits in: *the empty box in "Pool A"*;
4. ``neighbour`` — the nearest element on one side of a labelled node: *the empty box
   below "Artist:"*;
5. ``position`` — its place among similar elements, rows and columns:
   *the leftmost diamond*, *the third box from the left in the top row*.

Edges: ``edge_label`` (*the arrow labelled "yes"*) or ``edge_ends`` — by their ends'
descriptions, which need not be unique on their own when the edge is (*the arrow from the
empty box to "Clean"*).

Every candidate is rendered to English, parsed back (:func:`.grammar.parse`) and resolved
(:func:`.resolve.resolve`); it is kept only when it means exactly the intended element. An
element with no such description gets none — the sampler then picks another target.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from diagramforge.formats.scenes import Element, Scene, noun_word, one_line
from diagramforge.synth.referents.grammar import DIRECTIONS, Line, Query, Rank, parse, render
from diagramforge.synth.referents.resolve import (
    DEFAULT,
    Rules,
    clusters,
    inside_box,
    matches,
    norm,
    resolve,
    side_gap,
)

NODE_KINDS = ("label", "shape_colour", "container", "neighbour", "position")
EDGE_KINDS = ("edge_label", "edge_ends")
KINDS = NODE_KINDS + EDGE_KINDS


@dataclass(frozen=True)
class Description:
    text: str
    kind: str
    query: Query


def label_form(text: str, rules: Rules) -> tuple[str, bool] | None:
    """How a text is quoted: whole, or its first words with an ellipsis when it is longer
    than ``max_label_chars``; ``None`` when it cannot be quoted (it holds a double quote)."""
    t = one_line(text)
    if not t or any(c in t for c in '"“”…'):
        return None
    if len(t) <= rules.max_label_chars:
        return t, False
    words, out = t.split(), ""
    for w in words:
        if len(out) + len(w) + 1 > rules.max_label_chars * 0.6 and out:
            break
        out = f"{out} {w}".strip()
    return out, True


class Describer:
    """Descriptions of the elements of one scene (memoised per element)."""

    def __init__(self, scene: Scene, rules: Rules = DEFAULT) -> None:
        self.scene, self.rules = scene, rules
        self.m = rules.position_margin * scene.median_size()
        self._memo: dict[str, Description | None] = {}
        counts: dict[str, int] = {}
        for n in scene.nodes.values():
            counts[norm(n.text)] = counts.get(norm(n.text), 0) + 1
        self._anchorable = {n.id for n in scene.nodes.values()
                            if n.text and counts[norm(n.text)] == 1
                            and label_form(n.text, rules) is not None}

    # -- checking ---------------------------------------------------------------------
    def means(self, q: Query, target: str) -> str | None:
        """The text of ``q`` when, read back, it means ``target`` alone."""
        text = render(q)
        back = parse(text)
        if back is None or resolve(back, self.scene, self.rules) != {target}:
            return None
        return text

    def describe(self, eid: str) -> Description | None:
        if eid not in self._memo:
            if eid in self.scene.nodes:
                n = self.scene.nodes[eid]
                self._memo[eid] = self._node(n) if n.nameable else None
            elif eid in self.scene.edges:
                self._memo[eid] = self._edge(self.scene.edges[eid])
            else:
                self._memo[eid] = None
        return self._memo[eid]

    # -- nodes ------------------------------------------------------------------------
    def anchor(self, n: Element) -> Query | None:
        """A node as an anchor: its text alone (only uniquely labelled nodes anchor)."""
        if n.id not in self._anchorable:
            return None
        label, prefix = label_form(n.text, self.rules)  # type: ignore[misc]
        return Query(label=label, prefix=prefix)

    def _bases(self, t: Element) -> list[Query]:
        """Attribute-only queries for ``t``, cheapest first."""
        noun = None if t.cls == "shape" else t.cls
        q0 = Query(noun=noun, noun_word=noun_word(t.cls, t.bbox) if noun else None)
        if t.text:
            lab = label_form(t.text, self.rules)
            idents = [replace(q0, label=lab[0], prefix=lab[1])] if lab else [q0]
        else:
            idents = [q0, replace(q0, empty=True)]
        # its colour's exact name when it has one ("light red"), else its family ("red")
        colour = None if t.shade is None else (t.shade.name or t.shade.family)
        return idents + ([replace(q, colour=colour) for q in idents] if colour else [])

    def _node(self, t: Element) -> Description | None:
        bases = self._bases(t)
        for q in bases:
            text = self.means(q, t.id)
            if text:
                kind = "label" if q.label is not None and q.colour is None \
                    else "shape_colour"
                return Description(text, kind, q)
        for kind, queries in (("container", self._in_containers(t, bases)),
                              ("neighbour", self._by_neighbours(t, bases)),
                              ("position", self._by_position(t, bases))):
            for q in queries:
                text = self.means(q, t.id)
                if text:
                    return Description(text, kind, q)
        return None

    def containers(self, t: Element) -> list[Element]:
        """Labelled nodes whose box holds ``t``'s, innermost first."""
        if t.bbox is None:
            return []
        out = [a for a in self.scene.nodes.values() if a.id != t.id and a.bbox is not None
               and a.id in self._anchorable and inside_box(t.bbox, a.bbox, self.m)]
        return sorted(out, key=lambda a: a.bbox[2] * a.bbox[3])  # type: ignore[index]

    def _in_containers(self, t: Element, bases: list[Query]):  # noqa: ANN202 - generator
        for a in self.containers(t)[:2]:
            aq = self.anchor(a)
            for q in bases:
                yield replace(q, inside=aq)

    def _by_neighbours(self, t: Element, bases: list[Query]):  # noqa: ANN202 - generator
        if t.bbox is None:
            return
        for d in DIRECTIONS:
            near = []
            for a in self.scene.nodes.values():
                if a.id == t.id or a.id not in self._anchorable or a.bbox is None \
                        or inside_box(t.bbox, a.bbox, self.m) or inside_box(a.bbox, t.bbox, self.m):
                    continue
                g = side_gap(t, a, d, self.m)
                if g is not None:
                    near.append((g, a.id, a))
            for _, _, a in sorted(near, key=lambda x: (x[0], x[1]))[:self.rules.anchors_per_side]:
                aq = self.anchor(a)
                for q in bases:
                    yield replace(q, near=(d, aq))

    def _by_position(self, t: Element, bases: list[Query]):  # noqa: ANN202 - generator
        if t.bbox is None:
            return
        scopes: list[Query | None] = [None]
        scopes += [self.anchor(a) for a in self.containers(t)[:1]]
        top = self.rules.max_ordinal
        for scope in scopes:
            for base in bases[:3]:
                q = replace(base, inside=scope)
                cands = matches(q, self.scene, self.rules)
                if t.id not in {c.id for c in cands} or len(cands) < 2 \
                        or any(c.bbox is None for c in cands):
                    continue
                for axis in ("x", "y"):
                    for end in (False, True):
                        yield replace(q, rank=Rank(axis, 1, end))
                for line_axis, along in (("row", "x"), ("column", "y")):
                    rows = clusters(cands, line_axis, self.m)
                    if rows is None:
                        continue
                    i = next(k for k, r in enumerate(rows) if t in r)
                    k = 0 if along == "x" else 1
                    row = sorted(rows[i], key=lambda c: c.centre[k])  # type: ignore[index]
                    j = row.index(t)
                    lines: list[Line | None] = [None] if len(rows) == 1 else []
                    if len(rows) > 1:
                        near_end = i + 1 <= len(rows) - i
                        n = i + 1 if near_end else len(rows) - i
                        if n <= self.rules.max_line_ordinal:
                            lines.append(Line(line_axis, n, not near_end))
                        if len(rows) == 3 and i == 1:
                            lines.append(Line(line_axis, 0))
                    near_start = j + 1 <= len(row) - j
                    n = j + 1 if near_start else len(row) - j
                    if n > top:
                        continue
                    for ln in lines:
                        yield replace(q, line=ln, rank=Rank(along, n, not near_start))

    # -- edges ------------------------------------------------------------------------
    def _end_options(self, n: Element) -> list[tuple[Query, bool]]:
        """Ways to name an edge's end, with whether each is *firm* (means that node alone):
        its text, its attributes, its unique description."""
        out: list[tuple[Query, bool]] = []
        if not n.nameable:
            return out
        aq = self.anchor(n)
        if aq is not None:
            out.append((aq, True))
        else:
            lab = label_form(n.text, self.rules) if n.text else None
            if lab is not None:
                out.append((Query(label=lab[0], prefix=lab[1]), False))
            out += [(q, False) for q in self._bases(n)[:2] if q.label is None]
        d = self.describe(n.id)
        if d is not None and all(d.query != q for q, _ in out):
            out.append((d.query, True))
        return out

    def _edge(self, e: Element) -> Description | None:
        base = Query(kind="edge", arrow=e.directed)
        lab = label_form(e.text, self.rules) if e.text else None
        if lab is not None:
            q = replace(base, label=lab[0], prefix=lab[1])
            text = self.means(q, e.id)
            if text:
                return Description(text, "edge_label", q)
        s, t = self.scene.nodes.get(e.source or ""), self.scene.nodes.get(e.target or "")
        if s is None or t is None:
            return None
        # both ends firm when they can be; else at least one: "the arrow from the empty box
        # to "Clean"" is found from "Clean", "from the icon to the icon" from nowhere
        pairs = [(2 - fa - fb, len(render(a)) + len(render(b)), a, b)
                 for a, fa in self._end_options(s) for b, fb in self._end_options(t)
                 if fa or fb]
        pairs.sort(key=lambda p: p[:2])
        for _, _, a, b in pairs:
            for with_label in ((False, True) if lab else (False,)):
                q = replace(base, ends=(a, b), between=not e.directed)
                if with_label:
                    q = replace(q, label=lab[0], prefix=lab[1])  # type: ignore[index]
                text = self.means(q, e.id)
                if text:
                    return Description(text, "edge_ends", q)
        return None
