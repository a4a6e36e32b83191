"""tikz-cd diagrams: cells are nodes, ``\\arrow``s edges (:func:`tikzcd_graphs`)."""

from __future__ import annotations

import re

from diagramforge.formats.tikz.graph.lexer import _skip_ws, read_balanced, split_top
from diagramforge.formats.tikz.graph.text import latex_text
from diagramforge.graphs.model import Edge, Graph, Node

# -- tikz-cd --------------------------------------------------------------------------

_CD_DIR = re.compile(r"^[udlr]+$")
_CD_ARROW = re.compile(r"\\(?:arrow|ar)(?![A-Za-z@])")
_CD_UNDIRECTED = re.compile(r"(?:^|,)\s*(?:dash|no head|-)\s*(?:,|$)")


def _cd_cells(body: str) -> list[list[str]]:
    """Rows (``\\\\``) and cells (``&``) of a tikz-cd body, split outside braces."""
    rows: list[list[str]] = [[]]
    cur: list[str] = []
    depth, i = 0, 0
    while i < len(body):
        c = body[i]
        if body.startswith("\\\\", i) and depth == 0:
            rows[-1].append("".join(cur))
            cur = []
            rows.append([])
            i += 2
            continue
        if c == "\\" and i + 1 < len(body):
            cur.append(body[i:i + 2])
            i += 2
            continue
        depth += c in "{[" and 1 or (-1 if c in "}]" else 0)
        if c == "&" and depth == 0:
            rows[-1].append("".join(cur))
            cur = []
        else:
            cur.append(c)
        i += 1
    rows[-1].append("".join(cur))
    return [r for r in rows if any(x.strip() for x in r)]


def _cd_arrow(cell: str, k: int) -> tuple[str, str, bool, int] | None:
    """(direction, label, directed, end) of the ``\\arrow[...]`` starting at ``k``, in the
    key-value form (``[r, "f"']``) or the old one (``{r}{f}``)."""
    j = _skip_ws(cell, k)
    if cell.startswith("[", j):
        g = read_balanced(cell, j, "[", "]")
        if g is None:
            return None
        opts = split_top(g[0])
        dirs = next((o for o in opts if _CD_DIR.match(o)), "")
        quoted = next((o for o in opts if o.startswith('"')), "")
        label = latex_text(quoted[1:quoted.rfind('"')]) if quoted.count('"') >= 2 else ""
        return dirs, label, not _CD_UNDIRECTED.search(g[0]), g[1]
    if cell.startswith("{", j):
        g = read_balanced(cell, j, "{", "}")
        if g is None:
            return None
        end, label = g[1], ""
        k2 = _skip_ws(cell, end)
        if cell.startswith("{", k2):
            g2 = read_balanced(cell, k2, "{", "}")
            if g2:
                label, end = latex_text(g2[0]), g2[1]
        return g[0].strip(), label, True, end
    return None


def tikzcd_graphs(code: str, macros: dict[str, str] | None = None) -> list[Graph]:
    """One graph per ``tikzcd`` environment: non-empty cells are nodes (``r<i>c<j>``), each
    ``\\arrow[<udlr…>, "label"]`` an edge to the cell that many rows/columns away (plain
    ``dash``/``no head`` arrows undirected).  Arrows to empty cells get text-less nodes.
    ``macros`` (argument-less ``\\newcommand``/``\\DeclareMathOperator``) are expanded in
    cell text, so ``\\Hom(B, C)`` reads as the page shows it."""
    macros = macros or {}

    def text_of(tex: str) -> str:
        if macros:
            tex = re.sub(r"\\([A-Za-z@]+)(?![A-Za-z@])",
                         lambda mm: macros.get(mm.group(1), mm.group(0)), tex)
        return latex_text(tex)

    out = []
    for m in re.finditer(r"\\begin\s*\{tikzcd\}", code):
        end = code.find("\\end{tikzcd}", m.end())
        if end < 0:
            continue
        body = code[m.end():end]
        k = _skip_ws(body, 0)
        if body.startswith("[", k):
            g = read_balanced(body, k, "[", "]")
            body = body[g[1]:] if g else body
        nodes: dict[tuple[int, int], Node] = {}
        edges: list[Edge] = []
        for r, row in enumerate(_cd_cells(body)):
            for c, cell in enumerate(row):
                first = _CD_ARROW.search(cell)
                text = text_of(cell[:first.start()] if first else cell)
                if text:
                    nodes[(r, c)] = Node(id=f"r{r}c{c}", text=text)
                for a in _CD_ARROW.finditer(cell):
                    arrow = _cd_arrow(cell, a.end())
                    if arrow is None or not _CD_DIR.match(arrow[0] or "-"):
                        continue
                    dirs, label, directed, _ = arrow
                    tr = r + dirs.count("d") - dirs.count("u")
                    tc = c + dirs.count("r") - dirs.count("l")
                    edges.append(Edge(source=f"r{r}c{c}", target=f"r{tr}c{tc}", label=label,
                                      directed=directed))
        ids = {n.id for n in nodes.values()}
        extra = [Node(id=i) for e in edges for i in (e.source, e.target) if i not in ids]
        seen: set[str] = set()
        extra = [n for n in extra if not (n.id in seen or seen.add(n.id))]
        out.append(Graph(nodes=list(nodes.values()) + extra, edges=edges))
    return out
