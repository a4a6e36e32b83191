"""The structure graph of a PlantUML diagram, from PlantUML's own model (``driver.py``) with
boxes from its own SVG.

Class, object, component, deployment, use-case, state and legacy activity diagrams are
PlantUML's "cuca" diagrams: entities (leaves), groups (packages, nodes, composite states)
and links. Each entity is a node with its display text (an aliased entity's label; a
class-like box's name then its member rows as drawn, :data:`MEMBER_LEAVES`), each group a
``container`` node (as a draw.io group or a Graphviz cluster), each link an edge. A link's
decorations say where its heads are — ``decor1`` is drawn at the second entity, ``decor2``
at the first (``A --> B``: an arrow at ``B``; ``A <|-- B``: a triangle at ``A``) — and
direction follows the other readers' convention: a head at one end only, directed towards
it (an inheritance triangle or a composition diamond points at the parent, the whole);
heads at both ends or none, undirected. Start and end pseudo-states (``[*]``, ``(*)``) are
empty circles (PlantUML draws dots and rings, as its interface lollipops). Invisible
links (``-[hidden]->``) and hidden or removed entities are not in the drawing, so not in
the graph. A link's end labels
(multiplicities, roles) follow its middle label, one per line; a note is a ``note`` node
and its dashed link an undirected edge; the title, caption and legend are bare ``text``
nodes (:data:`AROUND`): everything PlantUML draws is in the graph, as the grounding check
(``formats/grounding.py``) asks. A use case's actor is ``umlActor`` (draw.io's stick
figure), not a sequence's lifeline (``actor``).

Sequence diagrams are their participants (``actor`` nodes, as in Mermaid's reading) and
messages in the order sent (notes, groups, activations and dividers are not edges): a
message drawn with a head at each end (``<->``) is undirected with ``both_heads``; a lost
or found message's missing end has no participant and is not an edge.

Boxes: PlantUML 1.2020 opens the drawing of most entities with a comment naming them
(``<!--MD5=[…]\\nclass Foo-->``, ``entity``, ``cluster``) and gives a class's rectangle its
name as ``id``; the first shape after the comment is the entity's box.  Entities drawn
without a comment (use cases inside a rectangle, states) get the frame their first line is
drawn in; where none is found, no box (``None``: "anywhere", as in Mermaid's
non-flowchart graphs).

Activity diagrams of the new syntax (``:action;``) are no entities and links in PlantUML
but a tree of instructions (``if``, ``while``, ``fork``…): their graph is the flow PlantUML
draws from it (:class:`_Flow`).
"""

from __future__ import annotations

import re

from diagramforge.graphs.model import Edge, Graph, Node

LEAF_SHAPES = {
    "CLASS": "rectangle", "ABSTRACT_CLASS": "rectangle", "INTERFACE": "rectangle",
    "ANNOTATION": "rectangle", "ENUM": "rectangle", "ENTITY": "rectangle",
    "OBJECT": "rectangle", "MAP": "rectangle", "NOTE": "note", "USECASE": "ellipse",
    "STATE": "rounded", "STATE_CHOICE": "rhombus", "STATE_FORK_JOIN": "rectangle",
    "ACTIVITY": "rounded", "BRANCH": "rhombus", "SYNCHRO_BAR": "rectangle",
    "CIRCLE_START": "circle", "CIRCLE_END": "circle", "POINT_FOR_ASSOCIATION": "ellipse",
    "LOLLIPOP_FULL": "circle", "LOLLIPOP_HALF": "circle", "DESCRIPTION": "rectangle",
}
"""PlantUML's leaf types in the vocabulary the other formats' graphs use."""
SYMBOL_SHAPES = {
    "USymbolActor": "umlActor", "USymbolDatabase": "cylinder", "USymbolQueue": "cylinder",
    "USymbolInterface": "circle", "USymbolUsecase": "ellipse", "USymbolNode": "cube",
    "USymbolCloud": "cloud", "USymbolNote": "note", "USymbolFolder": "folder",
    "USymbolHexagon": "hexagon", "USymbolCard": "rectangle", "USymbolRect": "rectangle",
    "USymbolComponent1": "rectangle", "USymbolComponent2": "rectangle",
    "USymbolArtifact": "rectangle", "USymbolStorage": "rounded", "USymbolFrame": "container",
    "USymbolBoundary": "circle", "USymbolControl": "circle", "USymbolEntityDomain":
    "circle", "USymbolCollections": "rectangle", "USymbolAgent": "rectangle",
    "USymbolStack": "rectangle", "USymbolFile": "note", "USymbolPackage": "container",
    "USymbolLabel": "text",
}
"""A described entity's drawing (``database``, ``actor``, ``cloud``…) as a graph shape."""
PSEUDO = frozenset({"CIRCLE_START", "CIRCLE_END"})
NOT_DRAWN_LEAVES = frozenset({"POINT_FOR_ASSOCIATION"})
"""Leaves PlantUML adds for itself (the point of an association class): no entity."""
MEMBER_LEAVES = frozenset({"CLASS", "ABSTRACT_CLASS", "INTERFACE", "ANNOTATION", "ENUM",
                           "ENTITY", "OBJECT"})
