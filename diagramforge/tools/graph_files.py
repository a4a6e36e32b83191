"""A structure graph from a diagram file of any format, and two such files scored
(``diagramforge score``).

The format is told by the file's name, else its content (:func:`detect_format`); each is
read as the pipeline reads it: draw.io/mxGraph exactly from its first page, SVG and PDF by
geometry, TikZ from the source (and the compiled page with ``compile_tikz``), DOT and
Mermaid through their handler's extractor and engine.  It is the ``score`` command's
engine and lives beside the commands, above ``config``: given no params it reads a file with
every section's defaults, the whole ``Params`` that only the config layer composes.  The
handlers it dispatches on are the formats'; the scorers it feeds are the graph layer's
(:func:`diagramforge.graphs.score.score_graphs`).
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from diagramforge.config import Params
from diagramforge.formats.mxgraph.graph import model_graph
from diagramforge.formats.mxgraph.notation import MxGraphError, decode, normalise, parse_xml
from diagramforge.formats.registry import handlers
from diagramforge.formats.svg.graph import svg_graph
from diagramforge.formats.tikz.graph import pdf_graph, tikz_graph
from diagramforge.formats.tikz.texcompile import compile_tikz as _compile
from diagramforge.graphs.model import Graph
from diagramforge.graphs.score import score_graphs
from diagramforge.graphs.settings import GraphParams
from diagramforge.store.records import Unit

_DOT_HEAD = re.compile(rb"^(?:\s|//[^\n]*\n|/\*.*?\*/|#[^\n]*\n)*(?:strict\s+)?(?:di)?graph\b",
                       re.I | re.S)
_MERMAID_HEAD = re.compile(
    rb"^(?:\s|%%[^\n]*\n)*(?:---\n.*?\n---\n\s*)?(?:flowchart|graph\s+(?:TB|TD|BT|RL|LR)\b|"
    rb"sequenceDiagram|classDiagram|stateDiagram|erDiagram|journey|gantt|pie|mindmap|"
    rb"timeline|gitGraph|quadrantChart|requirementDiagram|C4Context|block-beta)", re.S)


def detect_format(data: bytes, name: str = "") -> str:
    """``json``, ``mxgraph``, ``svg``, ``tikz``, ``dot``, ``mermaid`` or ``pdf``, from the
    extension, else the content."""
    lower = name.lower()
    head = data[:4096].lstrip()
    if lower.endswith(".json") or head.startswith(b"{"):
        return "json"
    if data[:5] == b"%PDF-" or lower.endswith(".pdf"):
        return "pdf"
    if lower.endswith((".tex", ".tikz")):
        return "tikz"
    if lower.endswith((".dot", ".gv")):
        return "dot"
    if lower.endswith((".mmd", ".mermaid")):
        return "mermaid"
    if lower.endswith((".drawio", ".drawio.svg", ".drawio.png", ".drawio.xml")) \
            or data[:8] == b"\x89PNG\r\n\x1a\n":
        return "mxgraph"
    if b"<mxfile" in data or b"<mxGraphModel" in data or b"&lt;mxfile" in data \
            or b"&lt;mxGraphModel" in data:
        return "mxgraph"
    if lower.endswith(".svg") or b"<svg" in head:
        return "svg"
    if re.search(rb"\\(?:begin\{tikzpicture\}|tikz\b|node\b|draw\b)", data):
        return "tikz"
    if _MERMAID_HEAD.match(data[:4096]):
        return "mermaid"
    if _DOT_HEAD.match(data[:4096]):
        return "dot"
    if lower.endswith(".xml"):
        return "mxgraph"
    raise ValueError(f"cannot tell the diagram format of {name or 'the input'}")


def _engine_graph(fmt: str, data: bytes, name: str, params: Any) -> Graph:  # noqa: ANN401
    """A DOT or Mermaid file's graph as the pipeline builds it: the format's extractor (its
    safety checks and limits), then its engine (Graphviz's layout; Mermaid's parse in the
    browser).  ``params`` is the full :class:`~diagramforge.config.Params`."""
    h = handlers()[fmt](params or Params(), lambda r: name)
    try:
        base = {"source": "file", "source_id": name, "group": name, "title": name}
        recs, rejs = h.extract_file(data, name or f"input.{fmt}", base, name, Unit.INPUT)
        if not recs:
            why = f"{rejs[0].reason}: {rejs[0].detail}" if rejs else "nothing extracted"
            raise ValueError(f"{name}: {why}")
        g = h.to_graph(recs[0])
    finally:
        h.close()
    if g is None:
        raise ValueError(f"{name}: {fmt} gives no structure graph for this diagram")
    return g


def load_graph(path: str | Path, params: GraphParams | None = None,
               compile_tikz: bool = False, full: Any = None) -> Graph:  # noqa: ANN401
    """A graph JSON file, or a diagram converted with the extractors: draw.io/mxGraph
    (``.drawio``, ``.xml``, ``.drawio.svg``, ``.drawio.png``: first page, exact), SVG
    (DiagramEval geometry), TikZ (``.tex``/``.tikz`` source; with ``compile_tikz`` also the
    compiled page, see :func:`~.tikz.tikz_graph`), Graphviz DOT (``.dot``/``.gv``, Graphviz's
    layout) and Mermaid (``.mmd``/``.mermaid``, Mermaid's own parse), PDF (page geometry).
    ``full`` is the whole :class:`~diagramforge.config.Params` (DOT and Mermaid read their
    format sections; defaults otherwise)."""
    path = Path(path)
    data = path.read_bytes()
    params = params or (full.graph if full is not None else GraphParams())
    fmt = detect_format(data, path.name)
    if fmt == "json":
        return Graph.from_json(data)
    if fmt in ("dot", "mermaid"):
        return _engine_graph(fmt, data, path.name, full)
    if fmt == "mxgraph":
        try:
            page = next(p for p in decode(data, path.name) if p.model is not None)
        except MxGraphError:
            if b"<svg" in data[:4096]:  # an SVG that only mentions draw.io
                fmt = "svg"
            else:
                raise
        else:
            return model_graph(parse_xml(normalise(page.model)), params)
    if fmt == "svg":
        return svg_graph(data, params)
    if fmt == "pdf":
        return pdf_graph(data, params)
    code = data.decode("utf-8", "replace")
    return tikz_graph(code, _compile(code) if compile_tikz else None, params)


def score_files(pred_path: str | Path, ref_path: str | Path, threshold: float | None = None,
                method: str | None = None, params: Any = None,  # noqa: ANN401
                compile_tikz: bool = False) -> dict[str, float | int]:
    """:func:`score_graphs` on two files (see :func:`load_graph` for what they may be);
    ``params`` is the whole :class:`~diagramforge.config.Params` (extraction from its
    ``graph`` section, scoring from ``evaluate.scores``), defaults when ``None``."""
    graph = params.graph if params is not None else None
    scores = params.evaluate.scores if params is not None else None
    return score_graphs(load_graph(pred_path, graph, compile_tikz, params),
                        load_graph(ref_path, graph, compile_tikz, params), threshold, method,
                        scores)


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m diagramforge.tools.graph_files PRED REF`` prints the score row as JSON."""
    args = list(sys.argv[1:] if argv is None else argv)
    if len(args) != 2:
        print("usage: python -m diagramforge.tools.graph_files PRED REF", file=sys.stderr)
        return 2
    print(json.dumps(score_files(args[0], args[1]), sort_keys=True))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
