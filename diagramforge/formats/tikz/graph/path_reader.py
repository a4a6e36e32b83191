"""The path reader: one picture's statements into nodes and edges (nodes, paths, ``edge``
operations, matrices, trees, chains, labels), with each node's place from the source
(:mod:`.layout`)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from diagramforge.formats.tikz.graph import layout as lay
from diagramforge.formats.tikz.graph.lexer import _tokens, _unbrace, split_top
from diagramforge.formats.tikz.graph.options import _direction, _drawn, _expand, _shape
from diagramforge.formats.tikz.graph.statements import _Reader, _Stmt
from diagramforge.formats.tikz.graph.text import latex_text
from diagramforge.graphs.model import Edge, Node

_LABEL_POS = re.compile(r"^(?:midway|pos|near start|near end|very near start|very near end|"
                        r"at start|at end|sloped|auto|swap|')\b")
_PLACEMENT = re.compile(r"^(?:above|below|left|right)(?:\s+(?:left|right))?(?:\s*=.*)?$|"
                        r"^(?:anchor|font|text|inner sep|outer sep|inner xsep|inner ysep|"
                        r"scale|xshift|yshift|align|text width|fill|text opacity|"
                        r"fill opacity|opacity|node font|overlay)\s*(?:=.*)?$|^draw\s*=\s*none$")
"""Keys that only place or dress a node's text (no shape, no frame): a text placed so right
after a path's end is that segment's label, as ``midway`` is."""


def _placement_only(keys: list[str]) -> bool:
    """Whether a node's keys only place or dress its text (and say where at all)."""
    keys = [" ".join(k.split()) for k in keys if k.strip()]
    return bool(keys) and all(_PLACEMENT.match(k) for k in keys) and any(
        re.match(r"^(?:above|below|left|right|anchor)\b", k) for k in keys)


@dataclass
class _Point:
    node: str | None  # the node it names, or None for a waypoint
    xy: tuple[float, float] | None = None  # where it is, when the source says


@dataclass
class _Picture:
    nodes: dict[str, Node] = field(default_factory=dict)
    edges: list[Edge] = field(default_factory=list)
    coordinates: set[str] = field(default_factory=set)
    declared: set[str] = field(default_factory=set)
    anon: int = 0
    places: dict[str, tuple[float, float]] = field(default_factory=dict)
    sizes: dict[str, tuple[float, float]] = field(default_factory=dict)
    chain: str | None = None  # the last node put ``on chain``


_INITIAL_KEYS = {"initial", "initial by arrow", "initial left", "initial right",
                 "initial above", "initial below"}