"""Leaves drawn as a box with member rows (fields, methods, an enum's values, an object's
attributes) under the name: the rows are part of the node's text, as the other readers read
a class box (draw.io's one-cell class, the SVG reader's lines inside one frame)."""
AROUND = ("title", "caption", "legend")
"""The texts PlantUML draws around a diagram (``title``, ``caption``, ``legend``): each a
bare ``text`` node joined to nothing, as draw.io's reader reads a title cell."""


def _plain(text: str) -> str:
    """A display's words as drawn: creole emphasis and the ``\\n`` escape resolved."""
    s = text.replace("\\n", "\n")
    s = re.sub(r"\*\*(.+?)\*\*|//(.+?)//|__(.+?)__|--(.+?)--|~~(.+?)~~|\"\"(.+?)\"\"",
               lambda m: next(g for g in m.groups() if g is not None), s)
    s = re.sub(r"</?(?:b|i|u|s|w|color|size|font|back|strike|sub|sup|code|plain)\b[^>]*>",
               "", s)
    return "\n".join(ln.strip() for ln in s.splitlines()).strip()


def _shape(leaf: dict) -> str:
    if leaf.get("symbol") in SYMBOL_SHAPES and leaf.get("leaf") == "DESCRIPTION":
        return SYMBOL_SHAPES[leaf["symbol"]]
    return LEAF_SHAPES.get(str(leaf.get("leaf")), "rectangle")


NOT_HEADS = frozenset({
    "NONE", "PARENTHESIS", "CIRCLE", "CIRCLE_FILL", "CIRCLE_CONNECT", "CIRCLE_CROSS", "PLUS",
    "SQUARE", "NOT_NAVIGABLE", "CROWFOOT", "CIRCLE_CROWFOOT", "CIRCLE_LINE", "DOUBLE_LINE",
    "LINE_CROWFOOT"})
"""Link ends PlantUML decorates without pointing anywhere: an interface's socket ``-(`` and
ball ``-0``, a nesting ``+``, a port square, ``x`` (not navigable), an entity's crow's feet
and bars (``}o``, ``||``). Read by eye, a line ending in one is no arrow, so it does not
make the link directed (a socket read as a head once made "following the arrows" cross an
interface's plain line — judged on the samples' component diagram)."""


def _heads(link: dict) -> tuple[bool, bool]:
    """(head at ``a``, head at ``b``): ``decor2`` is drawn at the first entity; only a
    decoration that points (an arrow, a triangle, a diamond) is a head."""
    return (str(link.get("d2", "NONE")) not in NOT_HEADS,
            str(link.get("d1", "NONE")) not in NOT_HEADS)


# -- boxes from the SVG ----------------------------------------------------------------------
_NAMED = re.compile(r"<!--MD5=\[[0-9a-f]+\]\n(?P<kind>class|entity|cluster) (?P<name>[^\n]*?)"
                    r"-->(?P<body>.*?)(?=<!--|</g></svg>|$)", re.S)
