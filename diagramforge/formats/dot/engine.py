"""Graphviz DOT: split files into graphs, refuse what acts on the machine, run the real
engine (Debian's ``dot``) sandboxed, and read the structure graph from its own output.

Safety.  A DOT file is data, but some attributes make Graphviz read files: ``image``,
``shapefile``, ``imagepath``, ``fontpath``, ``stylesheet`` and ``<IMG SRC=…>`` inside HTML
labels.  They are refused (:data:`UNSAFE_ATTRIBUTES`, reason ``dot_unsafe``), read from the
engine's own parse (``-Knop -Tjson0``: attributes without layout, 0.14 s for 3,000 nodes
where a layout takes 11 s), so no quoting trick hides one.  Every run also has Graphviz's
web-server lock-down on (``SERVER_NAME`` set, ``GV_FILE_PATH`` an empty directory: a file
path is refused even if a check missed it), an empty working directory, rlimits, a timeout
that kills the process group, and node/edge caps checked before any layout.

Structure.  The graph comes from ``dot -Tjson`` — the layout Graphviz actually drew: node
text is the text its label operations draw (``\\N`` resolved, records and HTML tables
flattened to their lines), bboxes from positions (y down, points), a labelled cluster is a
``container`` node like a draw.io group, and direction is what the arrowheads show (the
mxGraph reader's convention): a head only, forward; a tail only (``dir=back``), reversed;
both or none, undirected.
"""

from __future__ import annotations

import functools
import json
import re
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING

from diagramforge.graphs.model import Edge, Graph, Node
from diagramforge.notation.declarations import UNSAFE_XML, declaration
from diagramforge.sandbox.process import run_sandboxed, timeout_detail
from diagramforge.store.records import Refusal

if TYPE_CHECKING:  # the graph layer loads only when a graph is built (not in extract)
    from diagramforge.graphs.model import Graph


class DotReason(StrEnum):
    MALFORMED = "dot_malformed"
    NO_GRAPH = "dot_no_graph"
    UNSAFE = "dot_unsafe"
    UNSAFE_XML = UNSAFE_XML
    TOO_LARGE = "dot_too_large"
    TIMEOUT = "dot_timeout"
    FAILED = "dot_render_failed"
    NOT_INSTALLED = "dot_not_installed"


class DotError(Refusal):
    """Refused with a :class:`DotReason`."""


UNSAFE_ATTRIBUTES = frozenset({"image", "shapefile", "imagepath", "fontpath", "stylesheet"})
"""Attributes that make Graphviz (or whoever renders the published DOT) read a file."""
_HTML_IMG = re.compile(r"<\s*img\b", re.I)

SHAPES = {"box": "rectangle", "rect": "rectangle", "rectangle": "rectangle",
          "square": "rectangle", "record": "rectangle", "Mrecord": "rounded",
          "ellipse": "ellipse", "oval": "ellipse", "circle": "ellipse",
          "doublecircle": "ellipse", "point": "ellipse", "diamond": "rhombus",
          "Mdiamond": "rhombus", "cylinder": "cylinder", "hexagon": "hexagon",
          "triangle": "triangle", "parallelogram": "parallelogram", "note": "note",
          "plaintext": "text", "plain": "text", "none": "text"}
"""Graphviz shapes in the vocabulary the other formats' graphs use."""


@dataclass(frozen=True)
class Caps:
    max_bytes: int = 1_000_000
    max_nodes: int = 2_000
    max_edges: int = 5_000


@functools.cache
def find_dot() -> str | None:
    return shutil.which("dot")


@functools.cache
def dot_version() -> str:
    exe = find_dot()
    if exe is None:
        return "missing"
    out = subprocess.run([exe, "-V"], capture_output=True, text=True, timeout=30)
    return (out.stderr or out.stdout).strip()


# -- splitting a file into graphs ---------------------------------------------------------
_HEADER = re.compile(r"\b(?:strict\s+)?(?:di)?graph\b", re.I)