class _PathReader:
    """Reads the statements of one picture into nodes and edges."""

    def __init__(self, reader: _Reader, pic: _Picture) -> None:
        self.r = reader
        self.pic = pic
        self.in_force: list[str] = []   # the statement's inherited options
        self.frame: lay.Frame | None = lay.Frame()
        self.at: str | None = None      # the last node's ``at`` coordinate
        self.unplaced = False           # nodes read now get no place (matrix bodies)
        self.depth = 0                  # tree level being read

    # -- nodes ---------------------------------------------------------------------------
    def _new_node(self, name: str | None, keys: list[str], text: str,
                  here: tuple[float, float] | None = None, blank: bool = False
                  ) -> str | None:
        """The node's id (``None`` for a coordinate, or an unnamed text-less node — unless
        ``blank``: a tree child's own node, which its children's edges hang from)."""
        styles = self.r.styles
        shape = _shape(keys, styles)
        if shape == "coordinate":
            if name:
                self.pic.coordinates.add(name)
            return None
        label = latex_text(text)
        if name is None:
            if not label and not blank:
                return None
            self.pic.anon += 1
            name = f"_{self.pic.anon}"
        self.pic.nodes[name] = Node(id=name, text=label, shape=shape)
        self._initial(name, keys)
        if not self.unplaced:
            self._place(name, keys, label, shape, here)
        return name

    def _place(self, name: str, keys: list[str], label: str, shape: str,
               here: tuple[float, float] | None) -> None:
        """Where the node lands: a positioning key, else its ``at``, else ``here`` (the
        path's current point); shifted by its anchor."""
        nk = _expand(keys, self.r.styles)
        allk = _expand(self.in_force, self.r.styles) + nk
        own = lay.size(allk, label, shape)
        if any(k.strip() == "on chain" or k.strip().startswith("on chain=") for k in nk):
            going = "right"
            for k in allk:
                m = re.search(r"start chain\s*=.*going\s+(above|below|left|right)", k)
                if m:
                    going = m.group(1)
            if self.pic.chain is not None:
                nk = nk + [f"{going}=of {self.pic.chain}"]
            self.pic.chain = name
        p = lay.placed(allk, nk, own, self.pic.places, self.pic.sizes)
        if p is False:
            p = lay.point(self._expand_macros(self.at), self.pic.places, self.frame) \
                if self.at is not None else here
            if p is not None:
                off = lay.anchor_offset(nk, own)
                p = (p[0] + off[0], p[1] + off[1])
        if p is None:
            return
        shift = lay.frame([k for k in nk if k.strip().startswith(("xshift", "yshift"))])
        if shift is None:
            return
        self.pic.places[name] = shift.apply(p)
        self.pic.sizes[name] = own

    def _expand_macros(self, coord: str) -> str:
        """A coordinate with the document's constant macros (``\\newcommand{\\n}{3}``)
        written out, so ``{(\\n-1)*2}`` can be computed."""
        if "\\" not in coord:
            return coord
        return re.sub(r"\\([A-Za-z@]+)", lambda m: self.r.macros.get(m.group(1), m.group(0)),
                      coord)

    def _initial(self, name: str, keys: list[str]) -> None:
        """An automaton state with ``initial`` has the arrow TikZ draws into it, from the
        ``initial text`` ("start" unless set): a text and a connector on the page, so a node
        and an edge of the graph, as in every other picture."""
        opts = {k.partition("=")[0].strip(): k.partition("=")[2].strip()
                for k in _expand(keys, self.r.styles)}
        if not _INITIAL_KEYS & set(opts):
            return
        text = latex_text(_unbrace(opts.get("initial text", "start")))
        if text:
            self.pic.nodes[f"{name}:initial"] = Node(id=f"{name}:initial", text=text,
                                                     shape="text")
            self.pic.edges.append(Edge(source=f"{name}:initial", target=name))

    def resolve(self, coord: str) -> str | None:
        c = coord.strip()
        m = re.fullmatch(r"([^$|]+?)\.[\w ]+\s*(?:\|-|-\|)\s*[^|]+", c)
        if m:  # (a.east |- b): a point on a's side, level with b: the path leaves a there
            base = m.group(1).strip()
            return base if base in self.pic.nodes.keys() | self.pic.declared else None
        if c.startswith("$") or "-|" in c or "|-" in c or "intersection" in c:
            return None
        known = self.pic.nodes.keys() | self.pic.declared
        if c in known:
            return c
        if "." in c:
            for base in (c.rsplit(".", 1)[0].strip(), c.split(".", 1)[0].strip()):
                if base in known:
                    return base
        return None

    def _read_node(self, toks: list[tuple[str, str]], k: int
                   ) -> tuple[str | None, list[str], str, int, bool]:
        """From just after ``node``: (name, option keys, text, next index, has text)."""
        name: str | None = None
        keys: list[str] = []
        text = ""
        has_text = False
        at = False
        self.at = None
        while k < len(toks):
            kind, val = toks[k]
            if kind == "opt":
                keys += split_top(val)
            elif kind == "coord":
                if not at:
                    name = val.strip()
                else:
                    self.at = val
                at = False
            elif kind == "kw" and val == "at":
                at = True
            elif kind == "kw" and val in ("foreach",):
                break
            elif kind == "group":
                text, has_text = val, True
                k += 1
                break
            elif kind == "cs":
                pass
            else:
                break
            k += 1
        return name, keys, text, k, has_text

    # -- statements ----------------------------------------------------------------------
    def declare(self, stmts: list[_Stmt]) -> None:
        """First pass: node names, so a path may name a node declared later."""
        for st in stmts:
            toks = _tokens(st.text)
            for k, (kind, val) in enumerate(toks):
                if kind == "kw" and val == "node" or (k == 0 and st.cmd == "node"):
                    j = k + 1 if kind == "kw" else k
                    name, keys, _, _, _ = self._read_node(toks, j)
                    if name and _shape(st.opts.keys + keys, self.r.styles) != "coordinate":
                        self.pic.declared.add(name)

    def statement(self, st: _Stmt) -> None:
        styles = self.r.styles
        toks = _tokens(st.text)
        self.in_force = st.opts.keys
        self.frame = lay.frame(st.opts.keys)
        if st.cmd in ("graph", "pic", "scoped", "skip"):
            self.r.info.unresolved += 1
            return
        if st.cmd == "matrix":
            self._matrix(st, toks)
            return
        if st.cmd in ("node", "coordinate"):
            toks = [("kw", st.cmd)] + toks
        base = st.opts.keys[:]
        lead = 0
        while lead < len(toks) and toks[lead][0] == "opt":
            base += split_top(toks[lead][1])
            lead += 1
        drawn = st.cmd in ("draw", "filldraw", "shadedraw") or _drawn(base, styles)
        self._path(toks[lead:], base, drawn, parent=None)

    def _matrix(self, st: _Stmt, toks: list[tuple[str, str]]) -> None:
        name, keys, text, _, _ = self._read_node([("kw", "node")] + toks, 1)
        keys = st.opts.keys + keys
        expanded = _expand(keys, self.r.styles)
        if not any(k.strip().startswith(("matrix of nodes", "matrix of math nodes"))
                   for k in expanded):
            sub: list[_Stmt] = []
            self.r.statements(text.replace("&", " ").replace("\\\\", " "), st.opts, sub)
            self.declare(sub)
            self.unplaced = True  # cells of a matrix of statements: places not worked out
            try:
                for s in sub:
                    self.statement(s)
            finally:
                self.unplaced = False
            return
        at = self.at
        cells: dict[tuple[int, int], str] = {}
        for r, row in enumerate(re.split(r"\\\\(?:\s*\[[^\]]*\])?", text), start=1):
            if not row.strip():
                continue
            for c, cell in enumerate(split_top(row, "&") if "&" in row else [row], start=1):
                cell = re.sub(r"^\s*\|[^|]*\|", "", cell).strip()
                if cell and name:
                    self.unplaced = True
                    try:
                        if self._new_node(f"{name}-{r}-{c}", ["rectangle"], cell):
                            cells[(r, c)] = f"{name}-{r}-{c}"
                    finally:
                        self.unplaced = False
        self._place_matrix(cells, keys, at)

    def _place_matrix(self, cells: dict[tuple[int, int], str], keys: list[str],
                      at: str | None) -> None:
        """Cells in columns and rows around the matrix's place (its ``at``, else the
        origin; a positioning key on a matrix is not followed)."""
        allk = _expand(self.in_force + keys, self.r.styles)
        if not cells or any(k.strip() == "anchor" or k.strip().startswith("anchor=")
                            for k in allk) or lay.placed(allk, allk, (0, 0), {}, {}) \
                is not False:
            return
        centre = lay.point(at, self.pic.places, self.frame) if at is not None \
            else (self.frame.apply((0.0, 0.0)) if self.frame else None)
        if centre is None:
            return
        sizes = {rc: lay.size(allk, self.pic.nodes[n].text, "rectangle")
                 for rc, n in cells.items()}
        for rc, xy in lay.matrix_cells(sizes, allk, centre).items():
            self.pic.places[cells[rc]] = xy
            self.pic.sizes[cells[rc]] = sizes[rc]

    def _path(self, toks: list[tuple[str, str]], keys: list[str], drawn: bool,
              parent: str | None, origin: tuple[float, float] | None | str = "frame"
              ) -> str | None:
        """Read one path; returns the first node it created (a tree child's node).
        ``origin``: where a node placed before any coordinate lands (a tree child's
        place; ``"frame"``: the origin of the frame in force)."""
        first_node: str | None = None
        n_children = sum(1 for t in toks if t == ("kw", "child"))
        child_k = 0
        start: _Point | None = None      # where the current chain of segments started
        cur: _Point | None = None        # the current point
        path_first: _Point | None = None
        pending: tuple[str, list[str]] | None = None  # an operation waiting for its target
        labels: list[str] = []
        last_edge: Edge | None = None
        fresh = False                    # the last token was the target of ``last_edge``
        shape_arg = False                # the next coordinate is a shape's argument
        reached: tuple | None = None     # the segment that led to the current waypoint
        k = 0
        while k < len(toks):
            kind, val = toks[k]
            was_fresh, fresh = fresh, False
            if kind == "opt":
                if pending is not None:
                    for item in split_top(val):
                        q = re.match(r'^"(.*)"', item, re.S)
                        if q:
                            labels.append(latex_text(q.group(1)))
                        else:
                            pending[1].append(item)
                k += 1
                continue
            if kind == "quote" and pending is not None:
                labels.append(latex_text(val))
                k += 1
                continue
            if kind == "kw" and val in ("node", "coordinate") or kind == "kw" and val == "pic":
                if val == "pic":
                    self.r.info.unresolved += 1
                    k += 1
                    continue
                name, nkeys, text, k, has_text = self._read_node(toks, k + 1)
                nkeys = [kk for kk in nkeys]
                on_segment = any(_LABEL_POS.match(x) for x in nkeys)
                # right after the segment that made an edge, a bare text placed beside the
                # end ("-- (b) node[above] {yes}") labels that edge, as "midway" does
                at_end = was_fresh and not name and pending is None \
                    and _placement_only(nkeys)
                is_label = pending is not None or (last_edge is not None
                                                   and (on_segment or at_end))
                if val == "coordinate":
                    if name:
                        self.pic.coordinates.add(name)
                    continue
                if is_label and (not name or (on_segment and pending is None)):
                    lab = latex_text(text)
                    if lab:
                        if pending is not None:
                            labels.append(lab)
                        elif last_edge is not None:
                            last_edge.label = "\n".join(x for x in (last_edge.label, lab) if x)
                    continue
                if on_segment or pending is not None:
                    here = None
                elif cur is not None:
                    here = cur.xy
                elif origin != "frame":
                    here = origin  # type: ignore[assignment]
                else:  # a path's first node with no coordinate: the origin
                    here = self.frame.apply((0.0, 0.0)) if self.frame else None
                created = self._new_node(name, nkeys, text, here,
                                         blank=origin != "frame" and first_node is None) \
                    if has_text or name else None
                if created and first_node is None:
                    first_node = created
                if created and cur is not None and cur.node is None and pending is None \
                        and not on_segment:
                    cur.node = created  # a node placed on a waypoint: the path reaches it
                    if reached is not None:
                        r_op, r_start, r_labels = reached
                        last_edge = self._reach(r_op, keys, drawn, r_start, cur, r_labels)
                        start = cur
                        reached = None
                if created and cur is None:
                    cur = start = path_first = _Point(created, self.pic.places.get(created))
                continue
            if kind == "kw" and val == "child":
                child_k += 1
                k = self._child(toks, k + 1, keys, cur.node if cur else None,
                                (cur.xy if cur else None, child_k, n_children))
                continue
            if kind == "kw" and val == "edge from parent":
                k += 1  # read by _child, with its options and label node
                while k < len(toks) and toks[k][0] == "opt":
                    k += 1
                while k < len(toks) and toks[k] == ("kw", "node"):
                    k = self._read_node(toks, k + 1)[3]
                continue
            if kind == "op":
                if val == "..":
                    # .. controls (c1) and (c2) .. (target)
                    k += 1
                    while k < len(toks) and toks[k] != ("op", ".."):
                        k += 1
                pending = (val, [])
                labels = []
                k += 1
                continue
            if kind == "kw" and val in ("to", "edge"):
                pending = (val, [])
                labels = []
                k += 1
                continue
            if kind == "kw" and val == "cycle":
                if pending is not None and path_first is not None:
                    self._reach(pending, keys, drawn, start, path_first, labels)
                pending = None
                reached = None  # closed: a shape, no free end
                k += 1
                continue
            if kind == "kw" and val in ("circle", "ellipse", "arc", "sin", "cos", "parabola",
                                        "grid", "rectangle", "plot"):
                shape_arg = val in ("circle", "ellipse", "arc")
                if val in ("rectangle", "grid", "sin", "cos", "parabola"):
                    pending = ("shape", [])
                start = None
                reached = None  # a chain that turns into a shape has no free end
                k += 1
                continue
            if kind == "kw" and val == "let":
                while k < len(toks) and toks[k] != ("kw", "in"):
                    k += 1
                k += 1
                continue
            if kind in ("coord", "rel"):
                if shape_arg:
                    shape_arg = False
                    k += 1
                    continue
                node = self.resolve(val) if kind == "coord" else None
                if kind == "coord" and not val.strip() and cur is not None:
                    node = cur.node  # "()" in a loop: the current node again
                if kind == "coord" and node is None and any(
                        ch in val for ch in "\\") and not val.strip().startswith("$"):
                    self.r.info.unresolved += 1
                if kind == "rel":
                    xy = lay.relative(val, cur.xy if cur else None, self.frame)
                elif node is not None:
                    xy = self.pic.places.get(node)
                else:
                    xy = lay.point(self._expand_macros(val), self.pic.places, self.frame)
                pt = _Point(node, xy)
                made = None
                if pending is None:
                    self._free_end(reached, keys, drawn)
                    cur = start = pt
                    reached = None
                    if path_first is None:
                        path_first = pt
                elif pending[0] == "edge":
                    last_edge = made = self._reach(pending, keys, True, cur, pt, labels,
                                                   every="every edge")
                else:
                    reached = None
                    if pending[0] != "shape":
                        last_edge = made = self._reach(pending, keys, drawn, start, pt,
                                                       labels)
                        if node is not None or start is None:
                            start = pt
                        else:
                            reached = (pending, start, labels)
                    else:
                        start = pt
                    cur = pt
                pending = None
                labels = []
                fresh = made is not None and node is not None
                k += 1
                continue
            if kind == "kw" and val == "foreach":
                self.r.info.unresolved += 1
                break
            k += 1
        self._free_end(reached, keys, drawn)
        return first_node

    def _free_end(self, reached: tuple | None, keys: list[str], drawn: bool) -> None:
        """A chain that left a node and ended at a bare point (``(a) -- ++(1,0)``: an
        output arrow to nowhere) is an edge with a free end when an arrow tip says it
        connects — as an arrow from a bare point into a node is; a plain stroke is not."""
        if reached is None or not drawn:
            return
        (_, okeys), start, labels = reached
        if start is None or start.node is None:
            return
        ts, te = _direction(keys + okeys, self.r.styles)
        if not (ts or te):
            return
        label = "\n".join(x for x in labels if x)
        self.pic.edges.append(
            Edge(source=None, target=start.node, label=label, unattached=["source"])
            if ts and not te else Edge(source=start.node, target=None, label=label,
                                       directed=ts != te, both_heads=ts and te,
                                       unattached=["target"]))

    def _reach(self, pending: tuple[str, list[str]], keys: list[str], drawn: bool,
               start: _Point | None, pt: _Point, labels: list[str], every: str | None = None
               ) -> Edge | None:
        """A segment (or an ``edge``) from ``start`` to ``pt``; an edge when both are nodes."""
        if start is None or pt.node is None and start.node is None:
            return None
        op, okeys = pending
        allkeys = keys + ([every] if every else []) + okeys
        if every == "every edge":
            drawn = _drawn(allkeys, self.r.styles) or drawn
        if not drawn:
            return None
        if pt.node is None:
            return None  # a waypoint: the chain goes on from start
        ts, te = _direction(allkeys, self.r.styles)
        label = "\n".join(x for x in labels if x)
        if start.node is None:  # from a bare point: only an arrow makes it a connection
            if not (te or ts):
                return None
            e = (Edge(source=pt.node, target=None, label=label, unattached=["target"])
                 if ts and not te else Edge(source=None, target=pt.node, label=label,
                                            directed=te != ts, both_heads=ts and te,
                                            unattached=["source"]))
            self.pic.edges.append(e)
            return e
        if start.node == pt.node and op != "edge" and op != "to":
            return None
        a, b = start.node, pt.node
        if ts and not te:
            a, b = b, a
        e = Edge(source=a, target=b, directed=ts != te, both_heads=ts and te, label=label)
        self.pic.edges.append(e)
        return e

    def _child(self, toks: list[tuple[str, str]], k: int, keys: list[str],
               parent: str | None,
               slot: tuple[tuple[float, float] | None, int, int] = (None, 1, 1)) -> int:
        """A ``child``; ``slot``: (parent's place, which child, of how many)."""
        ckeys: list[str] = []
        while k < len(toks) and toks[k][0] == "opt":
            ckeys += split_top(toks[k][1])
            k += 1
        if k >= len(toks) or toks[k][0] != "group":
            return k
        body = _tokens(toks[k][1])
        # edge from parent [opts] node {label} inside the child
        ekeys: list[str] = []
        elabel = ""
        for j, (kind, val) in enumerate(body):
            if kind == "kw" and val == "edge from parent":
                m = j + 1
                while m < len(body) and body[m][0] == "opt":
                    ekeys += split_top(body[m][1])
                    m += 1
                texts = []  # every node after it labels the edge ("above" and "below")
                while m < len(body) and body[m] == ("kw", "node"):
                    _, _, text, m, _ = self._read_node(body, m + 1)
                    texts.append(latex_text(text))
                elabel = "\n".join(t for t in texts if t)
        self.depth += 1
        level = [f"level {self.depth}"] if f"level {self.depth}" in self.r.styles else []
        generic = split_top(self.r.styles.get("level", "").replace("#1", str(self.depth)))
        here = lay.tree_child(slot[0], slot[1], slot[2], _expand(
            self.in_force + keys + generic + level + ckeys, self.r.styles))
        try:
            child = self._path(body, keys + ckeys, True, parent, origin=here)
        finally:
            self.depth -= 1
        missing = any(x.strip() == "missing" for x in ckeys)
        allkeys = keys + ["edge from parent"] + ckeys + ekeys
        hidden = any(x.replace(" ", "") in ("draw=none", "edgefromparentpath={}")
                     for x in _expand(allkeys, self.r.styles))
        if parent and child and not missing and not hidden:
            ts, te = _direction(allkeys, self.r.styles)
            a, b = (child, parent) if ts and not te else (parent, child)
            self.pic.edges.append(Edge(source=a, target=b, directed=ts != te,
                                       both_heads=ts and te, label=elabel))
        return k + 1