_SHAPE = re.compile(r"<(?:rect|ellipse|polygon|path)\b[^>]*>")
_TEXT = re.compile(r"<text\b(?P<attrs>[^>]*)>(?P<text>[^<]*)</text>")
_ELEMENT = re.compile(r"<(?:rect|ellipse|polygon|path)\b[^>]*>|<text\b[^>]*>[^<]*</text>")
_ATTR = re.compile(r'\b([a-zA-Z]+)="([^"]*)"')
_NUM = re.compile(r"-?\d+(?:\.\d+)?")


def _el_box(el: str) -> list[float] | None:
    a = dict(_ATTR.findall(el))
    try:
        if el.startswith("<rect"):
            return [float(a["x"]), float(a["y"]), float(a["width"]), float(a["height"])]
        if el.startswith("<ellipse"):
            cx, cy, rx, ry = (float(a[k]) for k in ("cx", "cy", "rx", "ry"))
            return [cx - rx, cy - ry, 2 * rx, 2 * ry]
        if el.startswith("<text"):
            x, y, w = float(a["x"]), float(a["y"]), float(a.get("textLength") or 0)
            size = float(a.get("font-size") or 12)
            return [x, y - size, w, size * 1.2]
        nums = [float(v) for v in _NUM.findall(a.get("points") or a.get("d") or "")]
    except (KeyError, ValueError):
        return None
    xs, ys = nums[0::2], nums[1::2]
    if not xs or not ys:
        return None
    return [min(xs), min(ys), max(xs) - min(xs), max(ys) - min(ys)]


def _union(boxes: list[list[float]]) -> list[float]:
    x0 = min(b[0] for b in boxes)
    y0 = min(b[1] for b in boxes)
    x1 = max(b[0] + b[2] for b in boxes)
    y1 = max(b[1] + b[3] for b in boxes)
    return [round(x0, 2), round(y0, 2), round(x1 - x0, 2), round(y1 - y0, 2)]


def svg_boxes(svg: str, labels: dict[str, str] | None = None) -> dict[str, list[float]]:
    """Entity or cluster name → the box of what PlantUML drew for it after the comment
    naming it: a class's or cluster's frame (its first shape); an actor's or a component's
    drawing with its label — its shapes up to the text that is its label's first line
    (``labels``: name → that line), never past it (entities PlantUML draws without a comment
    may follow in the same stretch); only its first shape when no such text is found."""
    out: dict[str, list[float]] = {}
    for m in _NAMED.finditer(svg):
        body, name = m.group("body"), m.group("name")
        first = _SHAPE.search(body)
        boxes = [b for b in [_el_box(first.group(0)) if first else None] if b]
        want = (labels or {}).get(name)
        if m.group("kind") == "entity" and want:
            upto: list[list[float]] = []
            for e in _ELEMENT.finditer(body):
                box = _el_box(e.group(0))
                if box:
                    upto.append(box)
                t = _TEXT.match(e.group(0))
                if t and _unescape(t.group("text")).strip() == want:
                    boxes = upto
                    break
        if boxes:
            out.setdefault(name, _union(boxes))
    return out


def _inside(box: list[float], x: float, y: float) -> bool:
    return box[0] - 1 <= x <= box[0] + box[2] + 1 and box[1] - 1 <= y <= box[1] + box[3] + 1


def text_boxes(svg: str, wanted: dict[str, str]) -> dict[str, list[float]]:
    """For entities PlantUML drew without a comment (states, use cases inside a rectangle,
    legacy activities): the shape drawn last before a text that is the entity's first line,
    when the text sits inside it — a label and its frame.  ``wanted``: id → first line;
    a line two entities share finds neither."""
    by_line: dict[str, list[str]] = {}
    for nid, line in wanted.items():
        by_line.setdefault(line, []).append(nid)
    out: dict[str, list[float]] = {}
    last: list[float] | None = None
    for m in _ELEMENT.finditer(svg):
        el = m.group(0)
        if not el.startswith("<text"):
            last = _el_box(el)
            continue
        t = _TEXT.match(el)
        ids = by_line.get(_unescape(t.group("text")).strip()) if t else None
        if not ids or len(ids) != 1 or last is None or ids[0] in out:
            continue
        a = dict(_ATTR.findall(el))
        try:
            x, y = float(a["x"]), float(a["y"])
        except (KeyError, ValueError):
            continue
        if _inside(last, x, y):
            out[ids[0]] = [round(v, 2) for v in last]
    return out


