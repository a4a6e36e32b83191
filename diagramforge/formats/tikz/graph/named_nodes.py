"""Named ``\\node`` statements of TikZ source in their simple form
(``\\node[opts] (name) [opts] at (x,y) {text};``), with the spans of their parts: what the
TikZ edits change in place (``formats/tikz/edit.py``) and what referring expressions read a node's
own options and position from (``formats/tikz/scene.py``)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from diagramforge.formats.tikz.graph.lexer import read_balanced

NAME = r"[A-Za-z][\w\-]*"
"""A node name as the simple statements write it."""


@dataclass
class NodeStmt:
    name: str
    start: int
    end: int
    opts: tuple[int, int] | None  # span of the first [..] incl. brackets
    after_node: int  # index just after "\node"
    at: tuple[int, int] | None  # span of the coordinate inside at ( )
    text: tuple[int, int]  # span inside the braces


def skip_space(s: str, i: int) -> int:
    while i < len(s) and s[i].isspace():
        i += 1
    return i


def node_statements(code: str) -> dict[str, NodeStmt]:
    """Named ``\\node`` statements of the simple form, by name (a name defined twice is
    left out: an edit could not tell which one is meant)."""
    out: dict[str, NodeStmt] = {}
    seen: set[str] = set()
    for m in re.finditer(r"\\node\b", code):
        s, i = m.start(), skip_space(code, m.end())
        opts = None
        if code.startswith("[", i):
            r = read_balanced(code, i, "[", "]")
            if r is None:
                continue
            opts, i = (i, r[1]), skip_space(code, r[1])
        n = re.match(r"\((" + NAME + r")\)", code[i:])
        if not n:
            continue
        name, i = n.group(1), skip_space(code, i + n.end())
        if code.startswith("[", i):
            r = read_balanced(code, i, "[", "]")
            if r is None:
                continue
            opts = opts or (i, r[1])
            i = skip_space(code, r[1])
        at = None
        if code.startswith("at", i):
            i = skip_space(code, i + 2)
            r = read_balanced(code, i, "(", ")") if code.startswith("(", i) else None
            if r is None:
                continue
            at, i = (i + 1, r[1] - 1), skip_space(code, r[1])
        if not code.startswith("{", i):
            continue
        r = read_balanced(code, i, "{", "}")
        if r is None:
            continue
        text, i = (i + 1, r[1] - 1), skip_space(code, r[1])
        if not code.startswith(";", i):
            continue
        if name in seen:
            out.pop(name, None)
            continue
        seen.add(name)
        out[name] = NodeStmt(name, s, i + 1, opts, m.end(), at, text)
    return out
