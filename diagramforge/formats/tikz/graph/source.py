"""The source graph: the pictures of a document (``tikzpicture``, ``\\tikz``, ``tikzcd``)
read into one graph each (:func:`tikz_source_graphs`), and the places of their nodes
(:func:`tikz_source_layout`)."""

from __future__ import annotations

import re

from diagramforge.formats.tikz.graph.lexer import (
    _skip_ws,
    _statement_end,
    read_balanced,
    split_top,
    strip_comments,
)
from diagramforge.formats.tikz.graph.options import _Opts, _parse_styles
from diagramforge.formats.tikz.graph.path_reader import _PathReader, _Picture
from diagramforge.formats.tikz.graph.statements import SourceInfo, _Reader, _Stmt
from diagramforge.formats.tikz.graph.tikzcd import tikzcd_graphs
from diagramforge.graphs.model import Edge, Graph, Node
from diagramforge.graphs.settings import GraphParams

# -- pictures ---------------------------------------------------------------------------

def _pictures(code: str) -> list[tuple[str, str]]:
    """(options, body) of each outermost ``tikzpicture`` and ``\\tikz`` command."""
    out: list[tuple[int, str, str]] = []
    spans: list[tuple[int, int]] = []
    pat = re.compile(r"\\(begin|end)\s*\{tikzpicture\}")
    depth, start, opts, body_start = 0, 0, "", 0
    for m in pat.finditer(code):
        if m.group(1) == "begin":
            if depth == 0:
                start = m.start()
                k = _skip_ws(code, m.end())
                og = read_balanced(code, k, "[", "]") if code.startswith("[", k) else None
                opts, body_start = (og[0], og[1]) if og else ("", m.end())
            depth += 1
        elif depth > 0:
            depth -= 1
            if depth == 0:
                out.append((start, opts, code[body_start:m.start()]))
                spans.append((start, m.end()))
    for m in re.finditer(r"\\tikz(?![A-Za-z@])", code):
        if any(a <= m.start() < b for a, b in spans):
            continue
        k = _skip_ws(code, m.end())
        opts = ""
        if code.startswith("[", k):
            og = read_balanced(code, k, "[", "]")
            if og:
                opts, k = og[0], _skip_ws(code, og[1])
        if code.startswith("{", k):
            g = read_balanced(code, k, "{", "}")
            if g:
                out.append((m.start(), opts, g[0]))
                spans.append((m.start(), g[1]))
        else:
            end = _statement_end(code, k)
            out.append((m.start(), opts, code[k:end + 1]))
            spans.append((m.start(), end + 1))
    out.sort()
    return [(o, b) for _, o, b in out]


def tikz_source_graphs(code: str, params: GraphParams | None = None
                       ) -> tuple[list[Graph], SourceInfo]:
    """One graph per picture of ``code`` (a document, a picture, or bare statements)."""
    params = params or GraphParams()
    code = strip_comments(code)
    reader = _Reader(params)
    # styles defined anywhere in the document (preamble \tikzset, \tikzstyle); the
    # preamble's plain keys (\tikzset{->, >=stealth}) are every picture's options
    preamble = code.split("\\begin{document}", 1)[0] if "\\begin{document}" in code else ""
    defaults: list[str] = []
    for m in re.finditer(r"\\tikzset\s*\{", code):
        g = read_balanced(code, m.end() - 1, "{", "}")
        if g:
            _parse_styles(g[0], reader.styles)
            if m.start() < len(preamble):
                defaults += [k for k in split_top(g[0]) if "/." not in k and "/" not in
                             k.split("=", 1)[0]]
    for m in re.finditer(r"\\tikzstyle\s*\{([^{}]*)\}\s*\+?=\s*\[", code):
        g = read_balanced(code, m.end() - 1, "[", "]")
        if g:
            reader.styles[m.group(1).strip()] = g[0]
    for m in re.finditer(r"\\(?:newcommand\*?|renewcommand\*?|def)\s*\{?\\([A-Za-z@]+)\}?"
                         r"\s*\{([^{}#]*)\}", code):
        reader.macros[m.group(1)] = m.group(2).strip()
    pics = _pictures(code)
    if not pics and re.search(r"\\(?:node|draw|path)\b", code):
        pics = [("", code)]
    graphs: list[Graph] = []
    for opts, body in pics:
        _parse_styles(opts, reader.styles)
        stmts: list[_Stmt] = []
        reader.statements(body, _Opts(list(defaults)).plus(opts), stmts)
        reader.info.statements += len(stmts)
        pic = _Picture()
        pr = _PathReader(reader, pic)
        pr.declare(stmts)
        for st in stmts:
            pr.statement(st)
        graphs.append(Graph(nodes=list(pic.nodes.values()), edges=pic.edges))
        reader.info.places = {n: (*xy, *pic.sizes[n]) for n, xy in pic.places.items()
                              if n in pic.nodes}
    operators = {m.group(1): m.group(2).strip() for m in re.finditer(
        r"\\DeclareMathOperator\*?\s*\{?\\([A-Za-z@]+)\}?\s*\{([^{}#]*)\}", code)}
    cds = tikzcd_graphs(code, {**reader.macros, **operators})
    graphs += cds
    reader.info.pictures = len(pics) + len(cds)
    return graphs, reader.info


def tikz_source_graph(code: str, params: GraphParams | None = None) -> Graph:
    """All pictures of ``code`` as one graph (ids prefixed ``p<k>:`` when there are several)."""
    graphs, _ = tikz_source_graphs(code, params)
    return combine(graphs)


def tikz_source_layout(code: str, params: GraphParams | None = None
                       ) -> dict[str, tuple[float, float, float, float]]:
    """Node id → (centre x, centre y, width, height) in cm on the page (y down) for the
    nodes whose place the source determines (:mod:`.layout`); empty when the code has
    several pictures (their relative places on the page are unknown)."""
    graphs, info = tikz_source_graphs(code, params)
    if len(graphs) != 1:
        return {}
    return {n: (x, -y, w, h) for n, (x, y, w, h) in info.places.items()}


def combine(graphs: list[Graph]) -> Graph:
    if len(graphs) == 1:
        return graphs[0]
    nodes: list[Node] = []
    edges: list[Edge] = []
    for k, g in enumerate(graphs, start=1):
        pre = f"p{k}:"
        nodes += [n.model_copy(update={"id": pre + n.id}) for n in g.nodes]
        edges += [e.model_copy(update={"source": pre + e.source if e.source else None,
                                       "target": pre + e.target if e.target else None})
                  for e in g.edges]
    return Graph(nodes=nodes, edges=edges)