def _skip(text: str, i: int) -> int | None:
    """If a comment or string starts at ``i``, the index after it; else None."""
    if text.startswith("//", i) or (text[i] == "#" and (i == 0 or text[i - 1] == "\n")):
        j = text.find("\n", i)
        return len(text) if j < 0 else j
    if text.startswith("/*", i):
        j = text.find("*/", i + 2)
        return len(text) if j < 0 else j + 2
    if text[i] == '"':
        j = i + 1
        while j < len(text) and text[j] != '"':
            j += 2 if text[j] == "\\" else 1
        return j + 1
    return None


def _braces(text: str) -> Iterator[tuple[str, int, int]]:
    """The structure of DOT text, skipping strings and comments: ``("{", i, depth)`` and
    ``("}", i, depth)`` (depth outside the brace), and ``("<>", start, end)`` for each
    HTML-like string inside a graph (``<…>``, nested; braces inside it do not count)."""
    i, depth, angle, start = 0, 0, 0, 0
    while i < len(text):
        nxt = _skip(text, i) if angle == 0 else None
        if nxt is not None:
            i = nxt
            continue
        c = text[i]
        if depth > 0 and c == "<":
            if angle == 0:
                start = i
            angle += 1
        elif angle and c == ">":
            angle -= 1
            if angle == 0:
                yield "<>", start, i + 1
        elif angle == 0 and c == "{":
            yield "{", i, depth
            depth += 1
        elif angle == 0 and c == "}" and depth > 0:
            depth -= 1
            yield "}", i, depth
        i += 1


def html_strings(text: str) -> list[str]:
    """The HTML-like strings (``<…>`` values, nested) of DOT text: where ``<IMG>`` means an
    image file, as opposed to a quoted label that merely mentions one."""
    return [text[a:b] for kind, a, b in _braces(text) if kind == "<>"]


def split_graphs(text: str) -> list[str]:
    """The top-level graphs of a DOT file (a file may hold several), each as written:
    from its header to its closing brace.  Braces inside strings, comments and HTML
    labels (``<…>``, nested) do not count."""
    out: list[str] = []
    start = prev = 0
    for kind, i, depth in _braces(text):
        if kind == "{" and depth == 0:
            heads = list(_HEADER.finditer(text, prev, i))
            start = heads[-1].start() if heads else i
        elif kind == "}" and depth == 0:
            out.append(text[start:i + 1])
            prev = i + 1
    return [g for g in out if _HEADER.match(g)]


# -- running the engine -------------------------------------------------------------------
_LATIN1 = re.compile(r"\bcharset\s*=\s*\"?(?:latin-?1|iso-?8859-?1|l1)\b", re.I)


def _env(tmp: Path) -> dict[str, str]:
    locked = tmp / "no-files"
    locked.mkdir(exist_ok=True)
    return {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "HOME": str(tmp),
            # Graphviz's own web-server mode: file paths only from GV_FILE_PATH (empty)
            "SERVER_NAME": "diagramforge", "GV_FILE_PATH": f"{locked}/"}


def run_dot(code: str, outputs: tuple[str, ...], *, layout: bool = True,
            timeout_s: float = 20.0, memory_mb: int = 1024) -> dict[str, bytes]:
    """Run Graphviz on ``code`` for each output format (``json``, ``svg``, ``json0``…);
    ``layout=False`` parses only (``-Knop``).  Raises :class:`DotError`."""
    exe = find_dot()
    if exe is None:
        raise DotError(DotReason.NOT_INSTALLED, "graphviz `dot` not on PATH (./dev setup)")
    with tempfile.TemporaryDirectory(prefix="df-dot-") as tmp:
        work = Path(tmp)
        # the bytes the graph says it is in (Graphviz reads them by its charset attribute)
        enc = "latin-1" if _LATIN1.search(code) else "utf-8"
        (work / "in.gv").write_bytes(code.encode(enc, "replace"))
        argv = [exe, *([] if layout else ["-Knop"])]
        for fmt in outputs:
            argv += [f"-T{fmt}", "-o", f"out.{fmt}"]
        res = run_sandboxed([*argv, "in.gv"], work, _env(work), timeout_s,
                            memory_mb=memory_mb, fsize_mb=64)
        if res.timed_out:
            raise DotError(DotReason.TIMEOUT, "dot " + timeout_detail(res, timeout_s))
        got = {f: (work / f"out.{f}").read_bytes() for f in outputs
               if (work / f"out.{f}").exists()}
        lines = res.stdout.splitlines()
        if not layout:  # -Knop wants positions it will not use: its complaint is noise
            lines = [ln for ln in lines if "has no position" not in ln
                     and "required by the -n flag" not in ln]
        message = " ".join(ln for ln in lines if "Error" in ln or "syntax" in ln)[:500]
        failed = bool(message) if not layout else res.returncode != 0
        if failed or len(got) != len(outputs) or not all(got.values()):
            reason = DotReason.MALFORMED if "syntax" in message else DotReason.FAILED
            raise DotError(reason, message or "\n".join(lines)[-500:]
                           or f"exit {res.returncode}")
        return got