def _unescape(s: str) -> str:
    return s.replace("&lt;", "<").replace("&gt;", ">").replace("&quot;", '"') \
        .replace("&#39;", "'").replace("&amp;", "&")


def cuca_graph(model: dict, svg: str = "") -> Graph:
    """Entities, groups and links (class, component, use-case, state, legacy activity)."""
    labels = {str(n["id"]): _plain(str(n.get("text") or "")).split("\n", 1)[0]
              for n in model.get("nodes") or []}
    boxes = svg_boxes(svg, labels) if svg else {}
    nodes: list[Node] = []
    drawn: set[str] = set()
    for leaf in model.get("nodes") or []:
        if leaf.get("hidden") or leaf.get("leaf") in NOT_DRAWN_LEAVES:
            continue
        nid = str(leaf["id"])
        pseudo = leaf.get("leaf") in PSEUDO
        text = "" if pseudo else _plain(str(leaf.get("text") or ""))
        if leaf.get("leaf") in MEMBER_LEAVES:
            text = "\n".join(t for t in [text, *(_plain(str(m)) for m in
                                                 leaf.get("members") or [])] if t)
        nodes.append(Node(id=nid, text=text, shape=_shape(leaf), bbox=boxes.get(nid)))
        drawn.add(nid)
    for g in model.get("groups") or []:
        gid = str(g["id"])
        if gid in drawn:
            continue
        nodes.append(Node(id=gid, text=_plain(str(g.get("text") or "")), shape="container",
                          bbox=boxes.get(gid)))
        drawn.add(gid)
    missing = {n.id: n.text.split("\n", 1)[0] for n in nodes if n.bbox is None and n.text}
    if svg and missing:
        found = text_boxes(svg, missing)
        nodes = [n.model_copy(update={"bbox": found[n.id]}) if n.id in found else n
                 for n in nodes]
    edges: list[Edge] = []
    for link in model.get("links") or []:
        if link.get("invis"):
            continue
        a, b = str(link["a"]), str(link["b"])
        if a not in drawn or b not in drawn:
            continue
        at_a, at_b = _heads(link)
        src, tgt = (b, a) if at_a and not at_b else (a, b)
        # end labels (multiplicities, roles) after the middle one, as draw.io's reader joins
        # an edge's own label and its label cells
        label = "\n".join(t for t in (_plain(str(link.get(k) or ""))
                                      for k in ("label", "q1", "q2")) if t)
        edges.append(Edge(source=src, target=tgt, label=label,
                          directed=at_a != at_b, both_heads=at_a and at_b))
    return Graph(nodes=nodes + around_nodes(model, svg), edges=edges)


def around_nodes(model: dict, svg: str = "") -> list[Node]:
    """The title, caption and legend PlantUML draws (:data:`AROUND`) as ``text`` nodes,
    boxed by the run of their first line on the drawing (the last such run: PlantUML draws
    them after the diagram)."""
    out: list[Node] = []
    for key in AROUND:
        text = _plain(str(model.get(key) or ""))
        if not text:
            continue
        first = text.split("\n", 1)[0]
        runs = [m.group(0) for m in _TEXT.finditer(svg)
                if _unescape(m.group("text")).strip() == first]
        box = _el_box(runs[-1]) if runs else None
        out.append(Node(id=f"@{key}", text=text, shape="text",
                        bbox=[round(v, 2) for v in box] if box else None))
    return out


