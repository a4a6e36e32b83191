"""Structure graph of TikZ source: named ``\\node``s and the ``\\draw``/``\\path`` statements
that join them.

Read from the source alone (no compile), so only what resolves textually counts: ``\\node
(name) ... {text}`` and connections ``(a) -- (b)``, ``to``, ``-|``, ``|-`` and ``edge``
between named nodes (anchors such as ``a.east`` resolve to ``a``).  Arrow options give the
direction: ``->`` forward, ``<-`` backward, ``<->`` or none undirected.  Coordinates,
``\\foreach`` loops, ``\\matrix`` cells and macros are not expanded; the geometry cross-check
from the compiled page is not done here.
"""

from __future__ import annotations

import re

from diagramforge.graphs.model import Edge, Graph, Node

_NODE = re.compile(r"\\node\s*(?:\[[^\]]*\]\s*)?\(([^)]+)\)\s*(?:\[[^\]]*\]\s*)?"
                   r"(?:at\s*\([^)]*\)\s*)?(?:\[[^\]]*\]\s*)?\{((?:[^{}]|\{[^{}]*\})*)\}")
_DRAW = re.compile(r"\\(?:draw|path)\b([^;]*);", re.S)
_TOKEN = re.compile(r"\((?P<coord>[^()]+)\)|(?P<op>--|-\||\|-|\bto\b|\bedge\b)"
                    r"(?:\s*\[(?P<opts>[^\]]*)\])?|node\s*(?:\[[^\]]*\])?\s*\{(?P<label>[^{}]*)\}")


def _clean(tex: str) -> str:
    tex = re.sub(r"\\\\(\[[^\]]*\])?", "\n", tex)
    tex = re.sub(r"\\[a-zA-Z]+\*?\s*(?=\{)", "", tex)  # \textbf{x} -> {x}
    tex = re.sub(r"\\[a-zA-Z]+\*?", "", tex).replace("{", "").replace("}", "").replace("$", "")
    return "\n".join(" ".join(line.split()) for line in tex.split("\n")).strip()


def _arrows(opts: str) -> tuple[bool, bool] | None:
    """(forward, backward) from an option list, or None when it names no arrow."""
    for opt in opts.split(","):
        opt = opt.strip()
        if "=" in opt or "-" not in opt or not re.fullmatch(r"[<>|\w{}\[\] ]*-[<>|\w{}\[\] ]*",
                                                            opt):
            continue
        left, _, right = opt.partition("-")
        return bool(right.strip()), bool(left.strip())
    return None


def tikz_graph(source: str) -> Graph:
    """Graph of the named nodes and node-to-node connections of a TikZ picture."""
    source = re.sub(r"(?<!\\)%.*", "", source)
    nodes: list[Node] = []
    seen: set[str] = set()
    for m in _NODE.finditer(source):
        name = m.group(1).strip()
        if name not in seen:
            seen.add(name)
            nodes.append(Node(id=name, text=_clean(m.group(2))))
    edges: list[Edge] = []
    for m in _DRAW.finditer(source):
        body = m.group(1)
        head = re.match(r"\s*\[([^\]]*)\]", body)
        base = _arrows(head.group(1)) if head else None
        current: str | None = None
        pending: tuple[str, tuple[bool, bool] | None] | None = None
        label = ""
        for t in _TOKEN.finditer(body[head.end() if head else 0:]):
            if t.group("coord") is not None:
                name = t.group("coord").split(".")[0].strip()
                name = name if name in seen else None
                if pending and current and name:
                    op, arrows = pending
                    fwd, back = arrows or base or (False, False)
                    src, tgt = (name, current) if back and not fwd else (current, name)
                    edges.append(Edge(source=src, target=tgt, directed=fwd != back,
                                      label=label))
                if not (pending and pending[0] == "edge"):
                    current = name  # ``edge`` leaves the current point where it was
                pending, label = None, ""
            elif t.group("op"):
                pending = (t.group("op"), _arrows(t.group("opts") or ""))
            elif t.group("label") is not None:
                label = _clean(t.group("label"))  # ``-- node {z} (b)``: labels the next edge
    return Graph(nodes=nodes, edges=edges)