def _objects(doc: dict) -> tuple[list[dict], list[dict]]:
    """(subgraphs, nodes) of a Graphviz JSON document."""
    objs = doc.get("objects") or []
    n_sub = int(doc.get("_subgraph_cnt") or 0)
    return objs[:n_sub], objs[n_sub:]


def _attributes(doc: dict) -> list[tuple[str, str]]:
    items = list(doc.items())
    for o in (doc.get("objects") or []) + (doc.get("edges") or []):
        items += list(o.items())
    return [(k, v) for k, v in items if isinstance(v, str)]


def check(code: str, caps: Caps, timeout_s: float = 20.0) -> dict:
    """Refuse unsafe, oversized or unparsable DOT; return the engine's parse (``json0``,
    no layout)."""
    if len(code.encode()) > caps.max_bytes:
        raise DotError(DotReason.TOO_LARGE, f"{len(code.encode())} bytes > {caps.max_bytes}")
    why = declaration(code)  # HTML-like labels are markup: refused as in every format
    if why is not None:
        raise DotError(DotReason.UNSAFE_XML, why)
    graphs = split_graphs(code)
    if not graphs:
        raise DotError(DotReason.NO_GRAPH, "no `graph`/`digraph` block")
    if len(graphs) > 1:
        raise DotError(DotReason.MALFORMED, f"{len(graphs)} graphs in one diagram")
    # the engine's parse would already try to read an <IMG>'s file (and its JSON cannot
    # tell an HTML label from a quoted one), so these are found in the text
    if any(_HTML_IMG.search(h) for h in html_strings(code)):
        raise DotError(DotReason.UNSAFE, "<IMG> in an HTML label reads a file")
    raw = run_dot(code, ("json0",), layout=False, timeout_s=timeout_s)["json0"]
    docs = _json_docs(raw)
    if not docs:
        raise DotError(DotReason.MALFORMED, "the engine read no graph")
    doc = docs[0]
    for key, value in _attributes(doc):
        if key in UNSAFE_ATTRIBUTES:
            raise DotError(DotReason.UNSAFE, f"attribute {key}={value[:80]!r} reads a file")
    _, nodes = _objects(doc)
    n_edges = len(doc.get("edges") or [])
    if len(nodes) > caps.max_nodes or n_edges > caps.max_edges:
        raise DotError(DotReason.TOO_LARGE, f"{len(nodes)} nodes, {n_edges} edges "
                                            f"(caps {caps.max_nodes}, {caps.max_edges})")
    return doc


def _json_docs(raw: bytes) -> list[dict]:
    """Graphviz writes one JSON document per graph, back to back."""
    text, out, i = raw.decode("utf-8", "replace"), [], 0
    dec = json.JSONDecoder()
    while True:
        while i < len(text) and text[i].isspace():
            i += 1
        if i >= len(text):
            return out
        doc, i = dec.raw_decode(text, i)
        out.append(doc)


# -- the structure graph ------------------------------------------------------------------
def _drawn_text(obj: dict, key: str = "_ldraw_") -> str:
    return "\n".join(op["text"] for op in obj.get(key) or [] if op.get("op") == "T"
                     and op.get("text"))