def sequence_graph(model: dict) -> Graph:
    """Participants and their messages in the order sent."""
    nodes = [Node(id=str(p["id"]), text=_plain(str(p.get("text") or p["id"])), shape="actor")
             for p in model.get("participants") or []]
    around = around_nodes(model)
    ids = {n.id for n in nodes}
    edges: list[Edge] = []
    for m in model.get("messages") or []:
        if m.get("hidden"):
            continue
        a, b = str(m["a"]), str(m["b"])
        if a not in ids or b not in ids:
            continue
        both = m.get("dir") == "BOTH_DIRECTION" or (m.get("h1") != "NONE"
                                                     and m.get("h2") != "NONE")
        rev = m.get("dir") == "RIGHT_TO_LEFT_REVERSE"
        src, tgt = (b, a) if rev else (a, b)
        edges.append(Edge(source=src, target=tgt, label=_plain(str(m.get("label") or "")),
                          directed=not both, both_heads=both))
    return Graph(nodes=nodes + around, edges=edges)


def model_graph(kind: str, model: dict | None, svg: str = "") -> Graph | None:
    """The graph of a drawn diagram, or ``None`` when PlantUML exposes no model of it."""
    if not model or model.get("error"):
        return None
    if "participants" in model:
        return sequence_graph(model)
    if "nodes" in model:
        return cuca_graph(model, svg)
    if isinstance(model.get("activity"), dict):
        g = activity_graph(model["activity"], svg)
        return Graph(nodes=g.nodes + around_nodes(model, svg), edges=g.edges)
    return None


