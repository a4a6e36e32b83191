"""A structure graph from a diagram file of any format, and two such files scored
(``diagramforge score``).

The file is told by its name, else its content (:func:`detect_format`), and read as the
pipeline reads its format: each format says both in its ``file_graph`` capability
(``formats/<name>/file_graph.py``, the contract in :mod:`diagramforge.formats.file_graphs`),
and this module loops over the formats that have one. What is no format's stays here: graph
JSON, the scorers' own serialisation. It is the ``score`` command's engine and lives beside
the commands, above ``config``: given no params it reads a file with every section's
defaults, the whole ``Params`` that only the config layer composes.  The scorers it feeds are
the graph layer's (:func:`diagramforge.graphs.score.score_graphs`).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

from diagramforge.config import Params
from diagramforge.formats import capabilities
from diagramforge.formats.file_graphs import Clue, FileReading, head
from diagramforge.graphs.model import Graph
from diagramforge.graphs.score import score_graphs
from diagramforge.graphs.settings import GraphParams

JSON = "json"
JSON_CLUES = (
    Clue(10, lambda data, name: name.endswith(".json") or head(data).startswith(b"{"),
         "a graph JSON (the scorers' own form) by name or its opening brace: no diagram "
         "language opens with one, so it is tried first"),
)
"""How a graph JSON is recognised: the one kind of file that is no format's."""


def clues() -> list[tuple[Clue, str, ModuleType | None]]:
    """Every clue, with the kind it reports and the ``file_graph`` module that reads its
    files (``None``: graph JSON), in rank order."""
    out: list[tuple[Clue, str, ModuleType | None]] = [(c, JSON, None) for c in JSON_CLUES]
    for fmt, module in capabilities.every("file_graph").items():
        out += [(c, c.kind or fmt, module) for c in module.CLUES]
    return sorted(out, key=lambda t: t[0].rank)


def _matching(data: bytes, name: str) -> Iterator[tuple[str, ModuleType | None]]:
    lower = name.lower()
    for clue, kind, module in clues():
        if clue.test(data, lower):
            yield kind, module


def detect_format(data: bytes, name: str = "") -> str:
    """What the file is — ``json``, a format's name, or what a format's clue calls a file
    that is not its source (``pdf``) — from the lowest-ranked clue that holds: names and
    magic numbers, else the content."""
    for kind, _module in _matching(data, name):
        return kind
    raise ValueError(f"cannot tell the diagram format of {name or 'the input'}")


def load_graph(path: str | Path, params: GraphParams | None = None,
               compile_tikz: bool = False, full: Any = None) -> Graph:  # noqa: ANN401
    """A graph JSON file, or a diagram read by its format's ``file_graph``: draw.io/mxGraph
    (``.drawio``, ``.xml``, ``.drawio.svg``, ``.drawio.png``: first page, exact), SVG
    (DiagramEval geometry), TikZ (``.tex``/``.tikz`` source; with ``compile_tikz`` also the
    compiled page; a PDF as its page geometry), Graphviz DOT (``.dot``/``.gv``, Graphviz's
    layout) and Mermaid (``.mmd``/``.mermaid``, Mermaid's own parse). ``full`` is the whole
    :class:`~diagramforge.config.Params` (DOT and Mermaid read their format sections;
    defaults otherwise). A format that declines the file (``read`` gives ``None``) hands it
    to the next matching clue of another format."""
    path = Path(path)
    data = path.read_bytes()
    params = params or (full.graph if full is not None else GraphParams())
    reading = FileReading(path.name, params, lambda: full or Params(), compile_tikz)
    declined: set[int] = set()
    for kind, module in _matching(data, path.name):
        if module is None:
            return Graph.from_json(data)
        if id(module) in declined:
            continue
        graph = module.read(data, kind, reading)
        if graph is not None:
            return graph
        declined.add(id(module))
    raise ValueError(f"cannot tell the diagram format of {path.name or 'the input'}")


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