def _box(obj: dict, height: float) -> list[float] | None:
    try:
        x, y = (float(v) for v in obj["pos"].split(",")[:2])
        w, h = float(obj["width"]) * 72, float(obj["height"]) * 72
    except (KeyError, ValueError):
        return None
    return [round(x - w / 2, 2), round(height - y - h / 2, 2), round(w, 2), round(h, 2)]


def _heads(edge: dict, directed: bool) -> tuple[bool, bool]:
    """(head, tail): whether each end of the edge has an arrowhead drawn."""
    d = edge.get("dir", "forward" if directed else "none")
    head = d in ("forward", "both") and edge.get("arrowhead", "normal") != "none"
    tail = d in ("back", "both") and edge.get("arrowtail", "normal") != "none"
    return head, tail


def _arrows(edge: dict, directed: bool) -> tuple[bool, bool]:
    """(directed, reversed) from the arrowheads drawn (heads at both ends: undirected,
    :attr:`~diagramforge.graphs.model.Edge.both_heads`)."""
    head, tail = _heads(edge, directed)
    if head and tail:
        return False, False
    if tail:
        return True, True
    return head, False


def graph_from_json(doc: dict) -> Graph:
    """The structure graph of one laid-out Graphviz JSON document (``dot -Tjson``)."""
    try:
        height = float(str(doc.get("bb", "0,0,0,0")).split(",")[3])
    except (IndexError, ValueError):
        height = 0.0
    subs, objs = _objects(doc)
    directed = bool(doc.get("directed"))
    nodes = [Node(id=str(o["name"]), text=_drawn_text(o) or _label(o),
                  shape=SHAPES.get(str(o.get("shape", "ellipse")), str(o.get("shape"))),
                  bbox=_box(o, height)) for o in objs]
    for s in subs:  # a labelled cluster is a container, as a draw.io group is a vertex
        text = _drawn_text(s)
        if text and str(s.get("name", "")).startswith("cluster"):
            x0, y0, x1, y1 = (float(v) for v in str(s.get("bb", "0,0,0,0")).split(","))
            nodes.append(Node(id=f"cluster:{s['name']}", text=text, shape="container",
                              bbox=[x0, round(height - y1, 2), x1 - x0, y1 - y0]))
    names = {int(o.get("_gvid", k)): str(o.get("name")) for k, o in
             enumerate(doc.get("objects") or [])}  # an edge's ends are indices of objects
    edges = []
    for e in doc.get("edges") or []:
        d, rev = _arrows(e, directed)
        src, tgt = names.get(int(e["tail"])), names.get(int(e["head"]))
        if rev:
            src, tgt = tgt, src
        edges.append(Edge(source=src, target=tgt, directed=d,
                          both_heads=all(_heads(e, directed)),
                          label=_drawn_text(e) or _drawn_text(e, "_xldraw_")
                          or str(e.get("label") or "")))
    return Graph(nodes=nodes, edges=edges)


def _label(o: dict) -> str:
    label = str(o.get("label", "\\N"))
    return str(o.get("name", "")) if label == "\\N" else label


def structure_graph(doc: dict) -> Graph:
    """The graph of the engine's parse without layout (``json0`` from :func:`check`): the
    same nodes, texts (labels as written) and edges, no bboxes — for code-level checks
    where a layout would move every node (edits)."""
    g = graph_from_json({**doc, "bb": "0,0,0,0"})
    return Graph(nodes=[n.model_copy(update={"bbox": None}) for n in g.nodes
                        if n.shape != "container"], edges=g.edges)


@dataclass
class Rendered:
    svg: str
    graph: Graph


def render(code: str, caps: Caps, timeout_s: float = 20.0, memory_mb: int = 1024
           ) -> Rendered:
    """Check, lay out and draw one DOT graph: its SVG (Graphviz's own) and structure graph."""
    check(code, caps, timeout_s)
    out = run_dot(code, ("json", "svg"), timeout_s=timeout_s, memory_mb=memory_mb)
    docs = _json_docs(out["json"])
    if not docs:
        raise DotError(DotReason.FAILED, "no layout written")
    return Rendered(svg=out["svg"].decode("utf-8", "replace"), graph=graph_from_json(docs[0]))