# -- activity diagrams (new syntax): the flow of PlantUML's instruction tree ----------------
class _Flow:
    """Build the drawn flow of an activity diagram from PlantUML's instruction tree: an
    action is a ``rounded`` node, ``start`` and ``stop``/``end`` empty circles, an ``if``,
    ``while``, ``repeat`` or ``switch`` test a ``hexagon`` with its test as text (as PlantUML
    draws it; an empty merge diamond where branches meet a ``rhombus``), a ``fork`` and its
    join black bars (``rectangle`` without text); edges carry the branch labels PlantUML draws
    (``yes``/``no``, a while's ``is``/``out``).  ``split`` branches start and meet without a
    bar; partitions and groups are their contents."""

    def __init__(self) -> None:
        self.nodes: list[Node] = []
        self.edges: list[Edge] = []

    def node(self, text: str, shape: str) -> str:
        nid = f"a{len(self.nodes)}"
        self.nodes.append(Node(id=nid, text=_plain(text), shape=shape))
        return nid

    def link(self, preds: list[tuple[str, str]], target: str) -> None:
        for src, label in preds:
            self.edges.append(Edge(source=src, target=target, label=_plain(label)))

    def seq(self, ins: dict | None, preds: list[tuple[str, str]]) -> list[tuple[str, str]]:
        for item in (ins or {}).get("all") or []:
            before = len(self.nodes)
            preds = self.one(item, preds)
            if len(self.nodes) > before:
                self.notes(item, self.nodes[before].id)
        return preds

    def notes(self, ins: dict, at: str) -> None:
        """An instruction's notes (``note right: …`` after an action): a ``note`` node
        joined to what it is drawn beside by an undirected edge, as draw.io's reader reads
        a note and its dashed link."""
        for note in ins.get("notes") or []:
            text = str(note.get("display") or "") if isinstance(note, dict) else ""
            if text.strip():
                nid = self.node(text, "note")
                self.edges.append(Edge(source=nid, target=at, directed=False))

    def test(self, text: str) -> str:
        """A test: PlantUML draws it as a hexagon around its text (an empty merge or a
        repeat's start as a small diamond)."""
        return self.node(text, "hexagon" if text.strip() else "rhombus")

    def branches(self, test: str, branches: list[dict], preds: list[tuple[str, str]],
                 label_key: str) -> list[tuple[str, str]]:
        diamond = self.test(test)
        self.link(preds, diamond)
        out: list[tuple[str, str]] = []
        for b in branches:
            out += self.seq(b.get("list"), [(diamond, str(b.get(label_key) or ""))])
        if len(out) > 1:
            merge = self.node("", "rhombus")
            self.link(out, merge)
            return [(merge, "")]
        return out

    def one(self, ins: dict, preds: list[tuple[str, str]]) -> list[tuple[str, str]]:
        kind = ins.get("type")
        if kind == "InstructionStart":
            nid = self.node("", "circle")
            self.link(preds, nid)
            return [(nid, "")]
        if kind in ("InstructionStop", "InstructionEnd"):
            nid = self.node("", "circle")
            self.link(preds, nid)
            return []
        if kind == "InstructionSimple":
            nid = self.node(str(ins.get("label") or ""), "rounded")
            self.link(preds, nid)
            return [] if ins.get("killed") else [(nid, "")]
        if kind == "InstructionIf":
            thens = list(ins.get("thens") or [])
            first = thens[0] if thens else {}
            rest = [*thens[1:], *([ins["elseBranch"]] if ins.get("elseBranch") else [])]
            diamond = self.test(str(first.get("labelTest") or ""))
            self.link(preds, diamond)
            out = self.seq(first.get("list"), [(diamond, str(first.get("labelPositive") or ""))])
            for b in rest:  # an elseif is a diamond on the no branch
                if b.get("labelTest"):
                    inner = self.test(str(b["labelTest"]))
                    self.edges.append(Edge(source=diamond, target=inner))
                    diamond = inner
                out += self.seq(b.get("list"), [(diamond, str(b.get("labelPositive") or ""))])
            if len(out) > 1:
                merge = self.node("", "rhombus")
                self.link(out, merge)
                return [(merge, "")]
            return out
        if kind == "InstructionSwitch":
            return self.branches(str(ins.get("labelTest") or ""),
                                 list(ins.get("branches") or []), preds, "labelTest")
        if kind == "InstructionWhile":
            diamond = self.test(str(ins.get("test") or ""))
            self.link(preds, diamond)
            ends = self.seq(ins.get("repeatList"), [(diamond, str(ins.get("yes") or ""))])
            self.link(ends, diamond)
            after = [(diamond, str(ins.get("out") or ""))]
            special = ins.get("specialOut")
            return self.one(special, after) if isinstance(special, dict) else after
        if kind == "InstructionRepeat":
            start = self.node("", "rhombus")
            self.link(preds, start)
            ends = self.seq(ins.get("repeatList"), [(start, "")])
            diamond = self.test(str(ins.get("test") or ""))
            self.link(ends, diamond)
            self.edges.append(Edge(source=diamond, target=start,
                                   label=_plain(str(ins.get("yes") or ""))))
            return [(diamond, str(ins.get("out") or ""))]
        if kind in ("InstructionFork", "InstructionSplit"):
            parts = ins.get("forks") or ins.get("splits") or []
            if kind == "InstructionFork":
                bar = self.node("", "rectangle")
                self.link(preds, bar)
                preds = [(bar, "")]
            out = []
            for part in parts:
                out += self.seq(part, preds)
            if kind == "InstructionFork" and out:
                join = self.node("", "rectangle")
                self.link(out, join)
                return [(join, "")]
            return out
        if kind in ("InstructionGroup", "InstructionPartition", "InstructionList"):
            return self.seq(ins.get("list") if kind != "InstructionList" else ins, preds)
        return preds  # notes, labels, gotos, spots: not part of the drawn flow


def activity_graph(tree: dict, svg: str = "") -> Graph:
    """The flow of a new-syntax activity diagram, boxes of its actions and tests from the
    SVG where their first line is drawn inside a shape."""
    flow = _Flow()
    flow.seq(tree, [])
    nodes = flow.nodes
    if svg:
        found = text_boxes(svg, {n.id: n.text.split("\n", 1)[0] for n in nodes if n.text})
        nodes = [n.model_copy(update={"bbox": found[n.id]}) if n.id in found else n
                 for n in nodes]
    return Graph(nodes=nodes, edges=flow.edges)
